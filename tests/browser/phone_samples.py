"""Sample emails and player pages for the phone-width test, made through the real code paths:
games created by the service with hostile and non-Latin names, moves played, clocks swept,
admin actions taken, and the outbox delivered to the test SMTP server (emails written at
delivery are written then, as the worker writes them). Nothing here builds a template context
by hand, so what the templates hold at run time is what gets measured."""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import engine
from flask import Flask
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from pbem import links
from pbem.config import Config
from pbem.db import session_scope
from pbem.games import analysis as game_analysis
from pbem.games import address_prefs, bots, bounced, invitations, lifecycle, my_games, proposals, service, setup
from pbem import store
from pbem.games.clocks import preferences
from pbem.games.clocks.sweep import run_sweep
from pbem.games.seated import SeatedGame, lock_seated
from pbem.inbound.handler import handle_message
from pbem.letters import notify
from pbem.letters.unsubscribe import unsubscribe_url
from pbem.mail.delivery import deliver_due
from pbem.mail.verp import bounce_address
from pbem.games.settings import GameSettings
from pbem.models import Game, GameStatus, Invitation, OnTimeout, OutboxMessage, OutboxStatus, Seat, utcnow



def next_monday_morning() -> datetime:
    """10:00 UTC on the next Monday: the samples' clock starts there, after every row queued at
    the real time (some are), so that each is due when the test's clock delivers."""
    today = utcnow().replace(hour=10, minute=0, second=0, microsecond=0)
    return today + timedelta(days=7 - today.weekday())


# Hostile names: 40 characters with no break, diacritics stacked on Vietnamese, right-to-left
# Arabic, emoji sequences (the pirate flag, a family), and a long unbroken word in the game's name.
LONG_UNBROKEN = "Wolfeschlegelsteinhausenbergerdorffvoral"  # 40 characters, no break
PLAYERS = [
    f"{LONG_UNBROKEN} <wolf@example.com>",
    "Nguyễn Thị Phương Thảo Hoàng Quốc Việt <thao@example.com>",
    "عبد الرحمن بن محمد الخوارزمي <abd@example.com>",
    "Anne Bonny 🏴‍☠️👨‍👩‍👧‍👦 Calico Jack 🦜 <anne@example.com>",  # joined by U+200D
]
GAME_NAME = "Donaudampfschifffahrtskapitänsmützenband"  # 40 characters, no break
SHORT_GAME_NAME = "Tàu buôn ở Hội An 🏝️"
# Free text that reaches an email as it was typed (an admin's abort reason): emoji sequences
# and a long unbroken word.
ABORT_REASON = ("🏴‍☠️ 👨‍👩‍👧‍👦 Mutiny on board: "
                "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz")
ADMIN_ADDRESS = "boss@korsar.test"
# Words for a partner, long enough to be emailed at once (pbem/games/talk.py), unbroken in part.
TALK = ("Ahoy! 🏴‍☠️ Keep your Blue captain for ship 3, I will draw until the "
        "Rindfleischetikettierungsüberwachungsaufgabenübertragungsgesetz admiral shows up. "
        "Chúng ta sẽ thắng ván này nếu giữ bình tĩnh. سنفوز إذا صبرنا. " * 2)


@dataclass(frozen=True)
class Letter:
    """One delivered email: its kind, recipient and HTML part, as sent."""

    kind: str
    to_addr: str
    subject: str
    html: str


def _db(app: Flask) -> Engine:
    return app.extensions["korsar_db"]


def _cfg(app: Flask) -> Config:
    return app.config["KORSAR"]


def _seats(app: Flask, game_id: int) -> list[Seat]:
    with session_scope(_db(app)) as s:
        return service.seats_of(s, game_id)


def _game(app: Flask, game_id: int) -> Game:
    with session_scope(_db(app)) as s:
        game = s.get(Game, game_id)
        assert game is not None
        return game


def _locked(s: Session, seat: Seat) -> SeatedGame:
    """The seat as the seat pages' entry hands it down: its game locked with every seat."""
    return lock_seated(s, seat.game_id, seat.position)


class Table:
    """A game driven through the service at a clock the test moves."""

    def __init__(self, app: Flask, smtp_host: str, smtp_port: int, players: list[str], *,
                 name: str, teams: bool, seed: int, now: datetime | None = None) -> None:
        self.app, self.now = app, now or next_monday_morning()
        self.smtp_cfg = replace(_cfg(app), SMTP_HOST=smtp_host, SMTP_PORT=smtp_port)
        with session_scope(_db(app)) as s:
            game = service.create_game(s, _cfg(app), players, GameSettings(
                name=name, teams=teams, deadline_hours=24, reminders="50", on_timeout=OnTimeout.AUTOPLAY),
                seed=seed, now=self.now)
            assert game.id is not None
            self.game_id: int = game.id
        self.deliver()

    def at(self, delta: timedelta) -> None:
        self.now += delta

    def do(self, action: Callable[[Session, Config], Any]) -> Any:
        with session_scope(_db(self.app)) as s:
            return action(s, _cfg(self.app))

    def deliver(self) -> None:
        """What the worker does now: the clocks' sweep, then the due outbox sent."""
        run_sweep(_db(self.app), _cfg(self.app), self.now)
        report = deliver_due(_db(self.app), self.smtp_cfg, now=self.now, batch_size=500)
        assert report.failed == 0 and report.retried == 0, report

    def latest_turn_email(self) -> OutboxMessage:
        """The turn email the player to move got last."""
        mover = self.mover()
        assert mover is not None
        with session_scope(_db(self.app)) as s:
            row = s.exec(select(OutboxMessage).where(
                OutboxMessage.seat_id == mover.id, OutboxMessage.kind == "turn",
                OutboxMessage.status == OutboxStatus.SENT).order_by(col(OutboxMessage.id).desc())).first()
            assert row is not None, "no turn email to answer"
            return row

    def reply(self, to: OutboxMessage, text: str) -> None:
        """A player answers email `to` with `text` (to its Reply-To), and it arrives now: the
        inbound receivers' one handler reads it."""
        message = EmailMessage()
        message["From"], message["To"] = to.to_addr, json.loads(to.headers_json)["Reply-To"]
        message["Subject"], message["Message-ID"] = f"Re: {to.subject}", make_msgid(domain="example.com")
        message.set_content(text)
        handled = handle_message(_db(self.app), _cfg(self.app), message.as_bytes(), now=self.now)
        assert handled.answered, handled

    def seat(self, position: int) -> Seat:
        return _seats(self.app, self.game_id)[position]

    def mover(self) -> Seat | None:
        game = _game(self.app, self.game_id)
        return None if game.to_move is None else self.seat(game.to_move)

    def play(self, moves: int | None = None, *, attack: bool = True, announce: bool = True) -> None:
        """The seat to move plays (an attack when it has one, else the greedy bot's choice), one
        move a few minutes apart, each announced as the worker would (`announce`; else only the
        last: the turn emails in between are cancelled as stale); `None`: to the end."""
        played = 0
        while moves is None or played < moves:
            mover = self.mover()
            game = _game(self.app, self.game_id)
            if mover is None or game.status != GameStatus.RUNNING:
                break
            state = store.load_state(game)
            legal = engine.legal_moves(state)
            move = (next((m for m in legal if "target" in m), None) if attack else None) \
                or bots.bot_move(game, mover, state, cfg=_cfg(self.app))
            with session_scope(_db(self.app)) as s:
                service.apply_game_move(s, _cfg(self.app), self.game_id, mover.position, move,
                                        expected_version=game.version, now=self.now)
            played += 1
            self.at(timedelta(minutes=7))
            if announce:
                self.deliver()
        if not announce:
            self.deliver()


def play_every_kind(app: Flask, smtp_host: str, smtp_port: int) -> list[Letter]:
    """Every kind of email, each at least once, through what sends it in production."""
    _cfg(app).ADMIN_EMAILS = [ADMIN_ADDRESS]  # a paused-on-timeout email goes to the admins too
    table = Table(app, smtp_host, smtp_port, PLAYERS, name=GAME_NAME, teams=True, seed=5)  # welcome, turn
    table.play(8)  # turn emails; attacks on others' ships: "attacked"
    # The clock: half the turn gone is a reminder (past the night's quiet hours); the deadline
    # passed is a move played for the player ("timeout_autoplay").
    table.at(timedelta(hours=23))
    table.deliver()
    table.at(timedelta(hours=2))
    table.deliver()
    # A vacation (its confirmation, and news for the table), a digest of the day's events.
    away = table.seat(1)
    table.do(lambda s, cfg: preferences.set_digest(s, cfg, _locked(s, table.seat(2)), True, now=table.now))
    first_day = table.now.date() + timedelta(days=1)
    table.do(lambda s, cfg: preferences.take_vacation(s, cfg, _locked(s, away), first_day,
                                                      first_day + timedelta(days=2), now=table.now))
    table.deliver()
    # Admin actions: a seat to the bot and back, more time, a new address, a pause and a resume.
    table.do(lambda s, cfg: lifecycle.hand_seat_to_bot(s, cfg, table.game_id, 3, now=table.now,
                                                       actor="admin", reason="timeout"))
    table.do(lambda s, cfg: lifecycle.hand_seat_back(s, cfg, table.game_id, 3, now=table.now, actor="admin"))
    table.do(lambda s, cfg: lifecycle.extend_deadline(s, cfg, table.game_id, hours=12, now=table.now,
                                                      actor="admin"))
    other = next(p for p in range(4) if p != _game(app, table.game_id).to_move)
    table.do(lambda s, cfg: lifecycle.change_seat_email(s, cfg, table.game_id, other,
                                                        f"new.{table.seat(other).email}",
                                                        now=table.now, actor="admin"))
    table.do(lambda s, cfg: lifecycle.pause_game(s, cfg, table.game_id, now=table.now, actor="admin",
                                                 reason="timeout"))
    table.deliver()
    table.at(timedelta(hours=1))
    table.do(lambda s, cfg: lifecycle.resume_game(s, cfg, table.game_id, now=table.now, actor="admin"))
    table.deliver()
    # Replies by email to the turn email: a move with long words for the partner (the move's
    # answer, the partner's copy of the words), then the same reply again (refused: old turn).
    turn = table.latest_turn_email()
    table.reply(turn, f"say {TALK}\n1")
    table.deliver()
    table.reply(turn, "1")
    table.deliver()
    table.at(timedelta(days=1))  # the digest goes out at 08:00 the next morning
    table.deliver()
    # A player who still takes event emails chose on /me an email when the analysis is ready.
    reader = next(p for p in range(len(PLAYERS)) if table.seat(p).email and not table.seat(p).unsubscribed)
    table.do(lambda s, cfg: game_analysis.set_ready_email(s, table.seat(reader).email or "", True))
    table.play(announce=False)  # to the end: "game_over"
    game_analysis.run_analyses(_db(app), _cfg(app), "phone-samples")  # as the worker does: "analysis_ready"
    table.deliver()
    # A second game, stopped by an admin with a reason typed in by hand.
    short = Table(app, smtp_host, smtp_port, [PLAYERS[0], PLAYERS[2]], name=SHORT_GAME_NAME,
                  teams=False, seed=9, now=table.now)
    short.do(lambda s, cfg: lifecycle.abort_game(s, cfg, short.game_id, now=short.now, actor="admin",
                                                 reason=ABORT_REASON))
    short.deliver()
    set_up_games(short)  # the emails of games visitors set up themselves
    with session_scope(_db(app)) as s:
        rows = s.exec(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.SENT)
                      .order_by(col(OutboxMessage.id))).all()
        return [Letter(r.kind, r.to_addr, r.subject, r.html_body) for r in rows]


def _address(player: str) -> str:
    return setup.parse_player(player).email or ""


def _language(session: Session, player: str) -> str:
    """The language a visitor reads our pages in: their tag, else the one their address chose."""
    spec = setup.parse_player(player)
    return spec.language or address_prefs.remembered_languages(session, [spec.email]).get(spec.email or "", "en")


def _propose(table: Table, creator: str, players: list[str], *, teams: bool) -> str:
    """A visitor sets up a game at /new (in their tagged language, else the one their address
    chose last) and confirms it from the email: "confirm_game", then one "invitation" per
    friend. Returns the creator's token (their page)."""
    spec = setup.parse_player(creator)
    address = spec.email or ""

    def propose(s: Session, cfg: Config) -> tuple[int, str]:
        proposal = proposals.propose_game(
            s, cfg, your_name=spec.name, your_email=address, players="\n".join(players),
            settings=GameSettings(name=GAME_NAME, teams=teams), language=_language(s, creator), now=table.now)
        assert proposal.id is not None
        return proposal.id, proposal.nonce
    proposal_id, nonce = table.do(propose)
    table.deliver()  # the confirmation is written at delivery, while the proposal waits for it
    table.do(lambda s, cfg: proposals.confirm_proposal(
        s, cfg, links.sign_record(cfg, links.CONFIRM_SALT, proposal_id, nonce), now=table.now))
    return links.sign_record(_cfg(table.app), links.PROPOSAL_SALT, proposal_id, nonce)


def _invitation_token(table: Table, address: str) -> str:
    def token(s: Session, cfg: Config) -> str:
        row = s.exec(select(Invitation).where(Invitation.email == address, Invitation.status == "invited")
                     .order_by(col(Invitation.id).desc())).first()
        assert row is not None and row.id is not None
        return links.sign_record(cfg, links.INVITATION_SALT, row.id, row.nonce)
    return str(table.do(token))


def set_up_games(table: Table) -> None:
    """Games visitors set up themselves, through the domain that sends their emails: confirmed,
    one friend declines, the other lets the invitation expire; a second game cancelled by its
    creator; a "my games" link asked for; a third game whose invitation bounces."""
    _propose(table, PLAYERS[1], [PLAYERS[0], "bot:greedy", PLAYERS[3]], teams=True)
    table.deliver()
    decline = _invitation_token(table, _address(PLAYERS[0]))
    table.do(lambda s, cfg: invitations.decline_invitation(s, cfg, decline, now=table.now))
    table.deliver()
    table.at(timedelta(days=_cfg(table.app).INVITATION_DAYS, hours=1))
    table.do(lambda s, cfg: invitations.expire_invitations(s, cfg, now=table.now))  # as the worker does
    table.deliver()
    manage = _propose(table, PLAYERS[2], [PLAYERS[3]], teams=False)
    table.do(lambda s, cfg: proposals.cancel_proposal(s, cfg, manage, now=table.now))
    table.deliver()
    table.do(lambda s, cfg: my_games.request_my_games_link(
        s, cfg, _address(PLAYERS[0]), ip="203.0.113.7", language=_language(s, PLAYERS[0]), now=table.now))
    table.deliver()
    _propose(table, PLAYERS[2], [PLAYERS[1]], teams=False)
    table.deliver()
    _bounce(table, _address(PLAYERS[1]), "invitation")
    table.do(lambda s, cfg: bounced.announce_marks(s, cfg, now=table.now))  # as the worker does
    table.deliver()


def _bounce(table: Table, address: str, kind: str) -> None:
    """The latest `kind` email to `address` bounces: its mailbox's server sends a DSN (RFC 3464) to
    the email's signed bounce address, which the inbound receiver hands to the one handler."""
    def row_id(s: Session, cfg: Config) -> int:
        found = s.exec(select(OutboxMessage.id).where(OutboxMessage.to_addr == address, OutboxMessage.kind == kind)
                       .order_by(col(OutboxMessage.id).desc())).first()
        assert found is not None
        return found
    outbox_id = table.do(row_id)
    cfg = _cfg(table.app)
    dsn = (f"From: MAILER-DAEMON@mx.example.com\r\nTo: {bounce_address(cfg, outbox_id)}\r\n"
           f"Subject: Undelivered Mail Returned to Sender\r\nMessage-ID: {make_msgid()}\r\n"
           "MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=B\r\n\r\n"
           "--B\r\nContent-Type: text/plain\r\n\r\nThe mailbox does not exist.\r\n"
           "--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example.com\r\n\r\n"
           f"Final-Recipient: rfc822; {address}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
           "Diagnostic-Code: smtp; 550 5.1.1 No such user\r\n--B--\r\n")
    handle_message(_db(table.app), cfg, dsn.encode(), envelope_from="", envelope_rcpts=[bounce_address(cfg, outbox_id)])


@dataclass(frozen=True)
class Pages:
    """The player pages' URLs (paths) of a game under way and of a finished one."""

    running: Seat
    finished: Seat
    move_paths: list[str]
    stale_move_path: str


def path_of(cfg: Config, url: str) -> str:
    assert url.startswith(cfg.BASE_URL), url
    return url[len(cfg.BASE_URL):]


def seat_path(cfg: Config, seat: Seat) -> str:
    return path_of(cfg, notify.seat_page_url(cfg, seat))


def unsubscribe_path(cfg: Config, seat: Seat) -> str:
    return path_of(cfg, unsubscribe_url(cfg, seat))


def move_paths(app: Flask, seat: Seat) -> list[str]:
    """The seat's move links now (its confirmation pages)."""
    cfg = _cfg(app)
    with session_scope(_db(app)) as s:
        game = s.get(Game, seat.game_id)
        assert game is not None
        view = engine.player_view(store.load_state(game), seat.position)
        return [path_of(cfg, m["url"]) for m in notify.move_links(cfg, game, seat, view)]


def set_the_tables(app: Flask, smtp_host: str, smtp_port: int) -> Pages:
    """A team game some moves in (ships on the table, a move log) and a finished game."""
    running = Table(app, smtp_host, smtp_port, PLAYERS, name=GAME_NAME, teams=True, seed=5)
    running.play(5, announce=False)
    old_move = move_paths(app, running.mover())[0]  # type: ignore[arg-type]  # the game runs
    running.play(5, announce=False)
    finished = Table(app, smtp_host, smtp_port, [PLAYERS[1], PLAYERS[0], PLAYERS[2]], name=SHORT_GAME_NAME,
                     teams=False, seed=3)
    finished.play(attack=False, announce=False)
    game_analysis.run_analyses(_db(app), _cfg(app), "phone-samples")  # its analysis page, computed
    mover = running.mover()
    assert mover is not None
    return Pages(running=mover, finished=finished.seat(1), move_paths=move_paths(app, mover),
                 stale_move_path=old_move)
