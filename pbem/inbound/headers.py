"""The header fields of a received email, read as text: its one sender (bounded, through
`email.headerregistry`), the recipients and the Message-IDs it answers, whether a machine sent
it, and what our own server's Authentication-Results say of DMARC (RFC 8601)."""
from __future__ import annotations

import email.policy
import hashlib
import re
from collections.abc import Iterable
from email.headerregistry import AddressHeader

from pbem.inbound.bounds import MAX_ANSWERED_IDS, MAX_FROM_BYTES, MAX_ID_CHARS, MAX_SUBJECT_CHARS

# Precedence values of mailing lists and automatic answers (RFC 3834 2, common practice).
_AUTO_PRECEDENCE = {"bulk", "junk", "list", "auto_reply", "auto-reply"}
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
# An address as plain text ("local@domain"); it starts only after a separator (linear on any input).
_PLAIN_ADDRESS = re.compile(r"(?<![^\s@<>()\[\],;:\"\\])[^\s@<>()\[\],;:\"\\]+@[^\s@<>()\[\],;:\"\\]+")

def message_id_of(headers: list[tuple[str, str]], raw: bytes) -> str:
    """The Message-ID cleaned, or one made of the message's hash (a Message-ID acts once)."""
    return _clean_id(first(headers, "Message-ID")) or "<sha256-" + hashlib.sha256(raw).hexdigest() + ">"


def recipients_of(headers: list[tuple[str, str]], envelope_rcpts: Iterable[str]) -> tuple[str, ...]:
    """The envelope recipients first, then every plain address of To, Cc, Delivered-To and
    X-Original-To, without control characters."""
    recipients = [*envelope_rcpts]
    for name in ("To", "Cc", "Delivered-To", "X-Original-To"):
        recipients += [address for value in values(headers, name) for address in _PLAIN_ADDRESS.findall(value)]
    return tuple(clean for a in recipients if (clean := _CONTROL.sub("", a).strip()))


def header_text(value: str) -> str:
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
