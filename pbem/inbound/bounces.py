"""Bounces and complaints sent to our bounce addresses (the envelope sender of every email:
`pbem/mail/verp.py`), handed here by the one handler before any reply is read.

Who bounced is what the VERP token names: the outbox row, and so its address. A token that does
not verify changes nothing, whatever the report says (anyone can write a report). What kind of
failure it was is read by flufl.bounce (Mailman's detectors: RFC 3464 DSNs and the formats of
Postfix, Exim, qmail, Exchange, Yahoo and more): a permanent failure (5.x.x) marks the address
undeliverable, a temporary one (4.x.x) is counted (`mail/undeliverable.record`); a report that
names no failure (an auto-reply to the Return-Path, a "delivered" notice) changes nothing.
A complaint (ARF, RFC 5965, `Feedback-Type: abuse`) puts the address on the never-list, as
"never email me again" does (`games/never.suppress`).

Some servers send the report to the From address, or to the bounce address stripped of its tag
(or mangle the tag): with no token of our shape in its recipients, the report's failed
recipients (flufl.bounce: a DSN's Final-Recipient) are the second authority, and only for a
permanent failure (5.x.x) of an address we actually sent an email to within UNTAGGED_WINDOW.
Anything else is counted (`metrics.INBOUND_IGNORED`) and logged by the address's domain only.
A token of our shape that does not verify is a forgery, and still changes nothing."""
from __future__ import annotations

import email
import email.policy
import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message

from flufl.bounce import all_failures
from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem import links, metrics
from pbem.config import Config
from pbem.games import never
from pbem.inbound.bounds import MAX_MESSAGE_BYTES, Rejected, TooLarge, check_header_section, check_mime_shape, \
    check_mime_tree
from pbem.inbound.headers import header_text, message_id_of, recipients_of, sender, values
from pbem.inbound.message import Inbound
from pbem.mail import undeliverable, verp
from pbem.models import OutboxMessage, OutboxStatus
from pbem.models_mail import BounceKind

log = logging.getLogger("pbem.inbound")
FEEDBACK_REPORT = "message/feedback-report"
MAX_REASON = 200
# A report without a token of ours marks only an address we sent an email to this recently.
UNTAGGED_WINDOW = timedelta(days=7)
MAX_UNTAGGED_ADDRESSES = 20  # failed recipients read in one report without a token


@dataclass(frozen=True)
class Report:
    """A message for the bounce handler, as far as it is read: no reply is looked for in it."""

    message_id: str
    from_addr: str
    recipients: tuple[str, ...]
    message: Message


def to_bounce_address(cfg: Config, envelope_rcpts: Iterable[str]) -> bool:
    """Sent (by SMTP) to a bounce address of ours: read as a report, never as a reply."""
    return any(verp.is_bounce_address(cfg, address) for address in envelope_rcpts)


def is_bounce_mail(cfg: Config, mail: Inbound) -> bool:
    """Mail for the bounce handler: sent to a bounce address of ours, or a delivery report; or
    any machine's mail to none of our reply addresses (a server that sends its report to the
    From address, marked Auto-Submitted as Postfix marks it, or Precedence: bulk)."""
    machine = mail.machine or ""
    return (any(verp.is_bounce_address(cfg, address) for address in mail.recipients)
            or machine.startswith(("a delivery report", "a bounce"))
            or (bool(machine)
                and all(links.parse_reply_address(cfg, address) is None for address in mail.recipients)))


def read_report(raw: bytes, envelope_rcpts: Iterable[str]) -> Report:
    """A message to a bounce address, within the bounds of a reply (`bounds.Rejected` past one),
    its headers read but not its text: what a reply's reading costs (HTML, quotes) is not spent."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message of {len(raw)} bytes")
    check_header_section(raw)
    check_mime_shape(raw)
    try:
        message = email.message_from_bytes(raw, policy=email.policy.compat32)
    except Exception as exc:  # noqa: BLE001  (within the bounds it does not happen: say so if it does)
        raise Rejected(f"a message that cannot be parsed ({type(exc).__name__})") from exc
    check_mime_tree(message)
    headers = [(name, header_text(value)) for name, value in message.raw_items()]
    return Report(message_id_of(headers, raw), sender(values(headers, "From"))[0],
                  recipients_of(headers, envelope_rcpts), message)


def report_of(mail: Inbound, raw: bytes) -> Report:
    """A message read as a reply already (IMAP: no envelope) that turned out to be a report."""
    return Report(mail.message_id, mail.from_addr, mail.recipients,
                  email.message_from_bytes(raw, policy=email.policy.compat32))


def handle_bounce(session: Session, cfg: Config, mail: Report, now: datetime) -> tuple[str, str, int | None]:
    """Act on one bounce or complaint in the caller's transaction: (outcome, reason, game id)."""
    row_id = next((r for r in (verp.bounced_row(cfg, a) for a in mail.recipients) if r is not None), None)
    if row_id is None:
        if any(verp.carries_a_token(cfg, address) for address in mail.recipients):
            return _ignored("not to a bounce address that verifies: nothing changed")
        return _untagged(session, mail.message, now)
    row = session.get(OutboxMessage, row_id)
    if row is None:
        return _ignored("the bounced email is no longer stored: nothing changed")
    report = mail.message
    if is_complaint(report):
        never.suppress(session, cfg, row.to_addr, now=now)
        undeliverable.record(session, row.to_addr, BounceKind.COMPLAINT, "abuse report (ARF)", outbox_id=row.id,
                             now=now)
        metrics.COMPLAINTS.inc()
        return "complaint", f"abuse report about a {row.kind} email: the address is on the never-list", row.game_id
    temporary, permanent = all_failures(report)
    if not temporary and not permanent:
        return _ignored("no failure found in it: nothing changed")
    kind = BounceKind.TEMPORARY if temporary and not permanent else BounceKind.PERMANENT
    recorded = undeliverable.record(session, row.to_addr, kind, status_of(report) or f"{kind} failure",
                                    outbox_id=row.id, now=now)
    metrics.BOUNCES.labels(kind).inc()
    metrics.EMAILS_BOUNCED.labels(row.kind, kind).inc()
    marked = ": the address is now undeliverable" if recorded.marked else ""
    return "bounce", f"{kind} bounce of a {row.kind} email{marked}", row.game_id


def _untagged(session: Session, report: Message, now: datetime) -> tuple[str, str, int | None]:
    """A report with no token of ours (sent to the From, or to a bounce address stripped of its
    tag): a permanent failure of an address we mailed within UNTAGGED_WINDOW marks it."""
    if is_complaint(report):
        return _ignored("a complaint without a bounce token: nothing changed")
    temporary, permanent = all_failures(report)
    if not permanent:
        return _ignored("no bounce token and no permanent failure in it: nothing changed" if temporary
                        else "no bounce token and no failure found in it: nothing changed")
    matched: list[OutboxMessage] = []
    marked = False
    for raw in sorted(permanent)[:MAX_UNTAGGED_ADDRESSES]:
        address = raw.decode("utf-8", "replace").strip().strip("<>").lower()
        row = _latest_sent(session, address, now) if "@" in address else None
        if row is None:
            log.info("bounce without a token for an address at %s that we did not mail lately: nothing changed",
                     address.rpartition("@")[2][:100] or "no domain")
            continue
        recorded = undeliverable.record(session, row.to_addr, BounceKind.PERMANENT,
                                        status_of(report) or f"{BounceKind.PERMANENT} failure", outbox_id=row.id,
                                        now=now)
        metrics.BOUNCES.labels(BounceKind.PERMANENT).inc()
        metrics.EMAILS_BOUNCED.labels(row.kind, BounceKind.PERMANENT).inc()
        matched.append(row)
        marked = marked or recorded.marked
    if not matched:
        return _ignored("no bounce token and no failed address we mailed lately: nothing changed")
    now_marked = ": the address is now undeliverable" if marked else ""
    return ("bounce", f"permanent bounce without a token of a {matched[0].kind} email{now_marked}",
            next((r.game_id for r in matched if r.game_id is not None), None))


def _latest_sent(session: Session, address: str, now: datetime) -> OutboxMessage | None:
    """The latest email we sent `address` within UNTAGGED_WINDOW (None: we did not mail it)."""
    return session.exec(select(OutboxMessage).where(
        col(OutboxMessage.status) == OutboxStatus.SENT, col(OutboxMessage.sent_at) > now - UNTAGGED_WINDOW,
        func.lower(col(OutboxMessage.to_addr)) == address).order_by(col(OutboxMessage.id).desc()).limit(1)).first()


def _ignored(reason: str) -> tuple[str, str, int | None]:
    metrics.INBOUND_IGNORED.labels(metrics.reason_label(reason)).inc()
    return "ignored", reason, None


def is_complaint(report: Message) -> bool:
    """An ARF abuse report (RFC 5965): a multipart/report with a message/feedback-report part
    that says `Feedback-Type: abuse`."""
    if report.get_content_type() != "multipart/report":
        return False
    for part in report.walk():
        if part.get_content_type() != FEEDBACK_REPORT:
            continue
        fields = _fields(part)
        if fields.get("feedback-type", "").strip().lower() == "abuse":
            return True
    return False


def status_of(report: Message) -> str:
    """The first recipient's Status and Diagnostic-Code of a DSN (RFC 3464), "" when it has none."""
    for part in report.walk():
        if part.get_content_type() == "message/delivery-status":
            for block in _blocks(part):
                status = " ".join(x for x in (block.get("status", ""), block.get("diagnostic-code", "")) if x)
                if status:
                    return " ".join(status.split())[:MAX_REASON]
    return ""


def _fields(part: Message) -> dict[str, str]:
    blocks = _blocks(part)
    return {k: v for block in blocks for k, v in block.items()}


def _blocks(part: Message) -> list[dict[str, str]]:
    """The header blocks of a report part (a list of Messages, or a text to read as such)."""
    payload = part.get_payload()
    if isinstance(payload, list):
        return [{k.lower(): str(v) for k, v in block.items()} for block in payload if isinstance(block, Message)]
    text = payload if isinstance(payload, str) else ""
    blocks: list[dict[str, str]] = []
    for chunk in text.replace("\r\n", "\n").split("\n\n"):
        parsed = email.message_from_string(chunk.strip() + "\n", policy=email.policy.compat32)
        fields = {k.lower(): str(v) for k, v in parsed.items()}
        if fields:
            blocks.append(fields)
    return blocks
