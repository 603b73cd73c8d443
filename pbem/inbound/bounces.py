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
from datetime import datetime
from email.message import Message

from flufl.bounce import all_failures
from sqlmodel import Session

from pbem import metrics
from pbem.config import Config
from pbem.games import never
from pbem.inbound.message import Inbound
from pbem.mail import undeliverable, verp
from pbem.models import OutboxMessage
from pbem.models_mail import BounceKind

FEEDBACK_REPORT = "message/feedback-report"
MAX_REASON = 200


def is_bounce_mail(cfg: Config, mail: Inbound) -> bool:
    """Mail for the bounce handler: sent to a bounce address of ours, or a delivery report."""
    return (any(verp.is_bounce_address(cfg, address) for address in mail.recipients)
            or (mail.machine or "").startswith(("a delivery report", "a bounce")))


def handle_bounce(session: Session, cfg: Config, mail: Inbound, raw: bytes,
                  now: datetime) -> tuple[str, str, int | None]:
    """Act on one bounce or complaint in the caller's transaction: (outcome, reason, game id)."""
    row_id = next((r for r in (verp.bounced_row(cfg, a) for a in mail.recipients) if r is not None), None)
    if row_id is None:
        return _ignored("not to a bounce address that verifies: nothing changed")
    row = session.get(OutboxMessage, row_id)
    if row is None:
        return _ignored("the bounced email is no longer stored: nothing changed")
    report = email.message_from_bytes(raw, policy=email.policy.compat32)
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
