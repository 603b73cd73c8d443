"""Addresses from outside: an email address checked and normalised (`check_address`), the key one
mailbox is counted and suppressed by (`canonical_key`), and the key one client is counted by
(`client_key`: an IPv4 address, or an IPv6 /64).

Email addresses are read by email-validator, offline (no DNS look-up): an address we write to is a
plain mailbox at a domain name. Refused, each with its own sentence: quoted local parts and
address literals (`root@[127.0.0.1]`: relays disagree on them, and a literal aims our mail at any
host), `%` and `!` before the @ (old source routing: `u%h@relay` hands the mail on to `h`),
letters outside ASCII before the @ (not every relay speaks SMTPUTF8), and the reserved names that
no mail from the internet reaches (`.local`, `.localhost`, `.invalid`, `.onion`, `.arpa`; `.test`
stays allowed: the test suite and the demo write to it, and no relay delivers it anywhere). An
internationalised domain is stored in its ASCII (IDNA) form, the only one every relay and header
takes; the part before the @ is stored as typed.
"""
from __future__ import annotations

import ipaddress

from email_validator import SPECIAL_USE_DOMAIN_NAMES, EmailNotValidError, ValidatedEmail, validate_email

from pbem.i18n import gettext, lazy, quoted

MAX_ADDRESS_LENGTH = 254  # RFC 5321's path limit, less the angle brackets
MAX_INPUT_LENGTH = 320  # longer than any address: refused before it is parsed
MAX_SHOWN = 60  # characters of a refused address said back in its sentence
GMAIL_DOMAINS = frozenset({"gmail.com", "googlemail.com"})
IPV6_CLIENT_PREFIX = 64  # one household or one server: a /64 is handed out whole

NOT_AN_ADDRESS = lazy("%(address)s is not an email address like ann@example.com.")
QUOTED = lazy("%(address)s: write the address without quotation marks, like ann@example.com.")
DOMAIN_LITERAL = lazy("%(address)s: write the address with its domain name, like ann@example.com; "
                      "we do not write to an IP address in brackets.")
ROUTED = lazy("%(address)s: an address with %% or ! before the @ hands the mail on to another "
              "server; write the mailbox's own address, like ann@example.com.")
NOT_ASCII_LOCAL = lazy("%(address)s: the part before the @ may not hold accented or non-Latin "
                       "letters, which not every mail server can deliver.")
RESERVED_DOMAIN = lazy("%(address)s: addresses at .%(name)s are reserved, and no email from the "
                       "internet reaches them; check the address.")


class AddressRefused(ValueError):
    """An address we do not write to: `reason` is the msgid, `sentence` says it in the current
    language (the address said back, cut short)."""

    def __init__(self, reason: str, address: str, reserved: str = "") -> None:
        super().__init__(reason)
        self.reason, self.address, self.reserved = reason, address, reserved

    @property
    def sentence(self) -> str:
        shown = self.address if len(self.address) <= MAX_SHOWN else self.address[:MAX_SHOWN - 1] + "…"
        return gettext(self.reason, address=quoted(shown), name=self.reserved)

    def __str__(self) -> str:
        return self.sentence


def _validated(address: str) -> ValidatedEmail:
    """email-validator's reading of `address`, offline; EmailNotValidError if it is none."""
    return validate_email(address, check_deliverability=False, allow_quoted_local=False,
                          allow_domain_literal=False, allow_display_name=False, allow_smtputf8=False,
                          allow_empty_local=False, test_environment=True)


def _reserved(domain: str) -> str | None:
    """The reserved name `domain` ends with ("local", "localhost"...), if any (`.test` is fine)."""
    name = domain.strip().lower().rstrip(".")
    return next((d for d in SPECIAL_USE_DOMAIN_NAMES
                 if d != "test" and (name == d or name.endswith("." + d))), None)


def check_address(text: str) -> str:
    """`text` as an address we write to: the part before the @ as typed, the domain in its
    lower-case ASCII form (`Ann@Bücher.de` -> `Ann@xn--bcher-kva.de`); AddressRefused otherwise."""
    address = text.strip()
    if not address or len(address) > MAX_INPUT_LENGTH:
        raise AddressRefused(NOT_AN_ADDRESS, address)
    local, at, domain = address.rpartition("@")
    if '"' in address:
        raise AddressRefused(QUOTED, address)
    if domain.startswith("[") or domain.endswith("]"):
        raise AddressRefused(DOMAIN_LITERAL, address)
    if "%" in local or "!" in local:
        raise AddressRefused(ROUTED, address)
    if any(c.isalpha() and not c.isascii() for c in local):
        raise AddressRefused(NOT_ASCII_LOCAL, address)
    try:
        checked = _validated(address)
    except EmailNotValidError:
        reserved = _reserved(domain) if at else None
        raise AddressRefused(RESERVED_DOMAIN if reserved else NOT_AN_ADDRESS, address, reserved or "") from None
    normalised = f"{local}@{checked.ascii_domain}"
    if len(normalised) > MAX_ADDRESS_LENGTH:  # the ASCII form of a long internationalised domain
        raise AddressRefused(NOT_AN_ADDRESS, address)
    return normalised


def canonical_key(address: str) -> str:
    """The key one mailbox is counted and suppressed by: lower case, the domain in ASCII, no
    `+tag` (on every domain: most providers deliver `ann+x@` to `ann@`), and on Gmail no dots
    (`A.nn+x@googlemail.com` -> `ann@gmail.com`). Never stored in place of the address."""
    text = address.strip()[:MAX_INPUT_LENGTH]
    try:
        checked = _validated(text)
        local, domain = checked.local_part.lower(), checked.ascii_domain.lower()
    except EmailNotValidError:  # not one we write to: still one key per spelling, lower case
        local, _at, domain = text.lower().rpartition("@")
        if not _at:
            return text.lower()
    local = local.split("+", 1)[0] or local  # "+x@" alone stays itself
    if domain in GMAIL_DOMAINS:
        local, domain = local.replace(".", "") or local, "gmail.com"
    return f"{local}@{domain}"


def client_key(ip: str) -> str:
    """The key one client is counted by: an IPv4 address as it is (an IPv4-mapped IPv6 address
    too), an IPv6 address as its /64 network (a host is handed a whole /64 and picks any address
    in it), anything else lower-cased and cut short ("unknown", a socket path)."""
    text = ip.strip()[:64]
    try:
        parsed = ipaddress.ip_address(text.split("%", 1)[0])  # without an IPv6 zone ("%eth0")
    except ValueError:
        return text.lower()
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network((parsed, IPV6_CLIENT_PREFIX), strict=False))
    return str(parsed)
