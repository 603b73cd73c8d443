"""The "my games" page of an address (/me): its games and proposals, its preferences for all of
them, and the link that opens it (asked for by anyone, written by the worker only to an address
that plays with us and may be mailed)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

import engine
from pbem import links
from pbem.config import Config
from pbem.games import limits
from pbem.games.clocks import preferences
from pbem.games.clocks.preferences import check_time_zone
from pbem.games.errors import GameError
from pbem.games.invitations import proposal_view
from pbem.games.setup import check_email
from pbem.games.unasked_mail import may_mail_unasked
import pbem.i18n as i18n
from pbem.letters import invitations as letters
from pbem.mail.outbox import Email
from pbem.mail.writers import Cancel
from pbem.present.grammar import together
from pbem.present.names import reader_names
from pbem.models import (AddressPreference, Game, GameStatus, Invitation, OutboxMessage, Proposal, ProposalStatus, Seat,
                         SeatKind, utcnow)
from pbem.store import load_state
from pbem.games.seated import SeatedGame
from pbem.games.service import lock_game_with_seats
from pbem.games.finish import is_over


@dataclass(frozen=True)
class GameEntry:
    """One game of an address on its "my games" page."""

    game_id: int
    name: str
    status: str
    seat_name: str
    seat_url: str
    to_move: str | None
    your_turn: bool
    deadline_at: datetime | None
    winners: list[str] = field(default_factory=list)
    you_won: bool = False
    left: bool = False
    # the winners as one list ("Anne and Bob", "Élodie et Paul") and how many people it names,
    # with whom "Winner"/"Winners" agrees
    winners_text: str = ""
    winning_people: int = 0


@dataclass(frozen=True)
class ProposalEntry:
    """A game of an address still waiting for its invitations."""

    proposal_id: int
    name: str
    url: str
    creator: bool
    players: list[tuple[str, str]]


@dataclass(frozen=True)
class AddressPrefs:
    timezone: str | None
    reminders: bool
    digest: bool
    play_forced: bool


@dataclass(frozen=True)
class MyGames:
    email: str
    running: list[GameEntry]
    waiting: list[ProposalEntry]
    finished: list[GameEntry]
    prefs: AddressPrefs


PLAYS_NOTHING = "the address plays no game here"


def _known(session: Session, email: str) -> bool:
    """Does `email` play with us: a seat, a game they confirmed, or an invitation they got?"""
    return (session.exec(select(Seat.id).where(func.lower(col(Seat.email)) == email).limit(1)).first() is not None
            or session.exec(select(Proposal.id).where(Proposal.creator_email == email,
                                                      col(Proposal.confirmed_at).is_not(None))
                            .limit(1)).first() is not None
            or session.exec(select(Invitation.id).where(Invitation.email == email,
                                                        col(Invitation.invited_at).is_not(None))
                            .limit(1)).first() is not None)


def request_my_games_link(session: Session, cfg: Config, email: str, *, ip: str, language: str = "en",
                          now: datetime | None = None) -> None:
    """Ask for a link to the address's games: queued, whoever the address is, for the worker to
    write if it plays with us and may be mailed (`write_my_games_link`); the request does the
    same work for any address, so neither its answer nor its time says who plays here."""
    now = now or utcnow()
    try:
        email = check_email(email).lower()
    except GameError:
        raise GameError("write_an_address") from None
    limits.take(session, cfg, limits.LINKS_PER_ADDRESS, email, now=now)
    if ip:
        limits.take(session, cfg, limits.LINKS_PER_IP, ip, now=now)
    letters.queue_my_games_link(session, cfg, email, language)


def write_my_games_link(session: Session, cfg: Config, row: OutboxMessage, params: dict[str, Any],
                        now: datetime) -> Email | Cancel:
    """The writer of a queued "my games" link: only to an address that plays with us and may
    still be mailed today, in its remembered language (else the one it was asked in)."""
    email = row.to_addr
    if not _known(session, email):
        return Cancel(PLAYS_NOTHING)
    refusal = may_mail_unasked(session, cfg, email, now=now)
    if refusal is not None:
        return Cancel(refusal)
    remembered = session.get(AddressPreference, email)
    language = remembered.language if remembered else str(params.get("language", "en"))
    return letters.my_games_link_email(cfg, email, language)


def read_my_games_token(cfg: Config, token: str) -> str:
    return links.read_address(cfg, links.MY_GAMES_SALT, token, links.MY_GAMES_MAX_AGE)


def _entry(cfg: Config, game: Game, seat: Seat, seats: list[Seat]) -> GameEntry:
    to_move = next((s for s in seats if s.position == game.to_move), None)
    names = reader_names(seats)  # bots named in the reader's words
    winners: list[str] = []
    you_won, winning_people = False, 0
    if game.status == GameStatus.FINISHED:
        state = load_state(game)
        won = engine.winners(state)
        winners = ([together([names[s] for s in range(len(names)) if s // 2 == team]) for team in won]
                   if game.teams else [names[s] for s in won])  # partners (engine.team_of) joined
        side = engine.team_of(state, seat.position) if game.teams else seat.position
        you_won = side in engine.winners(state)
        winning_people = len(won) * (2 if game.teams else 1)
    return GameEntry(
        game_id=game.id or 0, name=game.name, status=game.status, seat_name=seat.name,
        seat_url=links.seat_url(cfg, links.sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce)),
        to_move=names[to_move.position] if to_move is not None and game.status == GameStatus.RUNNING else None,
        your_turn=game.status == GameStatus.RUNNING and to_move is not None and to_move.position == seat.position,
        deadline_at=game.deadline_at if game.status == GameStatus.RUNNING else None,
        winners=winners, you_won=you_won, left=seat.left_game, winners_text=together(winners),
        winning_people=winning_people)


def _prefs(session: Session, email: str) -> AddressPrefs:
    saved = session.get(AddressPreference, email)
    return AddressPrefs(
        timezone=saved.timezone if saved else None,
        reminders=saved.reminders if saved and saved.reminders is not None else True,
        digest=bool(saved and saved.digest),
        play_forced=saved.play_forced if saved and saved.play_forced is not None else True)


def games_of(session: Session, cfg: Config, email: str) -> MyGames:
    """Every game of the address (newest first) and its preferences."""
    email = email.lower()
    seats = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
                         .where(func.lower(col(Seat.email)) == email, col(Seat.kind) == SeatKind.HUMAN)
                         .order_by(col(Game.created_at).desc()).limit(200)).all()
    running: list[GameEntry] = []
    finished: list[GameEntry] = []
    tables: dict[int, list[Seat]] = {}  # every seat of those games, in one query
    for other in session.exec(select(Seat).where(col(Seat.game_id).in_([game.id for _seat, game in seats]))
                              .order_by(col(Seat.game_id), col(Seat.position))).all():
        tables.setdefault(other.game_id, []).append(other)
    for seat, game in seats:
        entry = _entry(cfg, game, seat, tables.get(game.id or 0, []))
        (finished if is_over(game) else running).append(entry)
    waiting = []
    rows = session.exec(select(Invitation, Proposal).join(Proposal, col(Proposal.id) == col(Invitation.proposal_id))
                        .where(col(Invitation.email) == email, col(Proposal.status).in_(ProposalStatus.OPEN))
                        .order_by(col(Proposal.created_at).desc()).limit(100)).all()
    for row, proposal in rows:
        creator = proposal.creator_email == email and row.position == proposal.creator_position
        if not creator and row.invited_at is None:
            continue  # not invited yet: not theirs to see
        assert proposal.id is not None and row.id is not None
        view = proposal_view(session, cfg, proposal)
        waiting.append(ProposalEntry(
            proposal_id=proposal.id, name=letters.proposal_name(proposal, view.invitations),
            url=view.manage_url if creator else links.invitation_url(cfg, row.id, row.nonce),
            creator=creator, players=list(zip(reader_names(view.invitations), [i.status for i in view.invitations]))))
    return MyGames(email=email, running=running, waiting=waiting, finished=finished, prefs=_prefs(session, email))


def my_games(session: Session, cfg: Config, token: str) -> MyGames:
    return games_of(session, cfg, read_my_games_token(cfg, token))


def _language_of(session: Session, email: str) -> str:
    """The language `email` reads us in: its latest seat's, else the current page's."""
    latest = session.exec(select(Seat.language).where(func.lower(col(Seat.email)) == email)
                          .order_by(col(Seat.id).desc()).limit(1)).first()
    return latest if latest in i18n.LANGUAGES else i18n.spoken(i18n.current()) or i18n.DEFAULT


def set_address_preferences(session: Session, cfg: Config, token: str, *, timezone: str, reminders: bool,
                            digest: bool, play_forced: bool, now: datetime | None = None) -> MyGames:
    """Set once for all the address's games: every seat in a game under way takes them now, and
    the next games start with them."""
    now = now or utcnow()
    email = read_my_games_token(cfg, token)
    try:
        zone = check_time_zone(timezone)
    except GameError as exc:
        raise GameError(exc.code, exc.params, 422) from None
    # Saving these never sets the language: a first row takes the one the address plays in
    # (its latest seat's), else the one the page is read in.
    saved = session.get(AddressPreference, email) or AddressPreference(email=email,
                                                                       language=_language_of(session, email))
    saved.timezone, saved.reminders, saved.digest, saved.play_forced = zone, reminders, digest, play_forced
    saved.updated_at = now
    session.add(saved)
    game_ids = session.exec(select(Seat.game_id).join(Game, col(Game.id) == col(Seat.game_id))
                            .where(func.lower(col(Seat.email)) == email,
                                   col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)))
                            .distinct()).all()
    for game_id in sorted(game_ids):  # each game locked once, in one order (two requests never cross)
        game, seats = lock_game_with_seats(session, game_id)
        for seat in seats:
            if (seat.email or "").lower() == email:  # as its own preference page would set them
                at = SeatedGame(game, seats, seat)
                preferences.set_time_zone(session, cfg, at, zone, now=now)
                preferences.set_reminders(session, cfg, at, reminders, now=now)
                preferences.set_digest(session, cfg, at, digest, now=now)
                preferences.set_play_forced(session, cfg, at, play_forced, now=now)
    session.flush()
    return games_of(session, cfg, email)
