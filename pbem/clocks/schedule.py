"""When a turn's deadline and reminders fall (pure computations on UTC datetimes)."""
from __future__ import annotations

from datetime import datetime, timedelta

from pbem.models import Game, Seat


def parse_ladder(text: str) -> list[float]:
    """'50,85' -> [50.0, 85.0] (percent of the deadline, ascending)."""
    return sorted(float(p) for p in text.split(",") if p.strip())


def plan_turn(game: Game, seat: Seat | None, now: datetime) -> None:
    """Start the clock of the turn that begins at `now` for `seat` (None: nobody to wait for)."""
    game.turn_started_at = now
    game.reminders_sent = 0
    if seat is None:
        game.deadline_at = None
        game.next_reminder_at = None
        return
    game.deadline_at = now + timedelta(hours=game.deadline_hours)
    ladder = parse_ladder(game.reminders)
    game.next_reminder_at = (
        now + timedelta(hours=game.deadline_hours * ladder[0] / 100) if ladder else None
    )
