"""Building the MIME message of one outbox row: headers, text + HTML alternative, UTF-8.

Headers go through `email.policy.SMTP`, which refuses CR/LF in header values; header
names are checked here, so an outbox row can never smuggle in an extra header (Bcc: ...).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email import policy
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

from pbem.config import Config
from pbem.models import OutboxMessage

# RFC 5322 field names: printable US-ASCII except the colon.
_HEADER_NAME = re.compile(r"^[!-9;-~]+$")
# Headers the outbox row itself decides; extra headers may not override them.
_RESERVED = {
    "from", "to", "cc", "bcc", "subject", "date", "message-id", "in-reply-to", "references",
    "mime-version", "content-type", "content-transfer-encoding", "sender", "reply-to",
    "return-path",
}


class MessageError(ValueError):
    """An outbox row that cannot become a valid email (a permanent failure)."""


@dataclass(frozen=True)
class Envelope:
    """What the SMTP transaction needs besides the message itself."""

    mail_from: str
    rcpt_to: str


def _single_address(header_value: object, what: str) -> Address:
    addresses = getattr(header_value, "addresses", ())
    if len(addresses) != 1 or not addresses[0].addr_spec or "@" not in addresses[0].addr_spec:
        raise MessageError(f"{what} must be exactly one email address")
    return addresses[0]


def build_message(row: OutboxMessage, cfg: Config) -> tuple[EmailMessage, Envelope]:
    """The email for `row` and its envelope. Raises MessageError for a malformed row."""
    msg = EmailMessage(policy=policy.SMTP)
    try:
        msg["From"] = cfg.MAIL_FROM
        msg["To"] = row.to_addr
        msg["Subject"] = row.subject
        created = row.created_at.replace(tzinfo=timezone.utc) if row.created_at else datetime.now(timezone.utc)
        msg["Date"] = format_datetime(created)
        msg["Message-ID"] = row.message_id
        if row.in_reply_to:
            msg["In-Reply-To"] = row.in_reply_to
        if row.references:
            msg["References"] = row.references
        msg["Auto-Submitted"] = "auto-generated"  # no vacation auto-replies to the game
        for name, value in _extra_headers(row).items():
            msg[name] = value
    except MessageError:
        raise
    except (ValueError, TypeError, IndexError) as exc:  # the email package's refusals
        raise MessageError(f"invalid header: {exc}") from exc
    sender = _single_address(msg["From"], "MAIL_FROM")
    recipient = _single_address(msg["To"], "the recipient")
    # Quoted-printable keeps every line short and 7-bit: any server accepts it.
    msg.set_content(row.text_body, charset="utf-8", cte="quoted-printable")
    if row.html_body:
        msg.add_alternative(row.html_body, subtype="html", charset="utf-8", cte="quoted-printable")
    return msg, Envelope(mail_from=sender.addr_spec, rcpt_to=recipient.addr_spec)


def _extra_headers(row: OutboxMessage) -> dict[str, str]:
    try:
        headers = json.loads(row.headers_json or "{}")
    except json.JSONDecodeError as exc:
        raise MessageError("headers_json is not valid JSON") from exc
    if not isinstance(headers, dict):
        raise MessageError("headers_json must be a JSON object")
    clean: dict[str, str] = {}
    for name, value in headers.items():
        if not isinstance(name, str) or not _HEADER_NAME.match(name):
            raise MessageError(f"invalid header name {name!r}")
        if name.lower() in _RESERVED:
            raise MessageError(f"header {name} may not be set as an extra header")
        if not isinstance(value, str):
            raise MessageError(f"header {name} must be a string")
        clean[name] = value
    return clean
