"""Reading one received email, bounded: its size and shape checked on the raw bytes before any
parsing, then whether a machine sent it, its one sender, our reply addresses among its
recipients, the Message-IDs it answers, and its text (text/plain preferred, else its HTML
converted without its quotes; any charset decoded, format=flowed unwrapped, attachments ignored).

The bounds (`bounds`) are checked first; the message is then parsed with the `compat32` policy,
whose header handling is plain string work: the structured header parsers of `policy.default`
are super-linear (a 1 kB Content-Type of words costs 70 ms, nested comments raise
RecursionError), so only the one From field goes through `email.headerregistry`, bounded
(`headers.sender`).
"""
from __future__ import annotations

import email
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from email.message import Message
from email.policy import compat32
from email.utils import parseaddr

from pbem.inbound.bounds import (MAX_HTML_CHARS, MAX_MESSAGE_BYTES, MAX_TEXT_CHARS, Rejected, TooLarge,
                                 check_header_section, check_mime_shape, check_mime_tree)
from pbem.inbound.headers import (answered_ids, decode_subject, dmarc_failed, first, header_text,
                                  machine_reason, message_id_of, recipients_of, sender, values)
from pbem.inbound.html_text import html_to_text

_BODY_TYPES = ("text/plain", "text/html")  # in the order a body is preferred
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")  # keeps \t and \n


@dataclass(frozen=True)
class Inbound:
    """What the handler needs of one received email."""

    message_id: str  # no control characters, at most 255 characters
    from_addr: str  # the sender's address, lower-case ("" unless exactly one plain address)
    recipients: tuple[str, ...]  # envelope recipients first, then To, Cc, Delivered-To
    subject: str
    text: str  # the body in plain text, NFC
    machine: str | None  # why it was sent by a machine (auto-reply, bounce): never answered
    dmarc_failed: bool  # our own receiving server said DMARC failed for the From domain
    sender_problem: str | None = None  # why From is not one header with one plain address
    answered_ids: tuple[str, ...] = ()  # In-Reply-To, then References newest first


def normalise_address(address: str) -> str:
    return parseaddr(address)[1].strip().lower()


def read_message(raw: bytes, *, envelope_from: str | None = None,
                 envelope_rcpts: Iterable[str] = (), authserv_id: str = "") -> Inbound:
    """Parse `raw` within the bounds of `bounds` (`Rejected` past one). `envelope_from` is the SMTP
    MAIL FROM ("" for a bounce); `authserv_id` names our own server in Authentication-Results."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message of {len(raw)} bytes")
    check_header_section(raw)
    check_mime_shape(raw)
    try:
        msg = email.message_from_bytes(raw, policy=compat32)
    except Exception as exc:  # noqa: BLE001  (within the bounds it does not happen: say so if it does)
        raise Rejected(f"a message that cannot be parsed ({type(exc).__name__})") from exc
    check_mime_tree(msg)
    headers = [(name, header_text(value)) for name, value in msg.raw_items()]
    from_addr, sender_problem = sender(values(headers, "From"))
    return Inbound(
        message_id=message_id_of(headers, raw), from_addr=from_addr,
        recipients=recipients_of(headers, envelope_rcpts),
        subject=decode_subject(first(headers, "Subject")), text=_body_or_rejected(msg),
        machine=machine_reason(headers, envelope_from, _content_type(msg)),
        dmarc_failed=dmarc_failed(headers, authserv_id), sender_problem=sender_problem,
        answered_ids=answered_ids(first(headers, "In-Reply-To"), first(headers, "References")))



def _content_type(part: Message) -> str:
    return part.get_content_type()  # compat32: the value's first word, lower case (RFC 2045 default)



# -- the body ---------------------------------------------------------------------------------

def _body_or_rejected(msg: Message) -> str:
    try:
        return body_text(msg)
    except Rejected:
        raise
    except Exception as exc:  # noqa: BLE001  (a part the email package cannot decode)
        raise Rejected(f"a body that cannot be read ({type(exc).__name__})") from exc


def body_text(msg: Message) -> str:
    """The message's text: its text/plain part, else its HTML converted; "" when it has none."""
    part = find_body(msg)
    if part is None:
        return ""
    text = _decoded(part)
    if part.get_content_type() == "text/html":
        if len(text) > MAX_HTML_CHARS:
            raise TooLarge(f"an HTML part of {len(text)} characters")
        text = html_to_text(text)
    else:
        text = re.sub(r"\r\n|\r", "\n", text[:2 * MAX_TEXT_CHARS])
        if str(part.get_param("format", "")).lower() == "flowed":
            text = unflow(text, delsp=str(part.get_param("delsp", "")).lower() == "yes")
    text = _TEXT_CONTROL.sub("", unicodedata.normalize("NFC", text))
    return text[:MAX_TEXT_CHARS]


def find_body(msg: Message) -> Message | None:
    """The part that is the message's text, as `EmailMessage.get_body(("plain", "html"))` picks
    it: not an attachment, not inside an attached message; in multipart/related its start part;
    text/plain before text/html, the first of each."""
    found: dict[str, Message] = {}
    stack = [msg]
    while stack:
        part = stack.pop()
        if part.get_content_disposition() == "attachment":
            continue
        content_type = part.get_content_type()
        if content_type in _BODY_TYPES:
            found.setdefault(content_type, part)
            continue
        payload = part.get_payload()
        if part.get_content_maintype() != "multipart" or not isinstance(payload, list):
            continue
        children = [child for child in payload if isinstance(child, Message)]
        if part.get_content_subtype() == "related":
            start = part.get_param("start")
            start_part = next((c for c in children if start and c.get("Content-ID") == start), None)
            children = [start_part or children[0]] if children else []
        stack.extend(reversed(children))  # document order
    return next((found[t] for t in _BODY_TYPES if t in found), None)


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"  # none named: UTF-8 reads ASCII and most 8-bit mail
    try:
        return payload.decode(charset, "replace")
    except LookupError:  # an unknown charset
        return payload.decode("utf-8", "replace")


def unflow(text: str, *, delsp: bool = False) -> str:
    """Text sent as format=flowed (RFC 3676, mutt and Thunderbird) as its writer wrote it: a line
    ending in a space goes on on the next line of the same quote depth, the space-stuffing is
    removed, and the quote depth is kept as ">" marks."""
    out: list[str] = []
    paragraph: list[str] = []
    depth_of_paragraph = 0

    def flush() -> None:
        if paragraph:
            marks = ">" * depth_of_paragraph + " " if depth_of_paragraph else ""
            out.append(marks + "".join(paragraph))
            paragraph.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]  # space-stuffing (and the space after quote marks)
        if paragraph and depth != depth_of_paragraph:
            flush()  # a change of quote depth ends a flowed paragraph (RFC 3676 4.5)
        depth_of_paragraph = depth
        flowed = content.endswith(" ") and content != "-- "  # the signature separator is never flowed
        paragraph.append(content[:-1] if flowed and delsp else content)
        if not flowed:
            flush()
    flush()
    return "\n".join(out)
