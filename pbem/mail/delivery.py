"""Delivering the outbox over SMTP: claim due rows with a lease, send them over one
connection, record each outcome in its own short transaction.

Guarantees, and the one window where they bend:
- No database transaction is ever open during SMTP I/O.
- A row is claimed with a lease (claimed_by, claimed_until); a worker that dies leaves
  the lease to expire and another run picks the row up again. A batch that runs past half
  its lease re-checks and extends each row's claim (a conditional UPDATE) before sending it,
  so two workers never send the same row while a lease holds (a lease is far longer than
  one SMTP exchange can take).
- A row is marked sent right after the server's 250. A crash between that 250 and the
  commit of the mark (one small UPDATE) makes the row go out again when its lease expires:
  delivery is at-least-once, with the same Message-ID, which mail clients deduplicate.
  The same holds when the reply to DATA never comes (timeout, dropped connection): the
  server may have kept the message, and the retry sends it again.
- 2xx -> sent; 4xx, timeouts and dropped connections -> retried with exponential backoff
  and jitter; 5xx -> failed with the server's reason; after `max_attempts` -> failed.
  A server that cannot be reached defers the batch without counting an attempt.
- A 5xx to the recipient or the message is a permanent bounce: the address is marked
  undeliverable (pbem/mail/undeliverable.py) in the row's own transaction. A row for an
  address on the never-list or undeliverable is cancelled, not sent.
"""
from __future__ import annotations

import logging
import os
import random
import smtplib
import socket
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage

from sqlalchemy import ColumnElement, and_, or_
from sqlalchemy.engine import Engine
from sqlmodel import col, select, update

import pbem.metrics as metrics
from pbem.config import Config
from pbem.db import read_scope, session_scope
from pbem.mail import undeliverable
from pbem.mail.mime import Envelope, MessageError, build_message
from pbem.mail.smtp import Outcome, SmtpLink, classify, short
from pbem.mail.suppression import NEVER_AGAIN, suppressed_among
from pbem.mail.writers import NoWriter, Written, write_deferred
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.models_mail import BounceKind

log = logging.getLogger("pbem.mail.delivery")
T = OutboxMessage


@dataclass(frozen=True)
class RetryPolicy:
    """When a failed email is tried again, and when we give up on it."""

    base_seconds: float = 60.0
    cap_seconds: float = 3600.0
    max_attempts: int = 12  # about 7 hours of retries with these numbers
    jitter: float = 0.25  # +-25 %, so a backlog does not hit the server in lockstep

    def delay(self, attempts: int, rng: random.Random | None = None) -> timedelta:
        """Wait before attempt number `attempts + 1` (attempts >= 1 already made)."""
        raw = self.base_seconds * 2 ** max(0, attempts - 1)
        spread = (rng or random).uniform(1 - self.jitter, 1 + self.jitter)
        return timedelta(seconds=min(self.cap_seconds, raw * spread))


@dataclass
class DeliveryReport:
    """What one `deliver_due` call did."""

    claimed: int = 0
    sent: int = 0
    retried: int = 0  # attempted, failed temporarily, will be tried again
    failed: int = 0  # given up (5xx, malformed, too many attempts)
    cancelled: int = 0  # never to be sent (an email written at delivery whose turn was over or address changed)
    deferred: int = 0  # not attempted (server unreachable, shutdown, lease lost)

    def as_dict(self) -> dict[str, int]:
        return asdict(self)


def default_worker_id() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


def lease_seconds(cfg: Config) -> float:
    """How long a claim holds: far more than one SMTP exchange may take."""
    return max(300.0, 20 * cfg.SMTP_TIMEOUT)


def _due(now: datetime) -> ColumnElement[bool]:
    return or_(
        and_(col(T.status) == OutboxStatus.PENDING, col(T.next_attempt_at) <= now),
        and_(col(T.status) == OutboxStatus.SENDING, col(T.claimed_until) < now),
    )


def claim_due(engine: Engine, worker_id: str, now: datetime, limit: int,
              lease: float) -> tuple[list[OutboxMessage], set[int]]:
    """Lease up to `limit` due rows to `worker_id` in one short transaction; returns them and
    the ids taken over from an expired lease (a worker died holding them).

    PostgreSQL: FOR UPDATE SKIP LOCKED lets workers claim disjoint batches concurrently.
    SQLite: every transaction begins IMMEDIATE (pbem.db), which serializes claims.
    """
    with session_scope(engine) as session:
        found = session.exec(
            select(T.id, T.status).where(_due(now)).order_by(col(T.next_attempt_at), col(T.id))
            .limit(limit).with_for_update(skip_locked=True)
        ).all()
        if not found:
            return [], set()
        # A stored row always has its id: the `is not None` only narrows the Optional of the model.
        ids = [row_id for row_id, _ in found if row_id is not None]
        reclaimed = {row_id for row_id, status in found if status == OutboxStatus.SENDING and row_id is not None}
        session.exec(
            update(T).where(col(T.id).in_(ids)).where(_due(now)).values(
                status=OutboxStatus.SENDING, claimed_by=worker_id,
                claimed_until=now + timedelta(seconds=lease), attempts=T.attempts + 1,
            )
        )
        rows = session.exec(
            select(T).where(col(T.id).in_(ids), T.claimed_by == worker_id).order_by(col(T.next_attempt_at), col(T.id))
        ).all()
        return list(rows), reclaimed


def _mine(row_ids: Sequence[int], worker_id: str) -> ColumnElement[bool]:
    return and_(col(T.id).in_(row_ids), col(T.claimed_by) == worker_id, col(T.status) == OutboxStatus.SENDING)


def _renew_lease(engine: Engine, row_id: int, worker_id: str, until: datetime) -> bool:
    with session_scope(engine) as session:
        result = session.exec(update(T).where(_mine([row_id], worker_id)).values(claimed_until=until))
        return result.rowcount == 1


def _mark_sent(engine: Engine, row_id: int, now: datetime) -> None:
    # Unconditional: the server said 250, so the row is sent whoever holds the lease now.
    for pause in (0.1, 0.5, 2.0, None):
        try:
            with session_scope(engine) as session:
                session.exec(update(T).where(col(T.id) == row_id).values(
                    status=OutboxStatus.SENT, sent_at=now, claimed_by=None, claimed_until=None,
                    last_error=None))
            return
        except Exception:  # the database hiccuped: the mail is out, keep trying to say so
            if pause is None:
                raise
            time.sleep(pause)


def _mark(engine: Engine, row_ids: Sequence[int], worker_id: str, **values: object) -> None:
    if not row_ids:
        return
    with session_scope(engine) as session:
        session.exec(update(T).where(_mine(row_ids, worker_id)).values(
            claimed_by=None, claimed_until=None, **values))


def deliver_due(
    engine: Engine,
    cfg: Config,
    *,
    now: datetime | None = None,
    worker_id: str | None = None,
    batch_size: int = 50,
    policy: RetryPolicy = RetryPolicy(),
    stop: Callable[[], bool] | None = None,
    rng: random.Random | None = None,
    link: SmtpLink | None = None,
) -> DeliveryReport:
    """Send one batch of due outbox rows; see the module docstring for the guarantees.

    `now` pins the clock (tests); `stop` is polled between messages (graceful shutdown).
    `link`: an SMTP connection the caller keeps over several batches (the worker drains a
    backlog in small batches without reconnecting for each); the caller closes it. Without
    it, the batch opens its own connection and closes it at the end.
    """
    clock: Callable[[], datetime] = (lambda: now) if now is not None else utcnow
    worker_id = worker_id or default_worker_id()
    lease = timedelta(seconds=lease_seconds(cfg))
    rows, reclaimed = claim_due(engine, worker_id, clock(), batch_size, lease.total_seconds())
    report = DeliveryReport(claimed=len(rows))
    if not rows:
        return report
    with read_scope(engine) as session:  # asked "never email me again", or bounces, since it was queued
        never = suppressed_among(session, [row.to_addr for row in rows])
        bouncing = undeliverable.undeliverable_among(session, [row.to_addr for row in rows
                                                               if row.kind not in undeliverable.ASKED_FOR_KINDS])
    own_link = link is None
    link = SmtpLink(cfg) if link is None else link
    batch = _Batch(engine, cfg, worker_id, policy, rng, clock, report, link, lease,
                   # Past half the lease, each send first re-checks and extends its row's claim.
                   renew_after=time.monotonic() + lease.total_seconds() / 2, reclaimed=reclaimed,
                   never=never, bouncing=bouncing,
                   # A first connection (none if the caller's is still open), then one reconnect.
                   opens_left=1 if link.connected else 2)
    try:
        for index, row in enumerate(rows):
            halt = _Halt(None, None) if stop is not None and stop() else _send_one(batch, row)
            if halt is not None:  # this row and the rest go back, untried
                _defer(engine, [r.id for r in rows[index:] if r.id is not None], worker_id, report,
                       halt.next_at, halt.reason)
                break
    except BaseException:
        # Something unexpected (database down, a bug): leave the rest to lease expiry.
        log.error("mail batch stopped", exc_info=True,
                  extra={"fields": {"event": "mail_batch_error", "worker": worker_id}})
        link.close()
        raise
    finally:
        if own_link:
            link.close()
    return report


@dataclass
class _Batch:
    """One `deliver_due` call: what sending each of its rows needs, and what it did so far."""

    engine: Engine
    cfg: Config
    worker_id: str
    policy: RetryPolicy
    rng: random.Random | None
    clock: Callable[[], datetime]
    report: DeliveryReport
    link: SmtpLink
    lease: timedelta
    renew_after: float  # time.monotonic() past which a row's claim is extended before its send
    reclaimed: set[int]  # taken over from an expired lease
    never: set[str]  # addresses that said "never email me again"
    bouncing: set[str]  # addresses marked undeliverable (not for the kinds a person asks for)
    opens_left: int  # SMTP connections this batch may still open


@dataclass(frozen=True)
class _Halt:
    """The batch stops at a row: it and the rest are given back untried, due at `next_at`."""

    next_at: datetime | None
    reason: str | None


def _send_one(batch: _Batch, row: OutboxMessage) -> _Halt | None:
    """Send one claimed row and record how it ended (sent, retried, failed, cancelled or given
    back); a `_Halt` when the SMTP server cannot be reached: the batch stops there."""
    ready = _ready(batch, row)
    if ready is None:
        return None
    halt = _connect(batch)
    if halt is not None:
        return halt
    _transmit(batch, row, *ready)
    return None


def _ready(batch: _Batch, row: OutboxMessage) -> tuple[EmailMessage, Envelope] | None:
    """The row's message and envelope, or None when it is not to be sent now (recorded)."""
    assert row.id is not None
    engine, worker_id, report, now = batch.engine, batch.worker_id, batch.report, batch.clock
    if time.monotonic() > batch.renew_after and not _renew_lease(engine, row.id, worker_id, now() + batch.lease):
        report.deferred += 1  # another worker took it over after our lease ran out
        return None
    if row.id in batch.reclaimed and row.attempts > batch.policy.max_attempts:  # it keeps killing workers
        _fail(engine, row, worker_id, report,
              f"gave up after {row.attempts - 1} attempts (workers stopped while sending it)", now())
        return None
    stopped = NEVER_AGAIN if row.to_addr.lower() in batch.never else (
        undeliverable.UNDELIVERABLE if row.to_addr.lower() in batch.bouncing else None)
    if stopped is not None:
        _mark(engine, [row.id], worker_id, status=OutboxStatus.CANCELLED, last_error=stopped,
              next_attempt_at=now())
        report.cancelled += 1
        _log_row("mail_cancelled", row)
        return None
    if row.deferred is not None and not _written(batch, row):
        return None
    try:
        return build_message(row, batch.cfg)
    except MessageError as exc:
        _fail(engine, row, worker_id, report, f"malformed email: {exc}", now())
        return None


def _written(batch: _Batch, row: OutboxMessage) -> bool:
    """Write a deferred row now with its writer, from the game as it is; False: not to send."""
    engine, worker_id, report = batch.engine, batch.worker_id, batch.report
    try:
        rendered = write_deferred(engine, batch.cfg, row, worker_id, batch.clock())
    except NoWriter as exc:  # a process started without the game side: try later
        _record_failure(engine, row, worker_id, report, Outcome("temporary", str(exc)),
                        batch.policy, batch.clock(), batch.rng)
        return False
    except Exception as exc:  # noqa: BLE001  (a bug in one game's email must not stop the batch)
        log.exception("rendering a deferred email failed")
        _fail(engine, row, worker_id, report, f"could not render: {type(exc).__name__}", batch.clock())
        return False
    if rendered is Written.CANCELLED:
        report.cancelled += 1
        _log_row("mail_cancelled", row)
    elif rendered is not Written.READY:
        report.deferred += 1
    return rendered is Written.READY


def _connect(batch: _Batch) -> _Halt | None:
    """Make sure the batch's SMTP connection is open (at most one reconnect per batch)."""
    link = batch.link
    if link.connected:
        return None
    if batch.opens_left == 0:
        return _Halt(batch.clock() + batch.policy.delay(1, batch.rng), "SMTP connection lost twice in one batch")
    batch.opens_left -= 1
    try:
        link.open()
    except (OSError, smtplib.SMTPException) as exc:
        link.close()
        return _Halt(batch.clock() + batch.policy.delay(1, batch.rng),
                     f"SMTP server unavailable: {short(exc) or type(exc).__name__}")
    return None


def _transmit(batch: _Batch, row: OutboxMessage, msg: EmailMessage, envelope: Envelope) -> None:
    """Hand the message to the server and record its answer."""
    assert row.id is not None
    link, engine, worker_id, report = batch.link, batch.engine, batch.worker_id, batch.report
    try:
        link.send(msg, envelope)
    except (OSError, smtplib.SMTPException) as exc:
        outcome = classify(exc)
        if outcome.connection_lost or not link.connected:
            link.close()
        _record_failure(engine, row, worker_id, report, outcome, batch.policy, batch.clock(), batch.rng)
        return
    except Exception as exc:  # e.g. a message smtplib cannot encode: never retried forever
        link.close()
        _fail(engine, row, worker_id, report, f"could not send: {type(exc).__name__}: {exc}", batch.clock())
        return
    _mark_sent(engine, row.id, batch.clock())
    report.sent += 1
    metrics.EMAILS_SENT.labels(row.kind).inc()


def _record_failure(engine: Engine, row: OutboxMessage, worker_id: str, report: DeliveryReport,
                    outcome: Outcome, policy: RetryPolicy, now: datetime,
                    rng: random.Random | None) -> None:
    attempts = row.attempts  # claim_due already counted this attempt
    if outcome.kind == "permanent":
        _fail(engine, row, worker_id, report, outcome.reason, now, bounced=outcome.bounced)
    elif attempts >= policy.max_attempts:
        _fail(engine, row, worker_id, report,
              f"gave up after {attempts} attempts; last error: {outcome.reason}", now)
    else:
        _mark(engine, [row.id], worker_id, status=OutboxStatus.PENDING,  # type: ignore[list-item]  # stored: its id is set
              next_attempt_at=now + policy.delay(attempts, rng), last_error=outcome.reason)
        report.retried += 1
        _log_row("mail_retry", row, attempts=attempts, error=outcome.reason)


def _fail(engine: Engine, row: OutboxMessage, worker_id: str, report: DeliveryReport,
          reason: str, now: datetime, *, bounced: bool = False) -> None:
    """Give up on the row; `bounced`: the relay refused the address or the message for good, so
    the address is marked undeliverable in the same transaction."""
    with session_scope(engine) as session:
        session.exec(update(T).where(_mine([row.id], worker_id)).values(  # type: ignore[list-item]  # stored: its id is set
            claimed_by=None, claimed_until=None, status=OutboxStatus.FAILED, last_error=short(reason),
            next_attempt_at=now))
        if bounced:
            undeliverable.record(session, row.to_addr, BounceKind.RELAY, short(reason), outbox_id=row.id, now=now)
    report.failed += 1
    metrics.EMAILS_FAILED.labels(row.kind).inc()
    if bounced:
        metrics.BOUNCES.labels(BounceKind.RELAY).inc()
        metrics.EMAILS_BOUNCED.labels(row.kind, BounceKind.RELAY).inc()
    _log_row("mail_failed", row, error=short(reason), level=logging.WARNING)


def _defer(engine: Engine, row_ids: list[int], worker_id: str, report: DeliveryReport,
           next_at: datetime | None, reason: str | None) -> None:
    """Give rows back without counting an attempt (they were never tried)."""
    values: dict[str, object] = {"status": OutboxStatus.PENDING, "attempts": T.attempts - 1}
    if next_at is not None:
        values["next_attempt_at"] = next_at
    if reason is not None:
        values["last_error"] = short(reason)
    _mark(engine, row_ids, worker_id, **values)
    report.deferred += len(row_ids)
    if reason:
        log.warning("mail deferred", extra={"fields": {"event": "mail_deferred", "count": len(row_ids),
                                                       "error": short(reason)}})


def _log_row(event: str, row: OutboxMessage, level: int = logging.INFO, **fields: object) -> None:
    # Ids and kinds only: never bodies or links.
    log.log(level, event.replace("_", " "), extra={"fields": {
        "event": event, "outbox_id": row.id, "game_id": row.game_id, "kind": row.kind, **fields}})
