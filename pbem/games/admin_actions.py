"""Admin glue that is not a clock action: resend the turn email, retry outbox rows.

Each function runs in the caller's transaction (the dashboard writes its audit row in it too).
"""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlmodel import Session, col

from pbem.config import Config
from pbem.letters import notify
from pbem.games.service import check_running, is_bot_seat, lock_game_with_seats
from pbem.games.errors import GameError
from pbem.store import load_state
from pbem.models import OutboxMessage, OutboxStatus, Seat


def resend_turn_email(session: Session, cfg: Config, game_id: int, *, now: datetime) -> Seat:
    """Queue the turn email again for the human to move (written at delivery: fresh links)."""
    game, seats = lock_game_with_seats(session, game_id)
    check_running(game)
    seat = next((s for s in seats if s.position == game.to_move), None)
    if seat is None or is_bot_seat(seat) or not seat.email:
        raise GameError("nobody_to_nudge")
    notify.queue_turn_email(session, cfg, game, seat, load_state(game))
    return seat


_RETRYABLE = (OutboxStatus.FAILED, OutboxStatus.PENDING)


def retry_outbox_message(session: Session, message_id: int, *, now: datetime) -> OutboxMessage:
    """Make one failed (or waiting) email due now; the worker sends it on its next pass."""
    row = session.get(OutboxMessage, message_id)
    if row is None:
        raise GameError("no_such_email")
    if row.status not in _RETRYABLE:
        raise GameError("email_not_retriable", {"status": row.status})
    if row.status == OutboxStatus.FAILED:
        row.attempts = 0  # an admin's retry gets the whole retry ladder again
    row.status = OutboxStatus.PENDING
    row.next_attempt_at = now
    row.claimed_by = None
    row.claimed_until = None
    session.add(row)
    return row


def retry_all_failed(session: Session, *, now: datetime) -> int:
    """Make every failed email due now; returns how many."""
    result = session.exec(
        update(OutboxMessage).where(col(OutboxMessage.status) == OutboxStatus.FAILED)
        .values(status=OutboxStatus.PENDING, next_attempt_at=now, attempts=0,
                claimed_by=None, claimed_until=None)
    )
    return int(result.rowcount or 0)
