"""Vacations: a player takes days away (limited per game); their clock stops meanwhile.

A vacation runs from 00:00 of its first day to 24:00 of its last day in the seat's zone (or from
now, if it starts today). A turn overlapping it is extended by the overlap, reminders wait for
its end, and the table is told. One vacation at a time per seat.

A player back early cancels it: a vacation not started yet is dropped, one under way ends now;
the days not taken are given back and the turn under way loses the extension they gave it.
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

from sqlmodel import Session

from pbem.clocks import emails
from pbem.clocks.notices import add_news
from pbem.clocks.schedule import extend_for_absence, is_clocked, local_midnight, replan_reminders, \
    seat_zone, to_local
from pbem.config import Config
from pbem.games.service import GameError, GameNotRunning, lock_game_with_seats
from pbem.models import Game, GameStatus, Seat


# How far ahead a vacation may be booked (its last day at most this many days after today): a
# game lasts weeks, and no date past it can overflow the calendar (9999-12-31 + 1 day).
BOOK_AHEAD_DAYS = 365


def last_bookable_day(today: date) -> date:
    return today + timedelta(days=BOOK_AHEAD_DAYS)


def days_left(cfg: Config, seat: Seat) -> float:
    return max(0.0, round(cfg.VACATION_DAYS_PER_GAME - seat.vacation_days_used, 2))


def _locked(session: Session, game_id: int, position: int) -> tuple[Game, list[Seat], Seat]:
    """The game (locked, still going), its seats and the seat at `position`."""
    game, seats = lock_game_with_seats(session, game_id)
    if game.status in (GameStatus.FINISHED, GameStatus.ABORTED):
        raise GameNotRunning("This game is over: no vacation needed.", 410)
    return game, seats, seats[position]


def take_vacation(session: Session, cfg: Config, game_id: int, position: int, first_day: date,
                  last_day: date, *, now: datetime) -> Seat:
    """Book days `first_day`..`last_day` (inclusive, the seat's local dates); GameError if refused."""
    game, seats, seat = _locked(session, game_id, position)
    zone = seat_zone(seat)
    today = to_local(now, zone).date()
    if last_day < first_day:
        raise GameError("The last day of your vacation must not be before its first day.", 422)
    if first_day < today:
        raise GameError("A vacation cannot start in the past.", 422)
    if last_day > last_bookable_day(today):
        raise GameError(f"The last day of your vacation must be within the next {BOOK_AHEAD_DAYS} days "
                        f"(by {last_bookable_day(today).isoformat()}).", 422)
    if seat.vacation_end is not None and seat.vacation_end > now:
        raise GameError("You already have a vacation booked in this game; "
                        "wait until it is over to book another.", 409)
    start = max(local_midnight(first_day, zone), now)
    end = local_midnight(last_day + timedelta(days=1), zone)
    length = (end - start).total_seconds() / 86400
    if length > days_left(cfg, seat) + 1e-9:
        raise GameError(f"That is {length:.1f} days, but you have only {days_left(cfg, seat):g} "
                        "vacation days left in this game.", 422)
    seat.vacation_start, seat.vacation_end = start, end
    seat.vacation_days_used = round(seat.vacation_days_used + length, 4)
    session.add(seat)
    if game.status == GameStatus.RUNNING and game.to_move == position and is_clocked(seat) \
            and game.deadline_at is not None:
        game.deadline_at = extend_for_absence(game.deadline_at, now, start, end)
        replan_reminders(game, seat, now)
        session.add(game)
    emails.queue_vacation(session, cfg, game, seat, seats, now=now, days_left=days_left(cfg, seat))
    return seat


def cancel_vacation(session: Session, cfg: Config, game_id: int, position: int, *,
                    now: datetime) -> Seat:
    """Drop the seat's vacation (or end it now if under way); GameError if there is none."""
    game, seats, seat = _locked(session, game_id, position)
    start, end = seat.vacation_start, seat.vacation_end
    if start is None or end is None or end <= now:
        raise GameError("You have no vacation booked in this game.", 409)
    back = max(start, now)  # what is no longer taken: [back, end)
    seat.vacation_days_used = round(max(0.0, seat.vacation_days_used - (end - back).total_seconds() / 86400), 4)
    if start >= now:
        seat.vacation_start = seat.vacation_end = None
    else:
        seat.vacation_end = now
    session.add(seat)
    turn_started = game.turn_started_at or now
    if (game.status == GameStatus.RUNNING and game.to_move == position and is_clocked(seat)
            and game.deadline_at is not None and start < game.deadline_at and end > turn_started):
        # The turn was extended by end - max(start, turn start): the part not taken comes off
        # again (never into the past: the player is here now).
        shorter = game.deadline_at - (end - max(back, turn_started))
        if shorter > now:
            game.deadline_at = shorter
        replan_reminders(game, seat, now)
        session.add(game)
    add_news(session, game, seats, f"{seat.name} is back: their vacation is cancelled.",
             now=now, skip=seat)
    return seat
