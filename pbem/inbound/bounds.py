"""The bounds of a received email, checked on the raw bytes before any parsing, and on the parsed
tree before any part is decoded; `Rejected` past one.

Every bound is far above what a real reply reaches and far below what makes the email package
slow: a Subject of 12,000 encoded-words made it allocate 5 GB, MIME nested a thousand deep ran
out of recursion, nested HTML tags were quadratic. Over a bound, `Rejected` (a 5xx: the sender
must not retry) before the email package sees the message.
"""
from __future__ import annotations

import re
from email.message import Message

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
_LEAF_TYPES = (b"text/", b"image/", b"application/", b"audio/", b"video/", b"font/", b"model/")
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n|$)")
_ENCODED_WORD = re.compile(rb"=\?[^?]*\?[bBqQ]\?")  # its start: "=?charset?q?"
_FIELD_NAME = re.compile(rb"From |[\x21-\x39\x3b-\x7e]*:")  # a header line, as the email package reads one
# A field "Content-...:" with its continuation lines, at the start of any line (any line ending:
# the email package takes a lone CR too).
_MIME_FIELD = re.compile(rb"(?i)(?:^|(?<=[\r\n]))content-([!-9;-~]*):([^\r\n]*(?:(?:\r\n|\r|\n)[ \t][^\r\n]*)*)")


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
