"""Building the MIME message of one outbox row: headers, text + HTML alternative, UTF-8.

Headers go through `email.policy.SMTP`, which refuses CR/LF in header values; header
names are checked here, so an outbox row can never smuggle in an extra header (Bcc: ...).

`List-Unsubscribe` and `List-Unsubscribe-Post` (RFC 2369, RFC 8058) are written verbatim on one
line: the policy's folding turns a line over 78 characters with no space in it (a long `<https://...>`)
into RFC 2047 encoded-words, which Gmail and Yahoo do not decode there, so one-click unsubscribe
would silently not work. A URL in angle brackets has no legal fold point, and RFC 5322 allows a
line of up to 998 characters, so these headers get a header class of their own in the policy's
`header_factory` (`email.headerregistry.HeaderRegistry.map_to_type`) whose `fold` writes them as
given, after checking they are printable US-ASCII on one line of at most 998 octets.

`Content-Language` (RFC 3282) comes with the row (its letter's language, set by
pbem/letters/send.py), checked to be one language tag, and is written on the message itself.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email import policy
from email.header import Header
from email.headerregistry import Address, HeaderRegistry, UniqueUnstructuredHeader
from email.message import EmailMessage
from email.policy import EmailPolicy, Policy
from email.utils import format_datetime

from pbem.config import Config
from pbem.mail.verp import bounce_address
from pbem.models import OutboxMessage

# RFC 5322 field names: printable US-ASCII except the colon.
_HEADER_NAME = re.compile(r"^[!-9;-~]+$")
# Headers the outbox row itself decides; extra headers may not override them.
_RESERVED = {
    "from", "to", "cc", "bcc", "subject", "date", "message-id", "in-reply-to", "references",
    "mime-version", "content-type", "content-transfer-encoding", "sender", "return-path",
}  # Reply-To may be set (the signed reply address of a turn), as exactly one address


# Not a header: the display name of the From header in the reader's language, which the writer
# of the row chose (pbem/letters/send.py); the address is always MAIL_FROM's.
FROM_NAME = "From-Name"


class MessageError(ValueError):
    """An outbox row that cannot become a valid email (a permanent failure)."""


# RFC 3282 Content-Language, one BCP 47 tag as the letters write them ("vi", "en-XX").
CONTENT_LANGUAGE = "Content-Language"
_LANGUAGE_TAG = re.compile(r"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$")

# RFC 5322 2.1.1: a line is at most 998 characters, CRLF excluded.
MAX_LINE_OCTETS = 998
# Header values sent exactly as given: printable US-ASCII and spaces, nothing else.
_VERBATIM_VALUE = re.compile(r"^[ !-~]*$")
VERBATIM_HEADERS = ("List-Unsubscribe", "List-Unsubscribe-Post")
_VERBATIM = {name.lower() for name in VERBATIM_HEADERS}


def _verbatim_value_problem(value: str) -> str | None:
    if "\r" in value or "\n" in value:
        return "contains a line break"
    if not _VERBATIM_VALUE.match(value):
        return "must be printable US-ASCII"
    if not value.strip():
        return "is empty"
    return None


def verbatim_problem(name: str, value: str) -> str | None:
    """Why `value` cannot be sent verbatim as header `name` on one line, or None."""
    problem = _verbatim_value_problem(value)
    if problem is None and len(f"{name}: {value}") > MAX_LINE_OCTETS:
        problem = f"makes a header line over {MAX_LINE_OCTETS} octets"
    return problem


class VerbatimHeader:
    """A header written exactly as given, on one line, never folded nor RFC 2047 encoded (the
    `List-Unsubscribe` family: receivers parse the raw `<https://...>`). Used as a specialized
    class of the policy's HeaderRegistry; at most one per message."""

    max_count = 1

    @classmethod
    def parse(cls, value: str, kwds: dict[str, object]) -> None:
        # Called when the header is set (msg[name] = value): a bad value is refused there.
        problem = _verbatim_value_problem(value)
        if problem:
            raise ValueError(f"the header value {problem}")
        kwds["parse_tree"] = None  # never used: fold() below writes the value itself
        kwds["decoded"] = value

    def fold(self, *, policy: Policy) -> str:
        name = self.name  # type: ignore[attr-defined]  # from BaseHeader, which the registry mixes in
        problem = verbatim_problem(name, str(self))
        if problem:
            raise ValueError(f"header {name} {problem}")
        return f"{name}: {self}{policy.linesep}"


class SubjectHeader(UniqueUnstructuredHeader):
    """The Subject: an ASCII one folded by the policy (unless that leaves its first line empty,
    "Subject:" then CRLF); any other written as UTF-8 encoded-words (RFC 2047), the first one
    on the name's own line. Used as a specialized class of the policy's registry."""

    def fold(self, *, policy: Policy) -> str:
        folded = super().fold(policy=policy)  # type: ignore[misc]  # BaseHeader.fold, mixed in by the registry
        name = self.name  # type: ignore[attr-defined]  # from BaseHeader, which the registry mixes in
        # Any non-ASCII subject (Vietnamese, French): the policy's folder drops the space where it
        # folds between two encoded-words ("Đô Đốc và" read back "Đô Đốcvà"); Header keeps every
        # space inside the encoded-words, so the subject is read back exactly.
        if str(self).isascii() and folded.split(policy.linesep, 1)[0].rstrip() != f"{name}:":
            return str(folded)
        encoded = Header(str(self), charset="utf-8", header_name=name,
                         maxlinelen=policy.max_line_length or 78).encode(linesep=policy.linesep)
        return f"{name}: {encoded}{policy.linesep}"


def _mail_policy() -> EmailPolicy[EmailMessage]:
    registry = HeaderRegistry()
    registry.map_to_type("Subject", SubjectHeader)  # type: ignore[arg-type]  # typeshed wants a BaseHeader
    for name in VERBATIM_HEADERS:
        # A specialized class is a mixin: the registry makes a subclass of it and BaseHeader.
        registry.map_to_type(name, VerbatimHeader)  # type: ignore[arg-type]  # typeshed wants a BaseHeader
    return policy.SMTP.clone(header_factory=registry)


# SMTP's policy (CRLF, 78-column folding, RFC 2047 for non-ASCII) plus the verbatim headers.
MAIL_POLICY = _mail_policy()


@dataclass(frozen=True)
class Envelope:
    """What the SMTP transaction needs besides the message itself."""

    mail_from: str
    rcpt_to: str


def _single_address(header_value: object, what: str) -> Address:
    addresses: tuple[Address, ...] = getattr(header_value, "addresses", ())
    if len(addresses) != 1 or not addresses[0].addr_spec or "@" not in addresses[0].addr_spec:
        raise MessageError(f"{what} must be exactly one email address")
    return addresses[0]


def build_message(row: OutboxMessage, cfg: Config) -> tuple[EmailMessage, Envelope]:
    """The email for `row` and its envelope. Raises MessageError for a malformed row."""
    msg = EmailMessage(policy=MAIL_POLICY)
    extra = _extra_headers(row)
    from_name = extra.pop(FROM_NAME, None)
    try:
        msg["From"] = cfg.MAIL_FROM
        if from_name:  # the same address, named in the reader's language
            address = _single_address(msg["From"], "MAIL_FROM")
            msg.replace_header("From", Address(display_name=from_name, addr_spec=address.addr_spec))
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
        language = extra.pop(CONTENT_LANGUAGE, None)  # written with the body, below
        for name, value in extra.items():
            msg[name] = value
    except MessageError:
        raise
    except (ValueError, TypeError, IndexError) as exc:  # the email package's refusals
        raise MessageError(f"invalid header: {exc}") from exc
    sender = _single_address(msg["From"], "MAIL_FROM")
    recipient = _single_address(msg["To"], "the recipient")
    if msg["Reply-To"] is not None:
        _single_address(msg["Reply-To"], "Reply-To")
    # Quoted-printable keeps every line short and 7-bit: any server accepts it.
    msg.set_content(row.text_body, charset="utf-8", cte="quoted-printable")
    if row.html_body:
        msg.add_alternative(row.html_body, subtype="html", charset="utf-8", cte="quoted-printable")
    if language is not None:
        # The language the letter was written in (pbem/letters/send.py), for the readers and
        # clients that drop the HTML's <html lang>. After the body: set_content() clears every
        # Content-* header, and add_alternative() moves them into the first part.
        msg[CONTENT_LANGUAGE] = language
    # The envelope sender names the row (VERP): its bounce says which email failed.
    mail_from = bounce_address(cfg, row.id) if row.id is not None else sender.addr_spec
    return msg, Envelope(mail_from=mail_from, rcpt_to=recipient.addr_spec)


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
        if name.lower() == CONTENT_LANGUAGE.lower():
            if not _LANGUAGE_TAG.match(value):
                raise MessageError(f"header {name} must be one language tag, like fr or en-GB")
            name = CONTENT_LANGUAGE
        if name.lower() in _VERBATIM:
            problem = verbatim_problem(name, value)
            if problem:
                raise MessageError(f"header {name} {problem}")
        clean[name] = value
    return clean
