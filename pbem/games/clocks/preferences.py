"""A player's own settings, reached by their seat link: vacations, the daily digest, reminders
on/off, the time zone, forced moves played for them, and the unsubscribe link of their emails.

Each function takes the seat as its caller locked it with its game and seats (`SeatedGame`:
the page's entry, pbem/web/seat.py, verified the token and locked once), decides, and changes
the rows in the caller's transaction; the unsubscribe functions read their own token (an
email's footer, no seat page). A refusal is `pbem.games.errors.Refusal` (its codes:
`pbem.games.clocks.refusals`), worded for the player.
"""
from __future__ import annotations

from datetime import date, datetime
from zoneinfo import available_timezones

from sqlmodel import Session, select

from pbem import links
from pbem.games.clocks.refusals import refuse
from pbem.schedule import replan_reminders
from pbem.letters.unsubscribe import read_unsubscribe
from pbem.games.clocks.vacation import book_vacation, end_vacation
from pbem.config import Config
from pbem.games.seated import SeatedGame
from pbem.games.service import play_forced_turn
from pbem.logging import log_context
from pbem.models import Game, GameStatus, Seat

MAX_ECHOED_ZONE = 60  # a refused time zone is echoed this far (a page shows no 10 kB field)


def take_vacation(session: Session, cfg: Config, at: SeatedGame, first_day: date,
                  last_day: date, *, now: datetime) -> Seat:
    """Book the seat days `first_day`..`last_day` (`pbem.games.clocks.vacation.book_vacation`)."""
    return book_vacation(session, cfg, at.game, at.seats, at.seat, first_day, last_day, now=now)


def cancel_vacation(session: Session, cfg: Config, at: SeatedGame, *, now: datetime) -> Seat:
    """Drop (or end now) the seat's vacation (`pbem.games.clocks.vacation.end_vacation`)."""
    return end_vacation(session, cfg, at.game, at.seats, at.seat, now=now)


def set_digest(session: Session, cfg: Config, at: SeatedGame, on: bool, *, now: datetime) -> Seat:
    """Event emails once a day (on) or as they happen (off)."""
    return _change_seat(session, at, now, digest=on)


def set_reminders(session: Session, cfg: Config, at: SeatedGame, on: bool, *, now: datetime) -> Seat:
    """Reminders and event emails on or off (off is an unsubscribe; turn emails always go)."""
    return _change_seat(session, at, now, unsubscribed=not on)


def set_play_forced(session: Session, cfg: Config, at: SeatedGame, on: bool, *,
                    now: datetime) -> Seat:
    """"Play my forced moves for me" on or off. Switched on during a forced turn of the seat,
    that turn is played at once (`pbem.games.service.play_forced_turn`)."""
    game, seats, seat = at.game, at.seats, at.seat
    seat.play_forced = on
    session.add(seat)
    session.flush()  # the seat as stored: the forced move's UPDATE checks the game's version
    if on and game.to_move == seat.position:
        play_forced_turn(session, cfg, game, seats, now)
    return seat


def check_time_zone(name: str) -> str:
    """An IANA zone name (Europe/Paris), or Refusal."""
    name = name.strip()
    if name not in available_timezones():
        shown = name if len(name) <= MAX_ECHOED_ZONE else name[:MAX_ECHOED_ZONE] + "…"
        raise refuse("bad_time_zone", shown=shown or "An empty name")
    return name


def set_time_zone(session: Session, cfg: Config, at: SeatedGame, name: str, *,
                  now: datetime) -> Seat:
    """The seat's zone: quiet hours, digest time and dates in emails follow it."""
    return _change_seat(session, at, now, timezone=check_time_zone(name))


def _change_seat(session: Session, at: SeatedGame, now: datetime, **values: object) -> Seat:
    """Change the seat's settings; the reminders of a turn under way follow at once."""
    game, seat = at.game, at.seat
    for field, value in values.items():
        setattr(seat, field, value)
    session.add(seat)
    if game.status == GameStatus.RUNNING and game.to_move == seat.position and game.deadline_at:
        replan_reminders(game, seat, now)
        session.add(game)
    return seat


def unsubscribe_target(session: Session, cfg: Config, token: str, *, lock: bool = False) -> tuple[Game, Seat]:
    """The game and seat of an unsubscribe token: Refusal if damaged, forged or of an older
    address of the seat; LinkError (404) if the game or seat is gone. `lock`: the game row is
    locked, so the check holds for the change that follows."""
    found = read_unsubscribe(cfg, token)
    if found is None:
        raise refuse("damaged_unsubscribe_link")
    game_id, seat_id, nonce = found
    log_context(game_id=game_id)
    query = select(Game).where(Game.id == game_id)
    game = session.exec(query.with_for_update() if lock else query).first()
    seat = session.get(Seat, seat_id)
    if game is None or seat is None or seat.game_id != game.id:
        raise links.LinkError("game_gone")
    if seat.link_nonce != nonce:
        raise refuse("old_unsubscribe_link")
    return game, seat


def unsubscribe(session: Session, cfg: Config, token: str, *, now: datetime) -> tuple[Game, Seat]:
    """Stop the seat's reminders and event emails (the RFC 8058 one-click too): its reminder
    under way is dropped at once."""
    game, seat = unsubscribe_target(session, cfg, token, lock=True)
    seat.unsubscribed = True
    session.add(seat)
    if game.to_move == seat.position:
        game.next_reminder_at = None
        session.add(game)
    return game, seat
