"""Admin and clock actions on a running game: pause, resume, hand a seat to the bot and back,
extend a deadline, send a reminder now, abort, change a player's email address.

Each function runs in the caller's transaction: it locks the game row, writes the change and
queues the emails it causes, so the change and its emails commit (or roll back) together.
`actor` names who did it ("admin@example.com", "clock", "cli") for the log line; the admin
dashboard writes its own audit row in the same transaction.
"""
from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select


from pbem.letters import deferred
from pbem.games.notices import add_news
from pbem.i18n import gettext as _
from pbem.letters import emails
from pbem.schedule import is_clocked, replan_reminders
from pbem.config import Config
from pbem.games.address_prefs import set_seat_language
from pbem.games.errors import GameError, GameNotRunning, NotFound
from pbem.games.finish import finish_game, is_over
from pbem.games.service import check_running, is_bot_seat, lock_game_with_seats, play_forced_turn, start_turn
from pbem.games.setup import check_email
from pbem.games.seated import SeatedGame
from pbem.mail.suppression import is_suppressed
from pbem.models import Game, GameStatus, Seat, SeatKind

log = logging.getLogger("pbem.lifecycle")


def _log(action: str, game: Game, actor: str, **fields: object) -> None:
    log.info("%s game=%s actor=%s %s", action, game.id, actor,
             " ".join(f"{k}={v}" for k, v in fields.items()))


def _seat(seats: list[Seat], position: int) -> Seat:
    for seat in seats:
        if seat.position == position:
            return seat
    raise NotFound("no_seat_numbered", {"position": position})


def _seat_to_move(game: Game, seats: list[Seat]) -> Seat | None:
    if game.to_move is None or game.status != GameStatus.RUNNING:
        return None
    return _seat(seats, game.to_move)


def pause_game(session: Session, cfg: Config, game_id: int, *, now: datetime, actor: str,
               reason: str = "") -> Game:
    """Pause a running game: the clock stops (the time left is kept) and the players are told."""
    game, seats = lock_game_with_seats(session, game_id)
    check_running(game)
    game.status = GameStatus.PAUSED
    game.paused_at = now
    game.next_reminder_at = None
    game.bot_due_at = None
    game.updated_at = now
    session.add(game)
    emails.queue_paused(session, cfg, game, seats, reason=reason, now=now)
    _log("pause", game, actor, reason=reason or "-")
    return game


def resume_game(session: Session, cfg: Config, game_id: int, *, now: datetime, actor: str) -> Game:
    """Resume a paused game: every player is told (the pause email promised it); the player to
    move gets the time they had left (a fresh turn if the game paused on their deadline) and a
    new turn email, or their forced turn is played for them."""
    game, seats = lock_game_with_seats(session, game_id)
    if game.status != GameStatus.PAUSED:
        raise GameNotRunning("resume_not_paused")
    game.status = GameStatus.RUNNING
    paused_at, game.paused_at = game.paused_at or now, None
    game.updated_at = now
    seat = _seat_to_move(game, seats)
    if game.deadline_at is not None and game.deadline_at > paused_at and is_clocked(seat):
        game.deadline_at = now + (game.deadline_at - paused_at)
        replan_reminders(game, seat, now)
    else:
        start_turn(game, seats, cfg, now)
    session.add(game)
    session.flush()  # the row as stored: a forced turn is played by its version
    played = play_forced_turn(session, cfg, game, seats, now)  # its next turn email comes with it
    emails.queue_resumed(session, cfg, game, seats, now=now)  # who is to move after that
    if seat is not None and not is_bot_seat(seat) and not played:
        emails.queue_turn(session, cfg, game, seat)
    _log("resume", game, actor)
    return game


def hand_seat_to_bot(session: Session, cfg: Config, game_id: int, position: int, *, now: datetime,
                     actor: str, bot: str = "greedy", reason: str = "") -> Seat:
    """The bot plays `position` from now on (the seat keeps its email); player and table are told."""
    game, seats = lock_game_with_seats(session, game_id)
    if is_over(game):
        raise GameNotRunning("game_is_over")
    seat = _seat(seats, position)
    if seat.kind == SeatKind.BOT or seat.handed_to_bot:
        raise GameError("seat_already_bot", {"name": seat.name})
    seat.handed_to_bot = True
    seat.bot = bot
    session.add(seat)
    if game.status == GameStatus.RUNNING and game.to_move == position:
        start_turn(game, seats, cfg, now)
        session.add(game)
    emails.queue_seat_to_bot(session, cfg, game, seat, reason=reason, now=now)
    def news() -> str:  # in each reader's language
        if reason == "timeout":
            return _("The bot now plays %(name)s's seat after missing a deadline.", name=seat.name)
        if reason == "left":
            return _("%(name)s left the game: the bot plays their seat.", name=seat.name)
        return _("The bot now plays %(name)s's seat.", name=seat.name)
    add_news(session, game, seats, news, now=now, skip=seat)
    _log("seat_to_bot", game, actor, seat=position, reason=reason or "-")
    return seat


def hand_seat_back(session: Session, cfg: Config, game_id: int, position: int, *, now: datetime,
                   actor: str) -> Seat:
    """Give a seat the bot was playing back to its player (who gets fresh links)."""
    game, seats = lock_game_with_seats(session, game_id)
    if is_over(game):
        raise GameNotRunning("game_is_over")
    seat = _seat(seats, position)
    if not seat.handed_to_bot:
        raise GameError("seat_not_bot", {"name": seat.name})
    if seat.left_game:
        raise GameError("seat_left", {"name": seat.name})
    seat.handed_to_bot = False
    seat.bot = None
    session.add(seat)
    their_turn = game.status == GameStatus.RUNNING and game.to_move == position
    if their_turn:
        start_turn(game, seats, cfg, now)
        session.add(game)
        session.flush()  # the row as stored: a forced turn is played by its version
        if play_forced_turn(session, cfg, game, seats, now):
            their_turn = False  # played for them at once: the notice tells them their seat is back
        else:
            emails.queue_turn(session, cfg, game, seat)
    emails.queue_seat_back(session, cfg, game, seat, now=now, their_turn=their_turn)
    add_news(session, game, seats, lambda: _("%(name)s plays their own seat again.", name=seat.name),
             now=now, skip=seat)
    _log("seat_back", game, actor, seat=position)
    return seat


def extend_deadline(session: Session, cfg: Config, game_id: int, *, hours: float, now: datetime,
                    actor: str) -> Game:
    """Give the player to move `hours` more (counted from now if the deadline already passed)."""
    if not 0 < hours <= 24 * 60:
        raise GameError("bad_extension")
    game, seats = lock_game_with_seats(session, game_id)
    check_running(game)
    seat = _seat_to_move(game, seats)
    if game.deadline_at is None or not is_clocked(seat):
        raise GameError("nobody_waiting")
    game.deadline_at = max(game.deadline_at, now) + timedelta(hours=hours)
    replan_reminders(game, seat, now)
    game.updated_at = now
    session.add(game)
    assert seat is not None
    emails.queue_deadline_moved(session, cfg, game, seat, now=now)
    _log("extend_deadline", game, actor, hours=hours)
    return game


def send_reminder_now(session: Session, cfg: Config, game_id: int, *, now: datetime,
                      actor: str) -> Seat:
    """Nudge: a reminder (with fresh links) to the player to move, now; the ladder is unchanged."""
    game, seats = lock_game_with_seats(session, game_id)
    check_running(game)
    seat = _seat_to_move(game, seats)
    refused = deferred.no_reminder_reason(seat, now)
    if refused is not None:
        raise GameError(refused.code, refused.params)
    assert seat is not None
    deferred.queue_nudge(session, cfg, game, seat, now)
    _log("nudge", game, actor, seat=seat.position)
    return seat


def abort_game(session: Session, cfg: Config, game_id: int, *, now: datetime, actor: str,
               reason: str = "") -> Game:
    """Stop a game for good; every player is told and their links stop working."""
    game, seats = lock_game_with_seats(session, game_id)
    if is_over(game):
        raise GameNotRunning("game_already_over")
    finish_game(session, cfg, game, seats, None, "aborted", now=now, reason=reason)
    _log("abort", game, actor, reason=reason or "-")
    return game


def change_seat_email(session: Session, cfg: Config, game_id: int, position: int, new_email: str,
                      *, now: datetime, actor: str) -> Seat:
    """Move a seat to a new address: every old link stops working, new ones go to the new address."""
    address = check_email(new_email)
    if is_suppressed(session, address):
        raise GameError("address_suppressed", {"address": address})
    game, seats = lock_game_with_seats(session, game_id)
    if is_over(game):
        raise GameNotRunning("game_is_over")
    seat = _seat(seats, position)
    if seat.kind != SeatKind.HUMAN:
        raise GameError("bot_has_no_address")
    seat.email = address
    seat.link_nonce = secrets.token_hex(8)
    session.add(seat)
    session.flush()
    if game.status == GameStatus.RUNNING and game.to_move == position and not is_bot_seat(seat):
        emails.queue_turn(session, cfg, game, seat)
    else:
        emails.queue_email_changed(session, cfg, game, seat, now=now)
    _log("change_email", game, actor, seat=position)
    return seat


def leave_game(session: Session, cfg: Config, at: SeatedGame, *, now: datetime) -> Seat:
    """The player leaves (from their seat page, its game locked by the caller): a bot plays the
    seat for the rest of the game, the table is told, and nothing more about this game goes to
    them."""
    game, seat = at.game, at.seat
    if seat.left_game:
        raise GameError("left_already")
    if is_over(game):
        raise GameNotRunning("nothing_to_leave")
    return _leave(session, cfg, game, seat, now=now, actor="player")


def _leave(session: Session, cfg: Config, game: Game, seat: Seat, *, now: datetime, actor: str) -> Seat:
    seat.left_game = True  # before the handover: its "a bot plays for you" email is not sent
    session.add(seat)
    if not seat.handed_to_bot and seat.kind == SeatKind.HUMAN:
        assert game.id is not None
        hand_seat_to_bot(session, cfg, game.id, seat.position, now=now, actor=actor, reason="left")
    _log("leave", game, actor, seat=seat.position)
    return seat


def leave_all_games(session: Session, cfg: Config, email: str, *, now: datetime) -> int:
    """Every seat of `email` in a game under way is left (the address asked never to be emailed)."""
    email = email.strip().lower()
    rows = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id)).where(
        func.lower(col(Seat.email)) == email, col(Seat.left_game).is_(False),
        col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)))).all()
    for seat, game in rows:
        _leave(session, cfg, game, seat, now=now, actor="never-email")
    return len(rows)


def change_seat_language(session: Session, game_id: int, position: int, code: str, *,
                         now: datetime | None = None) -> Seat:
    """The admin's change of a seat's language (`set_seat_language`), the game row locked."""
    _game, seats = lock_game_with_seats(session, game_id)
    seat = next((s for s in seats if s.position == position), None)
    if seat is None:
        raise NotFound("game_has_no_seat", {"game": game_id, "seat": position + 1})
    set_seat_language(session, seat, code, now)
    return seat


__all__ = [
    "pause_game", "resume_game", "hand_seat_to_bot", "hand_seat_back", "extend_deadline",
    "send_reminder_now", "abort_game", "change_seat_email", "change_seat_language", "leave_game",
    "leave_all_games",
]
