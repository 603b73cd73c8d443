"""When a turn's deadline and reminders fall (pure computations on naive UTC datetimes).

The rules, all computed in UTC so a daylight-saving change can neither skip nor repeat anything:
- a turn lasts `game.deadline_hours` (fractions allowed); the clock stops while the seat is on
  vacation, so a vacation overlapping the turn moves the deadline by the time away;
- ladder step p (percent) is due at `deadline - (100 - p)% of deadline_hours`, so it always
  leaves the same time before the deadline, even after an extension;
- a reminder never goes out during the player's quiet hours (22:00-08:00 in the seat's IANA
  zone) nor during their vacation: it waits for 08:00 local / the end of the vacation. If that
  is at or after the deadline the step is skipped (a reminder after the deadline is useless:
  the timeout email tells the player what happened instead).
"""
from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pbem.i18n as i18n
from pbem.models import Game, Seat, SeatKind
from pbem.i18n import gettext
from pbem.words import plural

QUIET_START = time(22, 0)
QUIET_END = time(8, 0)


def parse_ladder(text: str) -> list[float]:
    """'50,85' -> [50.0, 85.0] (percent of the deadline, ascending; steps outside 0-100 dropped)."""
    steps = sorted(float(p) for p in (text or "").split(",") if p.strip())
    return [p for p in steps if 0 < p < 100]


def seat_zone(seat: Seat | None) -> ZoneInfo:
    """The seat's IANA time zone; UTC when unset or unknown."""
    try:
        return ZoneInfo((seat.timezone if seat else "") or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def to_local(when: datetime, zone: ZoneInfo) -> datetime:
    """Naive UTC -> aware local time in `zone`."""
    return when.replace(tzinfo=timezone.utc).astimezone(zone)


def to_utc(local: datetime) -> datetime:
    """Aware datetime -> naive UTC."""
    return local.astimezone(timezone.utc).replace(tzinfo=None)


def local_midnight(day: date, zone: ZoneInfo) -> datetime:
    """00:00 of `day` in `zone`, as naive UTC."""
    return to_utc(datetime.combine(day, time(0, 0), tzinfo=zone))


def is_quiet(when: datetime, zone: ZoneInfo) -> bool:
    t = to_local(when, zone).time()
    return t >= QUIET_START or t < QUIET_END


def after_quiet_hours(when: datetime, zone: ZoneInfo) -> datetime:
    """`when` if it is outside 22:00-08:00 local, else the next 08:00 local (as naive UTC)."""
    local = to_local(when, zone)
    if not is_quiet(when, zone):
        return when
    day = local.date() if local.time() < QUIET_END else local.date() + timedelta(days=1)
    return to_utc(datetime.combine(day, QUIET_END, tzinfo=zone))


def on_vacation(seat: Seat | None, when: datetime) -> bool:
    return bool(
        seat is not None and seat.vacation_start and seat.vacation_end
        and seat.vacation_start <= when < seat.vacation_end
    )


def extend_for_absence(deadline: datetime, clock_from: datetime,
                       away_from: datetime | None, away_until: datetime | None) -> datetime:
    """The deadline of a clock running since `clock_from` that stops during [away_from, away_until)."""
    if away_from is None or away_until is None or away_until <= clock_from or away_from >= deadline:
        return deadline
    return deadline + (away_until - max(away_from, clock_from))


def is_clocked(seat: Seat | None) -> bool:
    """Only a human seat that is not played by the bot waits under a deadline."""
    return seat is not None and seat.kind == SeatKind.HUMAN and not seat.handed_to_bot


def ladder_time(game: Game, percent: float, deadline: datetime | None = None) -> datetime:
    """When step `percent` of the ladder falls, for `deadline` (default: the game's)."""
    deadline = deadline or game.deadline_at
    assert deadline is not None
    return deadline - timedelta(hours=game.deadline_hours * (100 - percent) / 100)


def deliverable_time(seat: Seat | None, when: datetime) -> datetime:
    """The first moment at or after `when` a reminder may reach the player."""
    zone = seat_zone(seat)
    for _ in range(3):  # vacation end may fall in quiet hours, and the reverse
        if on_vacation(seat, when):
            assert seat is not None and seat.vacation_end is not None
            when = seat.vacation_end
        moved = after_quiet_hours(when, zone)
        if moved == when and not on_vacation(seat, when):
            break
        when = moved
    return when


def next_reminder(game: Game, seat: Seat | None, from_step: int,
                  not_before: datetime | None = None,
                  deadline: datetime | None = None) -> tuple[int, datetime | None]:
    """The first ladder step >= `from_step` that can be sent before the deadline.

    Steps due at or before `not_before` are passed over (catch-up after downtime sends one
    reminder, not the whole ladder). `deadline`: the turn's (default: the game's).
    Returns (step index, when) or (len(ladder), None).
    """
    ladder = parse_ladder(game.reminders)
    deadline = deadline or game.deadline_at
    if deadline is None or not is_clocked(seat) or (seat is not None and seat.unsubscribed):
        return len(ladder), None
    for index in range(from_step, len(ladder)):
        raw = ladder_time(game, ladder[index], deadline)
        if not_before is not None and raw <= not_before:
            continue
        when = deliverable_time(seat, raw)
        if when < deadline:
            return index, when
    return len(ladder), None


def turn_clock(game: Game, seat: Seat | None, now: datetime) -> dict[str, Any]:
    """The clock columns of the turn that begins at `now` for `seat` (None: nobody to wait for).

    Bot seats (and seats handed to the bot) get no deadline: the bot clock (bot_due_at) moves
    them. Computed, not written: a move stores them in its one versioned UPDATE.
    """
    clock: dict[str, Any] = {"turn_started_at": now, "reminders_sent": 0, "deadline_at": None,
                             "next_reminder_at": None}
    if is_clocked(seat):
        assert seat is not None
        deadline = extend_for_absence(now + timedelta(hours=game.deadline_hours), now,
                                      seat.vacation_start, seat.vacation_end)
        step, when = next_reminder(game, seat, 0, deadline=deadline)
        clock.update(deadline_at=deadline, reminders_sent=step, next_reminder_at=when)
    return clock


def plan_turn(game: Game, seat: Seat | None, now: datetime) -> None:
    """Start the clock of the turn that begins at `now` for `seat` on the game object."""
    for key, value in turn_clock(game, seat, now).items():
        setattr(game, key, value)


def replan_reminders(game: Game, seat: Seat | None, now: datetime) -> None:
    """After the deadline or the seat's preferences changed: the next step still ahead of `now`."""
    game.reminders_sent, game.next_reminder_at = next_reminder(game, seat, 0, not_before=now)


def time_left_text(deadline: datetime, now: datetime) -> str:
    """'2 days 3 hours', '5 hours 10 minutes', '40 seconds' (never negative)."""
    seconds = max(0, int((deadline - now).total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)

    # Two units, joined as the reader's language joins them ("2 days 3 hours", "2 jours et 3 heures").
    if days and hours:
        return gettext("%(days)s %(hours)s", days=plural(days, "day"), hours=plural(hours, "hour"))
    if days:
        return plural(days, "day")
    if hours and minutes:
        return gettext("%(hours)s %(minutes)s", hours=plural(hours, "hour"), minutes=plural(minutes, "minute"))
    if hours:
        return plural(hours, "hour")
    if minutes:
        return plural(minutes, "minute")
    return plural(secs, "second")


def away_days(seat: Seat) -> tuple[date, date]:
    """The first and the last day of the seat's vacation in its zone, as the player typed them
    (the stored end is the midnight after the last day)."""
    assert seat.vacation_start is not None and seat.vacation_end is not None
    zone = seat_zone(seat)
    first = to_local(seat.vacation_start, zone).date()
    last = (to_local(seat.vacation_end, zone) - timedelta(microseconds=1)).date()
    return first, max(first, last)


def away_days_text(seat: Seat) -> tuple[str, str]:
    """`away_days` in the current language: "jeudi 10", "mardi 15 décembre 2026"."""
    return i18n.format_day_range(*away_days(seat))


def local_time_text(when: datetime, seat: Seat | None) -> str:
    """'Tuesday 3 March 2026, 14:00 (Europe/Paris)' in the seat's zone; in French and Vietnamese
    (i18n.current()) as Babel writes it, 'mardi 3 mars 2026, 14:00', the zone named only for a
    seat that set none ('(UTC)')."""
    zone = seat_zone(seat)
    if i18n.current() != i18n.DEFAULT:
        text = i18n.format_datetime(when, zone, date_format="full")
        return text if zone.key != "UTC" else f"{text} (UTC)"
    local = to_local(when, zone)
    return f"{local:%A} {local.day} {local:%B %Y, %H:%M} ({zone.key})"
