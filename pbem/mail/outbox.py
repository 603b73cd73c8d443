"""Queueing emails: rows written in the caller's transaction, delivered later by the worker."""
from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field

from sqlmodel import Session

from pbem.models import OutboxMessage


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


def enqueue(
    session: Session,
    email: Email,
    *,
    domain: str,
    game_id: int | None = None,
    seat_id: int | None = None,
    thread_id: str | None = None,
    message_id: str | None = None,
) -> OutboxMessage:
    """Add `email` to the outbox in `session`'s transaction (no SMTP here, ever).

    `thread_id` is the game's root Message-ID, so a mail client threads every email of a game;
    the first email of a game is sent with `message_id=thread_id` and no thread_id.
    """
    if "\r" in email.subject or "\n" in email.subject:
        raise ValueError("an email subject must be one line")
    row = OutboxMessage(
        game_id=game_id,
        seat_id=seat_id,
        kind=email.kind,
        to_addr=email.to_addr,
        subject=email.subject,
        text_body=email.text_body,
        html_body=email.html_body,
        message_id=message_id or new_message_id(domain),
        in_reply_to=thread_id,
        references=thread_id,
        headers_json=json.dumps(email.headers, sort_keys=True),
    )
    session.add(row)
    return row
