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
"""
from __future__ import annotations

import logging
import os
import random
import smtplib
import socket
import ssl
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, and_, or_
from sqlalchemy.engine import Engine
from sqlmodel import col, select, update

from pbem.config import Config
from pbem.db import read_scope, session_scope
from pbem.mail.mime import Envelope, MessageError, build_message
from pbem.mail.suppression import NEVER_AGAIN, suppressed_among
from pbem.mail.writers import NoWriter, Written, write_deferred
from pbem.models import OutboxMessage, OutboxStatus, utcnow

log = logging.getLogger("pbem.mail.delivery")
T = OutboxMessage
MAX_ERROR_LENGTH = 500


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


def _short(error: object) -> str:
    text = " ".join(str(error).split())
    return text[:MAX_ERROR_LENGTH]


@dataclass(frozen=True)
class Outcome:
    """How a send attempt ended: kind is sent | temporary | permanent, plus whether the
    connection is gone."""

    kind: str
    reason: str = ""
    connection_lost: bool = False


def classify(exc: BaseException) -> Outcome:
    """Map an smtplib / socket error to an outcome (5xx permanent, the rest temporary)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, resp = next(iter(exc.recipients.values()), (0, b""))
        return _by_code(code, resp, "recipient refused")
    if isinstance(exc, smtplib.SMTPResponseException):
        return _by_code(exc.smtp_code, exc.smtp_error, type(exc).__name__)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return Outcome("permanent", f"server cannot take this message: {exc}")
    if isinstance(exc, smtplib.SMTPServerDisconnected) or not isinstance(exc, smtplib.SMTPException):
        # smtplib errors are OSErrors too; a bare OSError is a socket failure or timeout.
        return Outcome("temporary", f"connection lost: {_short(exc) or type(exc).__name__}",
                       connection_lost=True)
    return Outcome("temporary", f"{type(exc).__name__}: {_short(exc)}")


def _by_code(code: int, resp: bytes | str, what: str) -> Outcome:
    text = resp.decode("utf-8", "replace") if isinstance(resp, bytes) else str(resp)
    reason = _short(f"{code} {text}")
    if 500 <= code < 600:
        return Outcome("permanent", f"{what}: {reason}")
    return Outcome("temporary", f"{what}: {reason}")


class SmtpLink:
    """One SMTP connection, opened on demand and reused for a whole batch."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.smtp: smtplib.SMTP | None = None
        self.opened = 0

    @property
    def connected(self) -> bool:
        return self.smtp is not None and getattr(self.smtp, "sock", None) is not None

    def open(self) -> None:
        cfg = self.cfg
        # An explicit EHLO name: smtplib's default looks up our FQDN over DNS.
        local_name = urlsplit(cfg.BASE_URL).hostname or "localhost"
        self.opened += 1
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if cfg.SMTP_TLS == "ssl":
            smtp = smtplib.SMTP_SSL(cfg.SMTP_HOST, cfg.SMTP_PORT, local_hostname=local_name,
                                    timeout=cfg.SMTP_TIMEOUT, context=context)
        else:
            smtp = smtplib.SMTP(cfg.SMTP_HOST, cfg.SMTP_PORT, local_hostname=local_name,
                                timeout=cfg.SMTP_TIMEOUT)
        try:
            smtp.ehlo()
            if cfg.SMTP_TLS == "starttls":
                smtp.starttls(context=context)
                smtp.ehlo()
            if cfg.SMTP_USER:
                smtp.login(cfg.SMTP_USER, cfg.SMTP_PASSWORD)
        except BaseException:
            smtp.close()
            raise
        self.smtp = smtp

    def send(self, msg: EmailMessage, envelope: Envelope) -> None:
        assert self.smtp is not None
        self.smtp.send_message(msg, from_addr=envelope.mail_from, to_addrs=[envelope.rcpt_to])

    def close(self) -> None:
        if self.smtp is None:
            return
        try:
            if self.connected:
                self.smtp.quit()
        except (OSError, smtplib.SMTPException):
            pass
        finally:
            self.smtp.close()
            self.smtp = None


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
    # Past half the lease, each send first re-checks and extends its row's claim.
    renew_after = time.monotonic() + lease.total_seconds() / 2
    report = DeliveryReport(claimed=len(rows))
    if not rows:
        return report
    with read_scope(engine) as session:  # asked "never email me again" since it was queued
        never = suppressed_among(session, [row.to_addr for row in rows])
    own_link = link is None
    link = SmtpLink(cfg) if link is None else link
    # A first connection (none if the caller's is still open), then one reconnect per batch.
    opens_left = 1 if link.connected else 2
    try:
        for index, row in enumerate(rows):
            assert row.id is not None
            rest = [r.id for r in rows[index:] if r.id is not None]
            if stop is not None and stop():
                _defer(engine, rest, worker_id, report, next_at=None, reason=None)
                break
            if time.monotonic() > renew_after and not _renew_lease(engine, row.id, worker_id, clock() + lease):
                report.deferred += 1  # another worker took it over after our lease ran out
                continue
            if row.id in reclaimed and row.attempts > policy.max_attempts:  # it keeps killing workers
                _fail(engine, row, worker_id, report,
                      f"gave up after {row.attempts - 1} attempts (workers stopped while sending it)", clock())
                continue
            if row.to_addr.lower() in never:
                _mark(engine, [row.id], worker_id, status=OutboxStatus.CANCELLED, last_error=NEVER_AGAIN,
                      next_attempt_at=clock())
                report.cancelled += 1
                _log_row("mail_cancelled", row)
                continue
            if row.deferred is not None:  # written now by its writer, from the game as it is
                try:
                    rendered = write_deferred(engine, cfg, row, worker_id, clock())
                except NoWriter as exc:  # a process started without the game side: try later
                    _record_failure(engine, row, worker_id, report, Outcome("temporary", str(exc)),
                                    policy, clock(), rng)
                    continue
                except Exception as exc:  # noqa: BLE001  (a bug in one game's email must not stop the batch)
                    log.exception("rendering a deferred email failed")
                    _fail(engine, row, worker_id, report, f"could not render: {type(exc).__name__}", clock())
                    continue
                if rendered is not Written.READY:
                    if rendered is Written.CANCELLED:
                        report.cancelled += 1
                        _log_row("mail_cancelled", row)
                    else:
                        report.deferred += 1
                    continue
            try:
                msg, envelope = build_message(row, cfg)
            except MessageError as exc:
                _fail(engine, row, worker_id, report, f"malformed email: {exc}", clock())
                continue
            if not link.connected:
                if opens_left == 0:
                    _defer(engine, rest, worker_id, report, clock() + policy.delay(1, rng),
                           "SMTP connection lost twice in one batch")
                    break
                opens_left -= 1
                try:
                    link.open()
                except (OSError, smtplib.SMTPException) as exc:
                    link.close()
                    _defer(engine, rest, worker_id, report, clock() + policy.delay(1, rng),
                           f"SMTP server unavailable: {_short(exc) or type(exc).__name__}")
                    break
            try:
                link.send(msg, envelope)
            except (OSError, smtplib.SMTPException) as exc:
                outcome = classify(exc)
                if outcome.connection_lost or not link.connected:
                    link.close()
                _record_failure(engine, row, worker_id, report, outcome, policy, clock(), rng)
                continue
            except Exception as exc:  # e.g. a message smtplib cannot encode: never retried forever
                link.close()
                _fail(engine, row, worker_id, report, f"could not send: {type(exc).__name__}: {exc}", clock())
                continue
            _mark_sent(engine, row.id, clock())
            report.sent += 1
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


def _record_failure(engine: Engine, row: OutboxMessage, worker_id: str, report: DeliveryReport,
                    outcome: Outcome, policy: RetryPolicy, now: datetime,
                    rng: random.Random | None) -> None:
    attempts = row.attempts  # claim_due already counted this attempt
    if outcome.kind == "permanent":
        _fail(engine, row, worker_id, report, outcome.reason, now)
    elif attempts >= policy.max_attempts:
        _fail(engine, row, worker_id, report,
              f"gave up after {attempts} attempts; last error: {outcome.reason}", now)
    else:
        _mark(engine, [row.id], worker_id, status=OutboxStatus.PENDING,  # type: ignore[list-item]  # stored: its id is set
              next_attempt_at=now + policy.delay(attempts, rng), last_error=outcome.reason)
        report.retried += 1
        _log_row("mail_retry", row, attempts=attempts, error=outcome.reason)


def _fail(engine: Engine, row: OutboxMessage, worker_id: str, report: DeliveryReport,
          reason: str, now: datetime) -> None:
    _mark(engine, [row.id], worker_id, status=OutboxStatus.FAILED,  # type: ignore[list-item]  # stored: its id is set
          last_error=_short(reason), next_attempt_at=now)
    report.failed += 1
    _log_row("mail_failed", row, error=_short(reason), level=logging.WARNING)


def _defer(engine: Engine, row_ids: list[int], worker_id: str, report: DeliveryReport,
           next_at: datetime | None, reason: str | None) -> None:
    """Give rows back without counting an attempt (they were never tried)."""
    values: dict[str, object] = {"status": OutboxStatus.PENDING, "attempts": T.attempts - 1}
    if next_at is not None:
        values["next_attempt_at"] = next_at
    if reason is not None:
        values["last_error"] = _short(reason)
    _mark(engine, row_ids, worker_id, **values)
    report.deferred += len(row_ids)
    if reason:
        log.warning("mail deferred", extra={"fields": {"event": "mail_deferred", "count": len(row_ids),
                                                       "error": _short(reason)}})


def _log_row(event: str, row: OutboxMessage, level: int = logging.INFO, **fields: object) -> None:
    # Ids and kinds only: never bodies or links.
    log.log(level, event.replace("_", " "), extra={"fields": {
        "event": event, "outbox_id": row.id, "game_id": row.game_id, "kind": row.kind, **fields}})
