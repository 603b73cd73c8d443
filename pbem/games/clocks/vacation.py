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

from pbem.letters import emails
from pbem.games.notices import add_news, add_notice
from pbem.i18n import gettext as _
from pbem.schedule import away_days, extend_for_absence, is_clocked, local_midnight, replan_reminders, \
    seat_zone, to_local
from pbem.config import Config
from pbem.games.clocks.refusals import refuse
from pbem.games.service import lock_game_with_seats
from pbem.models import Game, GameStatus, Seat
from pbem import i18n
from pbem.words import plural
from pbem.games.finish import is_over
from pbem.present.grammar import possessive


# How far ahead a vacation may be booked (its last day at most this many days after today): a
# game lasts weeks, and no date past it can overflow the calendar (9999-12-31 + 1 day).
BOOK_AHEAD_DAYS = 365


def last_bookable_day(today: date) -> date:
    return today + timedelta(days=BOOK_AHEAD_DAYS)


def days_left(cfg: Config, seat: Seat) -> float:
    return max(0.0, round(cfg.VACATION_DAYS_PER_GAME - seat.vacation_days_used, 2))


def has_vacation(seat: Seat, now: datetime) -> bool:
    """A vacation booked and not over yet (under way or to come)."""
    return seat.vacation_end is not None and seat.vacation_end > now


def _check_going(game: Game) -> None:
    if is_over(game):
        raise refuse("game_over")


def _locked(session: Session, game_id: int, position: int) -> tuple[Game, list[Seat], Seat]:
    """The game (locked), its seats and the seat at `position`."""
    game, seats = lock_game_with_seats(session, game_id)
    return game, seats, seats[position]


def take_vacation(session: Session, cfg: Config, game_id: int, position: int, first_day: date,
                  last_day: date, *, now: datetime) -> Seat:
    """Book days `first_day`..`last_day` of the seat at `position`; Refusal if refused."""
    game, seats, seat = _locked(session, game_id, position)
    return book_vacation(session, cfg, game, seats, seat, first_day, last_day, now=now)


def cancel_vacation(session: Session, cfg: Config, game_id: int, position: int, *,
                    now: datetime) -> Seat:
    """Drop the vacation of the seat at `position`; Refusal if there is none."""
    game, seats, seat = _locked(session, game_id, position)
    return end_vacation(session, cfg, game, seats, seat, now=now)


def book_vacation(session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat,
                  first_day: date, last_day: date, *, now: datetime) -> Seat:
    """Book days `first_day`..`last_day` (inclusive, the seat's local dates) for `seat` of `game`
    (locked by the caller, with its `seats`); Refusal (`pbem.games.clocks.refusals`) if refused."""
    _check_going(game)
    position = seat.position
    zone = seat_zone(seat)
    today = to_local(now, zone).date()
    if last_day < first_day:
        raise refuse("last_before_first")
    if first_day < today:
        raise refuse("in_the_past")
    if last_day > last_bookable_day(today):
        raise refuse("too_far_ahead", days=BOOK_AHEAD_DAYS, by=last_bookable_day(today).isoformat())
    if has_vacation(seat, now):
        raise refuse("already_booked")
    start = max(local_midnight(first_day, zone), now)
    end = local_midnight(last_day + timedelta(days=1), zone)
    length = (end - start).total_seconds() / 86400
    if length > days_left(cfg, seat) + 1e-9:
        with i18n.using(seat.language):  # the counts in the seat's words, like the sentence
            raise refuse("not_enough_days", length=plural(round(length, 1), "day"),
                         left=plural(days_left(cfg, seat), "vacation day"))
    seat.vacation_start, seat.vacation_end = start, end
    seat.vacation_days_used = round(seat.vacation_days_used + length, 4)
    session.add(seat)
    if game.status == GameStatus.RUNNING and game.to_move == position and is_clocked(seat) \
            and game.deadline_at is not None:
        game.deadline_at = extend_for_absence(game.deadline_at, now, start, end)
        replan_reminders(game, seat, now)
        session.add(game)
    emails.queue_vacation(session, cfg, game, seat, now=now, days_left=days_left(cfg, seat))
    days = away_days(seat)  # the days as the player typed them, the last one counted in
    for reader in seats:  # written in each reader's language
        if reader.id != seat.id:
            def news(reader: Seat = reader) -> str:  # in the reader's language too
                first, last = i18n.format_day_range(*days)
                return _("%(whose)s time away: from %(first)s to %(last)s inclusive; their turns are "
                         "extended by the time away.", whose=possessive(seat.name), first=first, last=last)
            add_notice(session, game, reader, "news", news, now=now)
    return seat


def end_vacation(session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat, *,
                 now: datetime) -> Seat:
    """Drop the vacation of `seat` (locked with its game, as for `book_vacation`), or end it now
    if under way; Refusal if there is none."""
    _check_going(game)
    position = seat.position
    start, end = seat.vacation_start, seat.vacation_end
    if start is None or end is None or not has_vacation(seat, now):
        raise refuse("no_vacation")
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
    add_news(session, game, seats, lambda: _("%(name)s is back: their vacation is cancelled.", name=seat.name),
             now=now, skip=seat)
    return seat
