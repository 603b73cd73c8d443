"""The suppression list: addresses that chose "never email me again". Nothing is queued for
them (the callers refuse first: `is_suppressed`), and the worker cancels any row queued for
one before it asked (`pbem/mail/delivery.py`).

The list is compared by mailbox (`pbem.addresses.canonical_key`), not by spelling: once
`hal@example.com` said never, `Hal+korsar@example.com` is refused too, and on Gmail
`v.ictim@` is `victim@`. Each row keeps the address as it was given, beside its key."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection
from sqlmodel import Session, col, select

from pbem.addresses import canonical_key
from pbem.models import Suppression, utcnow

NEVER_AGAIN = "the address asked never to be emailed again"


def suppressed_among(session: Session | Connection, emails: Iterable[str | None]) -> set[str]:
    """The lower-case forms of those of `emails` whose mailbox is on the suppression list."""
    given = {e.strip().lower() for e in emails if e}
    keys = {email: canonical_key(email) for email in given}
    if not keys:
        return set()
    query = select(Suppression.key).where(col(Suppression.key).in_(sorted(set(keys.values()))))
    rows = session.exec(query).all() if isinstance(session, Session) else session.execute(query).scalars().all()
    never = set(rows)
    return {email for email, key in keys.items() if key in never}


def is_suppressed(session: Session, email: str | None) -> bool:
    return bool(email) and bool(suppressed_among(session, [email]))


def add(session: Session, email: str, *, now: datetime | None = None) -> None:
    """Put `email` on the list (once per spelling), keyed by its mailbox, in the caller's
    transaction."""
    if session.get(Suppression, email) is None:
        session.add(Suppression(email=email, key=canonical_key(email), created_at=now or utcnow()))
        session.flush()
