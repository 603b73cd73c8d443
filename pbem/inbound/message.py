"""Reading one received email: its size, whether a machine sent it, its sender, our reply
addresses among its recipients, and its text (text/plain preferred, HTML converted, any
charset decoded, attachments ignored)."""
from __future__ import annotations

import email
import email.policy
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from email.message import EmailMessage, MIMEPart
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

# A reply is a few lines; anything bigger is refused by the SMTP receiver and ignored here.
MAX_MESSAGE_BYTES = 1_000_000
# Only the first part of a long text is read for a move or words to a partner.
MAX_TEXT_CHARS = 20_000
# Precedence values of mailing lists and automatic answers (RFC 3834 2, common practice).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply", "auto-reply"}


@dataclass(frozen=True)
class Inbound:
    """What the handler needs of one received email."""

    message_id: str
    from_addr: str  # the sender's address, lower-case ("" when there is none)
    recipients: tuple[str, ...]  # envelope recipients first, then To, Cc, Delivered-To
    subject: str
    text: str  # the body in plain text, NFC
    machine: str | None  # why it was sent by a machine (auto-reply, bounce): never answered
    dmarc_failed: bool  # our own receiving server said DMARC failed for the From domain


class TooLarge(ValueError):
    """A message over MAX_MESSAGE_BYTES."""


def normalise_address(address: str) -> str:
    return parseaddr(address)[1].strip().lower()


def read_message(raw: bytes, *, envelope_from: str | None = None,
                 envelope_rcpts: Iterable[str] = (), authserv_id: str = "") -> Inbound:
    """Parse `raw`; TooLarge over the size limit. `envelope_from` is the SMTP MAIL FROM ("" for
    a bounce); `authserv_id` names our own server in Authentication-Results (RFC 8601)."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise TooLarge(f"message of {len(raw)} bytes")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    headers = [(k, str(v)) for k, v in msg.items()] if _headers_readable(msg) else []
    get = _getter(headers)
    message_id = get("Message-ID").strip() or "<sha256-" + hashlib.sha256(raw).hexdigest() + ">"
    recipients = [*envelope_rcpts]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        recipients += [addr for _, addr in getaddresses([v for k, v in headers if k.lower() == name.lower()])]
    return Inbound(
        message_id=message_id[:255], from_addr=normalise_address(get("From")),
        recipients=tuple(a for a in recipients if a),
        subject=get("Subject"), text=body_text(msg),
        machine=machine_reason(headers, envelope_from, msg.get_content_type()),
        dmarc_failed=dmarc_failed(headers, authserv_id))


def _headers_readable(msg: EmailMessage) -> bool:
    try:
        for _ in msg.items():
            pass
        return True
    except (ValueError, TypeError, IndexError):  # a header the email package cannot parse
        return False


def _getter(headers: list[tuple[str, str]]) -> Callable[[str], str]:
    def get(name: str) -> str:
        return next((v for k, v in headers if k.lower() == name.lower()), "")
    return get


def machine_reason(headers: list[tuple[str, str]], envelope_from: str | None, content_type: str) -> str | None:
    """Why this message comes from a machine (RFC 3834 auto-replies, RFC 3464 bounces), or None."""
    get = _getter(headers)
    auto = get("Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = get("Precedence").strip().lower()
    if precedence in _AUTO_PRECEDENCE:
        return f"Precedence: {precedence}"
    if envelope_from is not None and envelope_from.strip() in ("", "<>"):
        return "a bounce (empty envelope sender)"
    if any(k.lower() == "return-path" and v.strip() == "<>" for k, v in headers):
        return "a bounce (Return-Path <>)"
    if content_type == "multipart/report":
        return "a delivery report"
    if get("X-Autoreply") or get("X-Autorespond"):
        return "an auto-reply"
    return None


def dmarc_failed(headers: list[tuple[str, str]], authserv_id: str) -> bool:
    """DMARC failed according to an Authentication-Results header of our own server (others'
    are anyone's words)."""
    if not authserv_id:
        return False
    for name, value in headers:
        if name.lower() != "authentication-results":
            continue
        server, _, results = value.partition(";")
        if server.strip().split()[0:1] == [authserv_id.lower()] or server.strip().lower() == authserv_id.lower():
            if re.search(r"\bdmarc\s*=\s*fail\b", results, re.I):
                return True
    return False


def body_text(msg: EmailMessage) -> str:
    """The message's text: its text/plain part, else its HTML converted; "" when it has none."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    text = _decoded(part)
    if part.get_content_type() == "text/html":
        text = html_to_text(text)
    return unicodedata.normalize("NFC", text.replace("\r\n", "\n"))[:MAX_TEXT_CHARS]


def _decoded(part: MIMEPart) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeDecodeError, AssertionError):  # an unknown or lying charset
        payload = part.get_payload(decode=True)
        return payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
    return content if isinstance(content, str) else ""


class _TextOfHtml(HTMLParser):
    """Text of an HTML reply: blocks become lines; scripts, styles and quoted blocks (blockquote,
    Gmail's and Outlook's quote containers) are left out."""

    _BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "table", "hr"}
    _SKIP = {"script", "style", "head", "title", "blockquote"}
    _QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "protonmail_quote")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.stack: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(v or "" for k, v in attrs if k in ("class", "id"))
        skip = tag in self._SKIP or any(c in classes for c in self._QUOTE_CLASSES) or "divRplyFwdMsg" in classes
        if tag not in ("br", "hr", "img", "meta", "link", "input"):
            self.stack.append((tag, skip))
            if skip:
                self.skip_depth += 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if all(open_tag != tag for open_tag, _ in self.stack):
            return  # a stray end tag (common in Outlook and Gmail HTML) must not close a quote
        while self.stack:
            open_tag, skip = self.stack.pop()
            if skip:
                self.skip_depth -= 1
            if open_tag == tag:
                break
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth == 0:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _TextOfHtml()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
