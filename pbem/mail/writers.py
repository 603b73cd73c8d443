"""Emails written at delivery: the registry of their writers, and writing one claimed row.

A row queued with `deferred=<name>` (pbem.mail.outbox.enqueue) holds its subject and the text
the admin outbox page shows; just before sending it, the delivery worker calls the writer
registered under that name with the row's `params_json`. The writer returns the full `Email`,
or `Cancel(reason)` when it must never go out (the turn it was for is over, the address
changed...). The transport knows no game: the game side registers its writers at start-up
(`create_app`, which the worker runs too), as Flask's `init_app` does.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, update

from pbem.config import Config
from pbem.db import session_scope
from pbem.mail.outbox import Email
from pbem.models import OutboxMessage, OutboxStatus


@dataclass(frozen=True)
class Cancel:
    """A deferred email that must never be sent, and why (stored in `last_error`)."""

    reason: str


# (session, cfg, row, params, now) -> the full email, or Cancel. It runs in the transaction
# that stores the written email, so what it writes besides (a seat's mark) commits with it.
Writer = Callable[[Session, Config, OutboxMessage, dict[str, Any], datetime], Email | Cancel]
_WRITERS: dict[str, Writer] = {}


def register_writer(name: str, writer: Writer) -> None:
    """Make `writer` write the rows queued with `deferred=name` (idempotent)."""
    _WRITERS[name] = writer


def writer_for(name: str) -> Writer | None:
    return _WRITERS.get(name)


class Written(str, Enum):
    READY = "ready"  # the row now holds the full email: send it
    CANCELLED = "cancelled"  # never send it (the writer said why)
    LOST = "lost"  # another worker holds the row now


class NoWriter(LookupError):
    """A deferred row whose writer is not registered in this process."""


def write_deferred(engine: Engine, cfg: Config, row: OutboxMessage, worker_id: str,
                   now: datetime) -> Written:
    """Write `row` (claimed by `worker_id`, `row.deferred` set) with its writer, or cancel it."""
    assert row.deferred is not None
    writer = writer_for(row.deferred)
    if writer is None:
        raise NoWriter(f"no writer registered for deferred email {row.deferred!r}")
    params = json.loads(row.params_json or "{}")
    mine = (col(OutboxMessage.id) == row.id, col(OutboxMessage.claimed_by) == worker_id,
            col(OutboxMessage.status) == OutboxStatus.SENDING)
    with session_scope(engine) as session:
        result = writer(session, cfg, row, params, now)
        if isinstance(result, Cancel):
            done = session.exec(update(OutboxMessage).where(*mine).values(
                status=OutboxStatus.CANCELLED, last_error=result.reason, claimed_by=None,
                claimed_until=None, next_attempt_at=now))
            return Written.CANCELLED if done.rowcount == 1 else Written.LOST
        values: dict[str, Any] = {
            "subject": result.subject, "text_body": result.text_body, "html_body": result.html_body,
            "headers_json": json.dumps(result.headers, sort_keys=True), "deferred": None}
        done = session.exec(update(OutboxMessage).where(*mine).values(**values))
        if done.rowcount != 1:
            return Written.LOST
    for key, value in values.items():
        setattr(row, key, value)
    return Written.READY
