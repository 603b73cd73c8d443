"""Bounces and complaints sent to our bounce addresses (the envelope sender of every email:
`pbem/mail/verp.py`), handed here by the one handler before any reply is read.

Who bounced is what the VERP token names: the outbox row, and so its address. A token that does
not verify changes nothing, whatever the report says (anyone can write a report). What kind of
failure it was is read by flufl.bounce (Mailman's detectors: RFC 3464 DSNs and the formats of
Postfix, Exim, qmail, Exchange, Yahoo and more): a permanent failure (5.x.x) marks the address
undeliverable, a temporary one (4.x.x) is counted (`mail/undeliverable.record`); a report that
names no failure (an auto-reply to the Return-Path, a "delivered" notice) changes nothing.
A complaint (ARF, RFC 5965, `Feedback-Type: abuse`) puts the address on the never-list, as
"never email me again" does (`games/never.suppress`)."""
from __future__ import annotations

import email
import email.policy
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from email.message import Message

from flufl.bounce import all_failures
from sqlmodel import Session

from pbem import metrics
from pbem.config import Config
from pbem.games import never
from pbem.inbound.bounds import MAX_MESSAGE_BYTES, Rejected, TooLarge, check_header_section, check_mime_shape, \
    check_mime_tree
from pbem.inbound.headers import header_text, message_id_of, recipients_of, sender, values
from pbem.inbound.message import Inbound
from pbem.mail import undeliverable, verp
from pbem.models import OutboxMessage
from pbem.models_mail import BounceKind

FEEDBACK_REPORT = "message/feedback-report"
MAX_REASON = 200


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
    """Mail for the bounce handler: sent to a bounce address of ours, or a delivery report."""
    return (any(verp.is_bounce_address(cfg, address) for address in mail.recipients)
            or (mail.machine or "").startswith(("a delivery report", "a bounce")))


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
        return _ignored("not to a bounce address that verifies: nothing changed")
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
