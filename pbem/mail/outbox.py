"""Queueing emails: rows written in the caller's transaction, delivered later by the worker."""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from pbem.db import write
from pbem.models import OutboxMessage, OutboxStatus, utcnow


@dataclass(frozen=True)
class Email:
    """A rendered email to exactly one recipient."""

    kind: str
    to_addr: str
    subject: str
    text_body: str
    html_body: str
    headers: dict[str, str] = field(default_factory=dict)


def new_message_id(domain: str) -> str:
    return f"<{uuid.uuid4().hex}@{domain}>"


# One outbox row as the columns it is inserted with (Core: no ORM object per email).
OutboxRow = dict[str, Any]
_INSERT = insert(OutboxMessage.__table__)  # type: ignore[attr-defined]  # SQLModel declares no __table__


def outbox_row(email: Email, *, domain: str, game_id: int | None = None,
               seat_id: int | None = None, thread_id: str | None = None,
               message_id: str | None = None, now: datetime | None = None) -> OutboxRow:
    """The columns of `email`'s pending outbox row (`enqueue` writes one; a batch several)."""
    if "\r" in email.subject or "\n" in email.subject:
        raise ValueError("an email subject must be one line")
    now = now or utcnow()
    return {
        "game_id": game_id, "seat_id": seat_id, "kind": email.kind, "to_addr": email.to_addr,
        "subject": email.subject, "text_body": email.text_body, "html_body": email.html_body,
        "message_id": message_id or new_message_id(domain), "in_reply_to": thread_id,
        "references": thread_id, "headers_json": json.dumps(email.headers, sort_keys=True),
        "status": OutboxStatus.PENDING, "attempts": 0, "next_attempt_at": now, "created_at": now,
    }


def enqueue(
    session: Session,
    email: Email,
    *,
    domain: str,
    game_id: int | None = None,
    seat_id: int | None = None,
    thread_id: str | None = None,
    message_id: str | None = None,
) -> OutboxRow:
    """Add `email` to the outbox in `session`'s transaction (no SMTP here, ever).

    `thread_id` is the game's root Message-ID, so a mail client threads every email of a game;
    the first email of a game is sent with `message_id=thread_id` and no thread_id.
    Inside `pbem.db.batched_writes` the row is written with the block's one INSERT (no "id"
    then); otherwise at once, and the returned row carries its "id".
    """
    return queue_row(session, outbox_row(email, domain=domain, game_id=game_id, seat_id=seat_id,
                                         thread_id=thread_id, message_id=message_id))


def queue_row(session: Session, row: OutboxRow) -> OutboxRow:
    """Insert a row built by `outbox_row` (see `enqueue`)."""
    result = write(session, _INSERT, row)
    if result is not None:
        row["id"] = result.inserted_primary_key[0]
    return row
