"""Queueing emails: rows written in the caller's transaction, delivered later by the worker."""
from __future__ import annotations

import functools
import json
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parseaddr
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

import pbem.metrics as metrics
from pbem.config import Config
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


def mail_domain(cfg: Config) -> str:
    """The domain of every Message-ID we make (games' thread ids included): MAIL_FROM's."""
    return _domain_of(cfg.MAIL_FROM)


@functools.lru_cache(maxsize=8)
def _domain_of(mail_from: str) -> str:
    return parseaddr(mail_from)[1].rpartition("@")[2] or "localhost"


def new_message_id(cfg: Config) -> str:
    return f"<{uuid.uuid4().hex}@{mail_domain(cfg)}>"


# One outbox row as the columns it is inserted with (Core: no ORM object per email).
OutboxRow = dict[str, Any]
_INSERT = insert(OutboxMessage.__table__)  # type: ignore[attr-defined]  # SQLModel declares no __table__


def outbox_row(cfg: Config, email: Email, *, game_id: int | None = None,
               seat_id: int | None = None, thread_id: str | None = None,
               message_id: str | None = None, now: datetime | None = None,
               deferred: str | None = None, params: dict[str, Any] | None = None) -> OutboxRow:
    """The columns of `email`'s pending outbox row (see `enqueue`)."""
    if "\r" in email.subject or "\n" in email.subject:
        raise ValueError("an email subject must be one line")
    now = now or utcnow()
    metrics.EMAILS_QUEUED.labels(email.kind).inc()
    return {
        "game_id": game_id, "seat_id": seat_id, "kind": email.kind, "to_addr": email.to_addr,
        "subject": email.subject, "text_body": email.text_body, "html_body": email.html_body,
        "message_id": message_id or new_message_id(cfg), "in_reply_to": thread_id,
        "references": thread_id, "headers_json": json.dumps(email.headers, sort_keys=True),
        "deferred": deferred,
        "params_json": json.dumps(params or {}, sort_keys=True) if deferred is not None else None,
        "status": OutboxStatus.PENDING, "attempts": 0, "next_attempt_at": now, "created_at": now,
    }


def enqueue(
    session: Session,
    cfg: Config,
    email: Email,
    *,
    game_id: int | None = None,
    seat_id: int | None = None,
    thread_id: str | None = None,
    message_id: str | None = None,
    now: datetime | None = None,
    deferred: str | None = None,
    params: dict[str, Any] | None = None,
) -> OutboxRow:
    """Add `email` to the outbox in `session`'s transaction (no SMTP here, ever): the one way
    every email is queued.

    `thread_id` is the game's root Message-ID, so a mail client threads every email of a game;
    the first email of a game is sent with `message_id=thread_id` and no thread_id.
    `deferred` names the writer (`pbem.mail.writers`) that writes the email just before it is
    sent, from `params`; `email` is then its subject and the text the admin outbox page shows.
    Inside `pbem.db.batched_writes` the row is written with the block's one INSERT (no "id"
    then); otherwise at once, and the returned row carries its "id".
    """
    row = outbox_row(cfg, email, game_id=game_id, seat_id=seat_id, thread_id=thread_id,
                     message_id=message_id, now=now, deferred=deferred, params=params)
    result = write(session, _INSERT, row)
    if result is not None:
        row["id"] = result.inserted_primary_key[0]
    return row
