"""Reading one received email, bounded: its size and shape checked on the raw bytes before any
parsing, then whether a machine sent it, its one sender, our reply addresses among its
recipients, the Message-IDs it answers, and its text (text/plain preferred, else its HTML
converted without its quotes; any charset decoded, format=flowed unwrapped, attachments ignored).

Every bound is far above what a real reply reaches and far below what makes the email package
slow: a Subject of 12,000 encoded-words made it allocate 5 GB, MIME nested a thousand deep ran
out of recursion, nested HTML tags were quadratic. Over a bound, `Rejected` (a 5xx: the sender
must not retry) before the email package sees the message. The message is parsed with the
`compat32` policy, whose header handling is plain string work: the structured header parsers of
`policy.default` are super-linear (a 1 kB Content-Type of words costs 70 ms, nested comments
raise RecursionError), so only the one From field goes through `email.headerregistry`, bounded.
"""
from __future__ import annotations

import email
import email.policy
import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from email.headerregistry import AddressHeader
from email.message import Message
from email.policy import compat32
from email.utils import parseaddr

from pbem.inbound.html_text import html_to_text

# A reply is a few lines; anything bigger is refused by the SMTP receiver and ignored here.
MAX_MESSAGE_BYTES = 1_000_000
# The header section: a reply relayed by Microsoft 365 and two more hops carries about 30 kB.
MAX_HEADER_BYTES = 128_000
# Header fields: a reply through Gmail or Microsoft 365 has 30 to 120 (Received, ARC, X-MS-...).
MAX_HEADER_FIELDS = 300
# One field unfolded: Microsoft's X-Microsoft-Antispam-Message-Info and a long References
# (100 Message-IDs) stay under 8 kB.
MAX_FIELD_BYTES = 16_000
# RFC 2047 encoded-words ("=?utf-8?q?...?=") in the whole header section: a long Subject and a
# few display names use a dozen; decoding each is what cost gigabytes.
MAX_ENCODED_WORDS = 200
# MIME: a reply is mixed > alternative > related (3 levels); a forwarded message adds its own.
MAX_MIME_DEPTH = 10
MAX_MIME_PARTS = 100
# Before parsing, counted on the raw bytes: Content-Type fields that may open a container
# (multipart/*, message/*, or anything unclear) bound the depth, lines starting with "--"
# bound the parts (a signature separator or an "-----Original Message-----" counts too).
MAX_RAW_CONTAINERS = 20
MAX_RAW_DELIMITER_LINES = 1_000
# Fields "Content-...:" anywhere (the MIME fields the email package reads while it parses): one
# and all together. A Content-Type is ~80 bytes; a long attachment name in RFC 2231 ~1 kB.
MAX_MIME_FIELD_BYTES = 2_000
MAX_MIME_FIELDS_BYTES = 32_000
# Lines of the whole message: the email package's cost is per line (times the MIME depth); a
# reply with a 1 MB photo base64-encoded has 14,000.
MAX_LINES = 40_000
# The HTML of an HTML-only reply: a Gmail or Outlook reply quoting a turn email is ~100 kB.
MAX_HTML_CHARS = 300_000
# Only the first part of a long text is read for a move or words to a partner.
MAX_TEXT_CHARS = 20_000
# The Subject is only logged and shown: its first part is decoded.
MAX_SUBJECT_CHARS = 500
# The one From field (a name and an address, ~100 bytes) is parsed by email.headerregistry,
# whose parser is quadratic on hostile input (16 kB of '"': 7 s; 512 bytes: under 50 ms).
MAX_FROM_BYTES = 512
# A Message-ID is at most 255 characters where we store it; a reply names at most this many.
MAX_ID_CHARS = 255
MAX_ANSWERED_IDS = 20
# Precedence values of mailing lists and automatic answers (RFC 3834 2, common practice).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply", "auto-reply"}
_LEAF_TYPES = (b"text/", b"image/", b"application/", b"audio/", b"video/", b"font/", b"model/")
_BODY_TYPES = ("text/plain", "text/html")  # in the order a body is preferred
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_TEXT_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")  # keeps \t and \n
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_ENCODED_WORD = re.compile(rb"=\?[^?]*\?[bBqQ]\?")  # its start: "=?charset?q?"
_FIELD_NAME = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:")  # a header line, as the email package reads one
# A field "Content-...:" with its continuation lines, at the start of any line (any line ending:
# the email package takes a lone CR too).
_MIME_FIELD = re.compile(rb"(?i)(?:^|(?<=[\r\n]))content-([!-9;-~]*):([^\r\n]*(?:(?:\r\n|\r|\n)[ \t][^\r\n]*)*)")
# An address as plain text ("local@domain"); it starts only after a separator (linear on any input).
_PLAIN_ADDRESS = re.compile(r"(?<![^\s@<>()\[\],;:\"\\])[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+")


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


class Rejected(ValueError):
    """A message refused before it is read: over a bound, or malformed. `code` is the SMTP
    reply code the receiver answers (5xx: the sender must not retry); `reason` is for the log
    (never a token or a whole address)."""

    def __init__(self, reason: str, code: int = 554) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


class TooLarge(Rejected):
    """A message, or a part of it, over a size bound."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, code=552)


def normalise_address(address: str) -> str:
    return parseaddr(address)[1].strip().lower()


def read_message(raw: bytes, *, envelope_from: str | None = None,
                 envelope_rcpts: Iterable[str] = (), authserv_id: str = "") -> Inbound:
    """Parse `raw` within the bounds above (`Rejected` past one). `envelope_from` is the SMTP
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
    headers = [(name, _header_text(value)) for name, value in msg.raw_items()]
    from_addr, sender_problem = sender(values(headers, "From"))
    message_id = _clean_id(first(headers, "Message-ID")) or "<sha256-" + hashlib.sha256(raw).hexdigest() + ">"
    recipients = [*envelope_rcpts]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        recipients += [address for value in values(headers, name) for address in _PLAIN_ADDRESS.findall(value)]
    return Inbound(
        message_id=message_id, from_addr=from_addr,
        recipients=tuple(clean for a in recipients if (clean := _CONTROL.sub("", a).strip())),
        subject=decode_subject(first(headers, "Subject")), text=_body_or_rejected(msg),
        machine=machine_reason(headers, envelope_from, _content_type(msg)),
        dmarc_failed=dmarc_failed(headers, authserv_id), sender_problem=sender_problem,
        answered_ids=answered_ids(first(headers, "In-Reply-To"), first(headers, "References")))


# -- bounds on the raw bytes ------------------------------------------------------------------

def check_header_section(raw: bytes) -> None:
    """The header section's size, field count, field lengths and encoded-words, read the way
    the email package reads it (a field starts "Name:", a continuation with a space or tab, the
    first other line ends the section), before it decodes anything."""
    fields = 0
    field_bytes = 0
    size = 0
    for match in _LINE.finditer(raw):
        line = match.group()
        content = line.rstrip(b"\r\n")
        if not content:
            break
        if content[:1] in (b" ", b"\t"):
            field_bytes += len(content)
        elif _FIELD_NAME.match(content):
            fields += 1
            field_bytes = len(content)
        else:
            break
        size += len(line)
        if fields > MAX_HEADER_FIELDS:
            raise Rejected(f"more than {MAX_HEADER_FIELDS} header fields")
        if field_bytes > MAX_FIELD_BYTES:
            raise TooLarge(f"a header field over {MAX_FIELD_BYTES} bytes")
        if size > MAX_HEADER_BYTES:
            raise TooLarge(f"a header section over {MAX_HEADER_BYTES} bytes")
    if len(_ENCODED_WORD.findall(raw, 0, size)) > MAX_ENCODED_WORDS:
        raise Rejected(f"more than {MAX_ENCODED_WORDS} encoded-words in the header section")


def check_mime_shape(raw: bytes) -> None:
    """Bounds on the MIME structure counted on the raw bytes (over-counting, never under): the
    email package's cost grows with nesting depth times lines, and with the number of parts."""
    lines = raw.count(b"\n") + raw.count(b"\r") - raw.count(b"\r\n")
    if lines > MAX_LINES:
        raise Rejected(f"more than {MAX_LINES} lines")
    containers = total = 0
    for match in _MIME_FIELD.finditer(raw):
        size = match.end() - match.start()
        total += size
        if size > MAX_MIME_FIELD_BYTES:
            raise TooLarge(f"a Content- field over {MAX_MIME_FIELD_BYTES} bytes")
        if total > MAX_MIME_FIELDS_BYTES:
            raise TooLarge(f"Content- fields over {MAX_MIME_FIELDS_BYTES} bytes")
        value = re.sub(rb"\s+", b" ", match.group(2)).strip().lower()
        if match.group(1).lower() == b"type" and not value.startswith(_LEAF_TYPES):
            containers += 1  # multipart/*, message/*, or unclear: it may nest
    if containers > MAX_RAW_CONTAINERS:
        raise Rejected(f"more than {MAX_RAW_CONTAINERS} MIME containers")
    delimiters = raw.count(b"\n--") + raw.count(b"\r--") + int(raw.startswith(b"--"))
    if delimiters > MAX_RAW_DELIMITER_LINES:
        raise Rejected(f"more than {MAX_RAW_DELIMITER_LINES} MIME boundary lines")


def check_mime_tree(msg: Message) -> None:
    """The exact depth and part count on the parsed tree (made small by `check_mime_shape`), and
    every part's header fields within the bounds of the message's own, before any is decoded."""
    parts = 0
    encoded_words = 0
    stack: list[tuple[Message, int]] = [(msg, 1)]
    while stack:
        part, depth = stack.pop()
        parts += 1
        if depth > MAX_MIME_DEPTH:
            raise Rejected(f"MIME nested deeper than {MAX_MIME_DEPTH}")
        if parts > MAX_MIME_PARTS:
            raise Rejected(f"more than {MAX_MIME_PARTS} MIME parts")
        if part is not msg:  # the message's own fields were counted on the raw bytes
            fields = list(part.raw_items())
            if len(fields) > MAX_HEADER_FIELDS:
                raise Rejected(f"more than {MAX_HEADER_FIELDS} header fields in a MIME part")
            for name, value in fields:
                if len(name) + len(value) > MAX_FIELD_BYTES:
                    raise TooLarge(f"a header field over {MAX_FIELD_BYTES} bytes in a MIME part")
                encoded_words += len(_ENCODED_WORD.findall(value.encode("utf-8", "surrogateescape")))
            if encoded_words > MAX_ENCODED_WORDS:
                raise Rejected(f"more than {MAX_ENCODED_WORDS} encoded-words in MIME parts")
        payload = part.get_payload()
        if isinstance(payload, list):
            stack.extend((child, depth + 1) for child in payload if isinstance(child, Message))


# -- headers ----------------------------------------------------------------------------------

def _header_text(value: str) -> str:
    """A raw header value as text: unfolded, its raw 8-bit bytes read as UTF-8 (RFC 6532; the
    email package keeps them as surrogates), nothing decoded yet."""
    text = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return re.sub(r"\r\n|\r|\n", "", text)


def values(headers: list[tuple[str, str]], name: str) -> list[str]:
    return [v for k, v in headers if k.lower() == name.lower()]


def first(headers: list[tuple[str, str]], name: str) -> str:
    return next(iter(values(headers, name)), "")


def decode_subject(value: str) -> str:
    """The Subject decoded (RFC 2047), from its first MAX_SUBJECT_CHARS characters only."""
    try:
        decoded = str(email.policy.default.header_factory("Subject", value[:MAX_SUBJECT_CHARS]))
    except Exception:  # noqa: BLE001  (the email package's parser raises anything on garbage)
        decoded = value[:MAX_SUBJECT_CHARS]
    return " ".join(_CONTROL.sub(" ", decoded).split())[:MAX_SUBJECT_CHARS]


def sender(from_values: list[str]) -> tuple[str, str | None]:
    """(the address, lower case, or "") and why not, for the values of the From fields: exactly
    one field with exactly one plain address, no group, no route, no other address anywhere in
    it (a display name "seat@x" before <evil@y> is what a reader sees as the sender)."""
    if len(from_values) != 1:
        return "", f"{len(from_values)} From header fields"
    value = from_values[0]
    if len(value) > MAX_FROM_BYTES:
        return "", f"From longer than {MAX_FROM_BYTES} characters"
    try:
        header = email.policy.default.header_factory("From", value)
    except Exception:  # noqa: BLE001  (the email package's parser raises anything on garbage)
        return "", "From cannot be parsed"
    if not isinstance(header, AddressHeader):
        return "", "From cannot be parsed"
    problem = _sender_problem(value, header)
    return ("", problem) if problem else (header.addresses[0].addr_spec.lower(), None)


def _sender_problem(value: str, header: AddressHeader) -> str | None:
    # "J. Smith <j@x>" (a period in an unquoted name) is common and harmless; other defects are not.
    defects = [str(d) for d in getattr(header, "defects", ()) if "period in 'phrase'" not in str(d)]
    if any(group.display_name is not None for group in header.groups):
        return "a group in From"
    if len(header.addresses) != 1:
        return f"{len(header.addresses)} addresses in From"
    if any("route" in d for d in defects):
        return "a route in From"
    if defects:
        return "From is malformed"
    address = header.addresses[0]
    own = address.addr_spec.lower()
    # A name that is the sender's own address ("ann@x" <ann@x>, what some phones send) deceives no one.
    if any(found.lower() != own for found in _PLAIN_ADDRESS.findall(address.display_name)):
        return "an address in the display name of From"
    if not _PLAIN_ADDRESS.fullmatch(own) or {found.lower() for found in _PLAIN_ADDRESS.findall(value)} != {own}:
        return "From is not one plain address"
    return None


def _clean_id(value: str) -> str:
    return _CONTROL.sub("", value).strip()[:MAX_ID_CHARS]


def answered_ids(in_reply_to: str, references: str) -> tuple[str, ...]:
    """The Message-IDs a reply answers: In-Reply-To's, then References' newest first (its last
    is the parent), cleaned, without repeats, at most MAX_ANSWERED_IDS."""
    found: list[str] = []
    for ids in (_ids(in_reply_to), _ids(references)[::-1]):
        for message_id in ids:
            clean = _clean_id(message_id)
            if clean and clean not in found:
                found.append(clean)
    return tuple(found[:MAX_ANSWERED_IDS])


def _ids(value: str) -> list[str]:
    return re.findall(r"<[^<>]*>", value) or value.split()


def _content_type(part: Message) -> str:
    return part.get_content_type()  # compat32: the value's first word, lower case (RFC 2045 default)


def machine_reason(headers: list[tuple[str, str]], envelope_from: str | None, content_type: str) -> str | None:
    """Why this message comes from a machine (RFC 3834 auto-replies, RFC 3464 bounces), or None."""
    auto = first(headers, "Auto-Submitted").strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {_CONTROL.sub('', auto)[:40]}"
    precedence = first(headers, "Precedence").strip().lower()
    if precedence in _AUTO_PRECEDENCE:
        return f"Precedence: {precedence}"
    if envelope_from is not None and envelope_from.strip() in ("", "<>"):
        return "a bounce (empty envelope sender)"
    if any(v.strip() == "<>" for v in values(headers, "Return-Path")):
        return "a bounce (Return-Path <>)"
    if content_type == "multipart/report":
        return "a delivery report"
    if first(headers, "X-Autoreply") or first(headers, "X-Autorespond"):
        return "an auto-reply"
    return None


# -- Authentication-Results (RFC 8601 2.2) ----------------------------------------------------

# A quoted-string, a separator, or a token (RFC 2045: "mx.example.org" and "header.from" are one).
_AR_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[;=/]|[^\s;=/"()]+')


def dmarc_failed(headers: list[tuple[str, str]], authserv_id: str) -> bool:
    """DMARC failed according to an Authentication-Results header of our own server (others'
    are anyone's words). Ours: its authserv-id is `authserv_id` or a host under it, compared
    without case (RFC 8601 2.5; a forged one can only get its own message refused)."""
    ours = authserv_id.strip().lower().rstrip(".")
    if not ours:
        return False
    for value in values(headers, "Authentication-Results"):
        server, results = authentication_results(value)
        if (server == ours or server.endswith("." + ours)) and ("dmarc", "fail") in results:
            return True
    return False


def authentication_results(value: str) -> tuple[str, list[tuple[str, str]]]:
    """(authserv-id lower case, [(method, result)...]) of one Authentication-Results value:
    comments (nested) dropped, an optional version after the authserv-id skipped, a resinfo it
    cannot read skipped rather than the whole header ignored."""
    tokens = _AR_TOKEN.findall(_without_comments(value))
    if not tokens or tokens[0] in ";=/":
        return "", []
    server = tokens[0].strip('"').lower().rstrip(".")
    results: list[tuple[str, str]] = []
    for resinfo in _split(tokens[1:], ";")[1:]:
        # methodspec = method [ "/" version ] "=" result
        if len(resinfo) >= 3 and resinfo[1] == "=":
            results.append((resinfo[0].lower(), resinfo[2].strip('"').lower()))
        elif len(resinfo) >= 5 and resinfo[1] == "/" and resinfo[3] == "=":
            results.append((resinfo[0].lower(), resinfo[4].strip('"').lower()))
    return server, results


def _split(tokens: list[str], separator: str) -> list[list[str]]:
    groups: list[list[str]] = [[]]
    for token in tokens:
        if token == separator:
            groups.append([])
        else:
            groups[-1].append(token)
    return groups


def _without_comments(value: str) -> str:
    """`value` with its (nested) comments replaced by a space, quoted strings kept (RFC 5322 CFWS)."""
    out: list[str] = []
    depth = 0
    quoted = escaped = False
    for char in value:
        if escaped:
            escaped = False
            if depth == 0:
                out.append(char)
            continue
        if char == "\\":
            escaped = True
            if depth == 0:
                out.append(char)
        elif quoted:
            quoted = char != '"'
            out.append(char)
        elif char == "(":
            depth += 1
        elif char == ")" and depth:
            depth -= 1
            if depth == 0:
                out.append(" ")
        elif depth == 0:
            quoted = char == '"'
            out.append(char)
    return "".join(out)


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
