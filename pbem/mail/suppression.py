"""The suppression list: addresses that chose "never email me again". Nothing is queued for
them (the callers refuse first: `is_suppressed`), and the worker cancels any row queued for
one before it asked (`pbem/mail/delivery.py`).

The list is compared by mailbox (`pbem.addresses.canonical_key`), not by spelling: once
`hal@example.com` said never, `Hal+korsar@example.com` is refused too, and on Gmail
`v.ictim@` is `victim@`. Each row keeps the address as it was given, beside its key.

An erased address (pbem/games/privacy.py) that was on the list stays on it as a keyed hash
only (`forget`): HMAC-SHA256 of its mailbox key with the app's secret (`use_secret`, set by
`create_app`), in both columns, so "never email me again" still holds and the table no
longer holds the address. Changing SECRET_KEY makes those rows match nothing: see
docs/privacy.md."""
from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import Connection
from sqlmodel import Session, col, delete, select

from pbem.addresses import canonical_key
from pbem.models import Suppression, utcnow

NEVER_AGAIN = "the address asked never to be emailed again"
HASHED_PREFIX = "hmac:"  # a row of an erased address: "hmac:" + 64 hex digits, email and key alike
_HASH_CONTEXT = b"korsar never-list\x00"  # this hash is not any other use of the secret

_secret: bytes | None = None


def use_secret(secret: str) -> None:
    """The key of the never-list's hashes (the app's SECRET_KEY): `create_app` sets it."""
    global _secret
    _secret = secret.encode()


def hashed_key(key: str, secret: str | None = None) -> str | None:
    """The keyed hash a mailbox key is kept as once its address is erased; None without a secret."""
    raw = secret.encode() if secret is not None else _secret
    if raw is None:
        return None
    return HASHED_PREFIX + hmac.new(raw, _HASH_CONTEXT + key.encode(), hashlib.sha256).hexdigest()


def suppressed_among(session: Session | Connection, emails: Iterable[str | None]) -> set[str]:
    """The lower-case forms of those of `emails` whose mailbox is on the suppression list
    (as itself, or as the keyed hash of an erased address)."""
    given = {e.strip().lower() for e in emails if e}
    keys = {email: canonical_key(email) for email in given}
    if not keys:
        return set()
    hashes = {key: hashed_key(key) for key in set(keys.values())}
    wanted = sorted(set(keys.values()) | {h for h in hashes.values() if h})
    query = select(Suppression.key).where(col(Suppression.key).in_(wanted))
    rows = session.exec(query).all() if isinstance(session, Session) else session.execute(query).scalars().all()
    never = set(rows)
    return {email for email, key in keys.items() if key in never or hashes[key] in never}


def is_suppressed(session: Session, email: str | None) -> bool:
    return bool(email) and bool(suppressed_among(session, [email]))


def add(session: Session, email: str, *, now: datetime | None = None) -> None:
    """Put `email` on the list (once per spelling), keyed by its mailbox, in the caller's
    transaction."""
    if session.get(Suppression, email) is None:
        session.add(Suppression(email=email, key=canonical_key(email), created_at=now or utcnow()))
        session.flush()


def listed_since(session: Session, key: str) -> datetime | None:
    """When the mailbox `key` went on the list (its first row, plain or hashed), or None."""
    wanted = [key] + [h for h in [hashed_key(key)] if h]
    return session.exec(select(Suppression.created_at).where(col(Suppression.key).in_(wanted))
                        .order_by(col(Suppression.created_at)).limit(1)).first()


def forget(session: Session, key: str, *, secret: str, keep: bool, now: datetime | None = None) -> bool:
    """The rows of the mailbox `key` go; if it was on the list, or `keep` (the person asked never
    again as they were erased), one row of its keyed hash stays. True if such a row is kept."""
    hashed = hashed_key(key, secret)
    assert hashed is not None
    since = session.exec(select(Suppression.created_at).where(col(Suppression.key).in_([key, hashed]))
                         .order_by(col(Suppression.created_at)).limit(1)).first()
    session.exec(delete(Suppression).where(col(Suppression.key) == key))
    if since is None and not keep:
        return False
    if session.get(Suppression, hashed) is None:
        session.add(Suppression(email=hashed, key=hashed, created_at=since or now or utcnow()))
    session.flush()
    return True
