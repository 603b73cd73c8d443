"""The suppression list: addresses that chose "never email me again". Nothing is queued for
them (the callers refuse first: `is_suppressed`), and the worker cancels any row queued for
one before it asked (`pbem/mail/delivery.py`)."""
from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection
from sqlmodel import Session, col, select

from pbem.models import Suppression

NEVER_AGAIN = "the address asked never to be emailed again"


def suppressed_among(session: Session | Connection, emails: Iterable[str | None]) -> set[str]:
    """The lower-case addresses of `emails` on the suppression list."""
    wanted = sorted({e.strip().lower() for e in emails if e})
    if not wanted:
        return set()
    query = select(Suppression.email).where(col(Suppression.email).in_(wanted))
    rows = session.exec(query).all() if isinstance(session, Session) else session.execute(query).scalars().all()
    return set(rows)


def is_suppressed(session: Session, email: str | None) -> bool:
    return bool(email) and bool(suppressed_among(session, [email]))
