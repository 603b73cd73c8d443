"""Due reminders: claimed a chunk at a time by the sweep; written when the worker sends them
(pbem/letters/deferred.py: the writer, what makes one stale, the admin's nudge).

The sweep (`queue_due_reminders`) takes a chunk of due games in ONE short transaction: it locks
the rows that are still due (PostgreSQL: FOR UPDATE SKIP LOCKED, so a second worker skips them;
SQLite: the transaction is BEGIN IMMEDIATE), moves each game to its next ladder step with one
executemany UPDATE and queues the reminders with one multi-row INSERT. The claim and its outbox
rows commit together: a crash loses nothing and sends nothing twice.
"""
from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm import QueryableAttribute, load_only
from sqlmodel import Session, col, select

from pbem.config import Config
from pbem.db import batched_writes
from pbem.letters.deferred import queue_reminder, wants_reminder
from pbem.models import Game, GameStatus, Seat
from pbem.schedule import next_reminder

log = logging.getLogger("pbem.games.clocks")
CHUNK = 200  # games claimed per transaction: short locks, few round trips


def _attributes(*attributes: Any) -> tuple[QueryableAttribute[Any], ...]:
    """Model attributes as load_only takes them: SQLModel types them as their values, not as the
    instrumented attributes they are on the class."""
    return attributes


_CLAIM_COLUMNS = (
    load_only(*_attributes(Game.id, Game.name, Game.thread_id, Game.deadline_at, Game.deadline_hours,
                           Game.reminders, Game.reminders_sent, Game.next_reminder_at, Game.on_timeout)),
    load_only(*_attributes(Seat.id, Seat.game_id, Seat.position, Seat.email, Seat.kind,
                           Seat.handed_to_bot, Seat.unsubscribed, Seat.timezone, Seat.vacation_start,
                           Seat.vacation_end, Seat.link_nonce,  # the nonce signs the unsubscribe link
                           Seat.language,  # the reminder's subject is in the seat's language
                           Seat.left_game)),
)


def queue_due_reminders(session: Session, cfg: Config, game_ids: list[int], now: datetime) -> int:
    """Claim the still-due reminders of `game_ids` and queue their emails; returns how many."""
    found = session.exec(
        select(Game, Seat)
        .outerjoin(Seat, (col(Seat.game_id) == col(Game.id)) & (col(Seat.position) == col(Game.to_move)))
        .where(col(Game.id).in_(game_ids), Game.status == GameStatus.RUNNING,
               col(Game.next_reminder_at) <= now)
        .options(*_CLAIM_COLUMNS)
        .with_for_update(of=Game, skip_locked=True)
    ).all()
    steps, rows = [], []
    with batched_writes(session):  # the outbox rows: one multi-row INSERT
        for game, seat in found:
            if game.deadline_at is not None and game.deadline_at <= now:
                continue  # the timeout comes first; the timeout email says what happened
            # Nobody (human) to move any more gives (last step, None): the stale time is dropped.
            step, next_at = next_reminder(game, seat, game.reminders_sent + 1, not_before=now)
            steps.append({"gid": game.id, "next_at": next_at, "step": step})
            row = queue_reminder(session, cfg, game, seat, now) if wants_reminder(seat, now) else None
            if row is not None:
                rows.append(row)
    if not steps:
        return 0
    table = Game.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__
    connection = session.connection()
    connection.execute(
        update(table).where(table.c.id == bindparam("gid"))
        .values(next_reminder_at=bindparam("next_at"), reminders_sent=bindparam("step")), steps)
    log.info("reminders queued=%s claimed=%s games=%s", len(rows), len(steps),
             [r["game_id"] for r in rows])
    return len(rows)
