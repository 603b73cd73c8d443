"""A world where one distinctive address has left a trace in every table that can name it (the
privacy tests: pbem/games/privacy.py): a team game under way with its talk and a reply by
email, a finished game whose seat is named by the address's local part, a game it set up, an
invitation it got, its preferences, a bounce, its standing, counted requests, a login attempt
and an audit line; and a dump of every text column of every table to search."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote, quote_plus

from game_helpers import cfg_of, db_of, deliver, seats, start_game
from inbound_helpers import reply_to
from sqlalchemy import String, Text, select
from sqlmodel import Session, SQLModel
from test_seat_actions import play_to_the_end

import engine
from pbem import links
from pbem.auth import record_audit
from pbem.db import session_scope
from pbem.games import analysis as game_analysis
from pbem.games import leaderboard
from pbem.games import proposals, service, talk
from pbem.games.settings import GameSettings
from pbem.inbound.handler import handle_message
from pbem.models import AddressPreference, AddressStanding, Game, LoginAttempt, utcnow
from pbem.models_mail import Bounce, BounceKind
from pbem.store import load_state

ZED = "Zebulon.Quixote+korsar@Example.com"  # as typed; its mailbox is zebulon.quixote@example.com
ZED_PLAIN = "zebulon.quixote@example.com"
BOB, CID, DAN = "bob@example.com", "cid@example.com", "dan@example.com"
OTHERS = (BOB, CID, DAN)
ZED_TALK = "Partner, keep the green admiral for the end"


def forms_of_zed() -> list[str]:
    """Every form the address may take, lower case: as typed, its mailbox, its local parts,
    url-encoded."""
    typed = ZED.lower()
    return sorted({typed, ZED_PLAIN, "zebulon.quixote+korsar", "zebulon.quixote", quote(typed, safe=""),
                   quote_plus(typed), quote(ZED_PLAIN, safe=""), "zebulon.quixote%2bkorsar"})


@dataclass
class World:
    running: int  # Zed (seat 1) with Bob, Cid, Dan, in teams
    finished: int  # Bob and Zed (no name given: the seat is named by the local part)
    others_game: int  # Bob, Cid, Dan: Zed is not in it
    proposal_made: int
    proposal_invited: int


def _invite(app, creator_name: str, creator: str, players: str) -> int:
    cfg = cfg_of(app)
    with session_scope(db_of(app)) as s:
        proposal = proposals.propose_game(s, cfg, your_name=creator_name, your_email=creator, players=players,
                                          settings=GameSettings(name=f"{creator_name}'s next game"))
        token = links.sign_record(cfg, links.CONFIRM_SALT, proposal.id, proposal.nonce)
        proposal_id = proposal.id
    with session_scope(db_of(app)) as s:
        proposals.confirm_proposal(s, cfg, token)
    return proposal_id  # type: ignore[return-value]


def build_world(app, smtp_server, client) -> World:
    cfg = cfg_of(app)
    running = start_game(app, [f"Zed <{ZED}>", f"Bob <{BOB}>", f"Cid <{CID}>", f"Dan <{DAN}>"],
                         teams=True, seed=5, name="Zed's table")
    finished = start_game(app, [f"Bob <{BOB}>", ZED], seed=3)
    others_game = start_game(app, [f"Bob <{BOB}>", f"Cid <{CID}>", f"Dan <{DAN}>"], seed=4, name="Without Zed")
    deliver(app)
    # Zed's words to its partner, and a reply by email with a move in it.
    with session_scope(db_of(app)) as s:
        game = s.get(Game, running)
        table = service.seats_of(s, running)
        talk.say(s, cfg, game, table, table[0], ZED_TALK, utcnow())
    original = next(m for m, (_, rcpts) in zip(smtp_server.messages, smtp_server.envelopes)
                    if any(r.lower() == ZED.lower() for r in rcpts) and "Reply-To" in m)
    handle_message(db_of(app), cfg, bytes(reply_to(original, ZED, "draw")))
    play_to_the_end(app, finished)
    proposal_made = _invite(app, "Zed", ZED, f"Bob <{BOB}>\nbot:greedy")
    proposal_invited = _invite(app, "Cid", CID, f"Zed <{ZED}>\nbot:greedy")
    client.post("/me", data={"email": ZED})  # a counted request, and a "my games" link queued
    deliver(app)
    with session_scope(db_of(app)) as s:
        pref = s.get(AddressPreference, ZED.lower()) or AddressPreference(email=ZED.lower())
        pref.language, pref.timezone = "fr", "Europe/Paris"
        s.add(pref)
        s.add(Bounce(key=ZED_PLAIN, email=ZED.lower(), kind=BounceKind.TEMPORARY, reason="mailbox full"))
        standing = s.get(AddressStanding, ZED_PLAIN) or AddressStanding(key=ZED_PLAIN)
        standing.answered_at = standing.answered_at or utcnow()
        s.add(standing)
        s.add(LoginAttempt(email=ZED.lower(), ip="192.0.2.7"))
        record_audit(s, "admin@korsar.test", "clear_undeliverable", detail=ZED.lower())
        leaderboard.set_listed(s, ZED, "Captain Zed")  # on the leaderboard, under a chosen name
        game_analysis.set_ready_email(s, ZED, True)  # "your analysis is ready" chosen on /me
    return World(running, finished, others_game, proposal_made, proposal_invited)


def dump(engine_or_app) -> list[tuple[str, str, str]]:
    """(table, column, value lower-cased) of every non-empty text value in the database."""
    found = []
    with Session(db_of(engine_or_app)) as s:
        for table in SQLModel.metadata.sorted_tables:
            columns = [c for c in table.columns  # SQLModel's AutoString is a String's decorator
                       if isinstance(getattr(c.type, "impl", c.type), (String, Text))]
            if not columns:
                continue
            for row in s.execute(select(*columns)).all():
                for column, value in zip(columns, row):
                    if value:
                        found.append((table.name, column.name, str(value).lower()))
    return found


def where_found(app, forms: list[str]) -> list[tuple[str, str, str]]:
    return [(t, c, f) for t, c, v in dump(app) for f in forms if f in v]


def scores_of(app, game_id: int) -> tuple:
    with session_scope(db_of(app)) as s:
        state = load_state(s.get(Game, game_id))
        return tuple(engine.winners(state)), tuple(engine.player_view(state, 0)["scores"])


def seat_of(app, game_id: int, position: int):
    return seats(app, game_id)[position]
