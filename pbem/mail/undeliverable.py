"""Addresses our mail cannot reach: a permanent bounce (a DSN's 5.x.x), the relay's 5xx at send
time, or three temporary failures (4.x.x) within seven days. Like the suppression list, nothing
is queued for such an address (`letters/send.queue` asks `undeliverable_among`) and the worker
cancels what was queued before; unlike it, the person clears it ("I can read mail again" on
their /me page) or an admin does. Compared by mailbox (`pbem.addresses.canonical_key`).

Every bounce is a `Bounce` row (pbem/models_mail.py): the temporary ones are counted from them,
and the one that made an address undeliverable carries the mark until it is cleared."""
from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, func, text, update
from sqlmodel import Session, col, select
from sqlmodel.sql.expression import SelectOfScalar

from pbem.addresses import canonical_key
from pbem.models import OutboxMessage, utcnow
from pbem.models_mail import Bounce, BounceKind

UNDELIVERABLE = "mail to this address bounces"
TEMPORARY_WINDOW = timedelta(days=7)
TEMPORARY_LIMIT = 3  # temporary failures within TEMPORARY_WINDOW that count as permanent
MAX_REASON = 500
# Emails the person asks for on a page (a link to /me, the confirmation of a game they start):
# sent all the same, so that whoever can read mail again can come back and say so.
ASKED_FOR_KINDS = frozenset({"my_games_link", "confirm_game"})


def _marked(keys: Iterable[str]) -> SelectOfScalar[str]:
    return select(Bounce.key).where(col(Bounce.key).in_(sorted(set(keys))), col(Bounce.undeliverable),
                                    col(Bounce.cleared_at).is_(None))


def undeliverable_among(session: Session | Connection, emails: Iterable[str | None]) -> set[str]:
    """The lower-case forms of those of `emails` whose mailbox is undeliverable."""
    keys = {email: canonical_key(email) for email in {e.strip().lower() for e in emails if e}}
    if not keys:
        return set()
    query = _marked(keys.values())
    rows = session.exec(query).all() if isinstance(session, Session) else session.execute(query).scalars().all()
    marked = set(rows)
    return {email for email, key in keys.items() if key in marked}


_MARKED_IN_TRANSACTION = "pbem.undeliverable.marked"


def is_undeliverable(session: Session, email: str | None) -> bool:
    """Whether `email`'s mailbox is undeliverable. Every email queued asks this, so the marked
    mailboxes are read once per transaction (one statement, however many emails: the reminder
    sweep's statement count, tests/pbem/test_clock_sweep.py) and forgotten when one is marked or
    cleared."""
    if not email:
        return False
    transaction = session.get_transaction()
    held = session.info.get(_MARKED_IN_TRANSACTION)
    if held is None or held[0] is not transaction:
        marked = set(session.exec(select(Bounce.key).where(col(Bounce.undeliverable),
                                                           col(Bounce.cleared_at).is_(None))).all())
        held = session.info[_MARKED_IN_TRANSACTION] = (transaction, marked)
    return canonical_key(email.strip().lower()) in held[1]


@dataclass(frozen=True)
class Recorded:
    """What one bounce did: `marked` the address undeliverable now (it was not before)."""

    bounce_id: int
    marked: bool


def record(session: Session, email: str, kind: str, reason: str, *, outbox_id: int | None,
           now: datetime | None = None) -> Recorded:
    """Store one bounce of `email` (a BounceKind) in the caller's transaction; a permanent one,
    a relay's refusal, or the TEMPORARY_LIMIT-th temporary one within TEMPORARY_WINDOW since
    the address was last cleared marks it undeliverable (once)."""
    session.info.pop(_MARKED_IN_TRANSACTION, None)
    now = now or utcnow()
    email = email.strip().lower()
    key = canonical_key(email)
    _serialise(session, key)
    already = bool(session.exec(_marked([key])).first())
    permanent = kind in (BounceKind.PERMANENT, BounceKind.RELAY)
    if kind == BounceKind.TEMPORARY and not already:
        since = max(now - TEMPORARY_WINDOW, _last_cleared(session, key) or datetime.min)
        earlier = session.exec(select(func.count()).select_from(Bounce).where(
            Bounce.key == key, Bounce.kind == BounceKind.TEMPORARY, col(Bounce.created_at) > since)).one()
        permanent = earlier + 1 >= TEMPORARY_LIMIT
    mark = permanent and not already and kind != BounceKind.COMPLAINT
    row = Bounce(key=key, email=email[:254], kind=kind, reason=reason[:MAX_REASON], outbox_id=outbox_id,
                 created_at=now, undeliverable=mark)
    session.add(row)
    session.flush()
    assert row.id is not None
    return Recorded(row.id, mark)


def _last_cleared(session: Session, key: str) -> datetime | None:
    return session.exec(select(func.max(Bounce.cleared_at)).where(Bounce.key == key)).one()


# The namespace of the two-key advisory lock of a mailbox's bounces (pbem/auth.py holds others).
_BOUNCE_LOCK = 0x4B4C0003


def _serialise(session: Session, key: str) -> None:
    """Two bounces of one mailbox (its emails' DSNs arrive together) take turns, so it is marked
    once (PostgreSQL: a transaction lock; SQLite writes one transaction at a time already)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:ns, :k)"),
                        {"ns": _BOUNCE_LOCK, "k": zlib.crc32(key.encode()) - 2**31})


def clear(session: Session, email: str, *, now: datetime | None = None) -> bool:
    """The address can read mail again: its mark goes (False: it had none)."""
    session.info.pop(_MARKED_IN_TRANSACTION, None)
    result = session.exec(update(Bounce).where(
        col(Bounce.key) == canonical_key(email), col(Bounce.undeliverable), col(Bounce.cleared_at).is_(None))
        .values(cleared_at=now or utcnow()))
    return bool(result.rowcount)


@dataclass(frozen=True)
class Mark:
    """An undeliverable address as the admin list shows it."""

    bounce_id: int
    email: str
    kind: str
    reason: str
    since: datetime
    outbox_id: int | None
    email_kind: str | None  # the kind of the email that bounced (turn, invitation, ...)


def marks(session: Session, limit: int = 500) -> list[Mark]:
    """Every undeliverable address, the latest first."""
    rows = session.exec(select(Bounce, OutboxMessage.kind).join(
        OutboxMessage, col(OutboxMessage.id) == col(Bounce.outbox_id), isouter=True).where(
        col(Bounce.undeliverable), col(Bounce.cleared_at).is_(None))
        .order_by(col(Bounce.created_at).desc()).limit(limit)).all()
    return [Mark(b.id or 0, b.email, b.kind, b.reason, b.created_at, b.outbox_id, kind) for b, kind in rows]


def unannounced(session: Session, limit: int = 100) -> list[Bounce]:
    """The marks whose games have not been told yet (pbem/games/bounced.py)."""
    return list(session.exec(select(Bounce).where(col(Bounce.undeliverable), col(Bounce.announced_at).is_(None))
                             .order_by(col(Bounce.id)).limit(limit).with_for_update(skip_locked=True)).all())
