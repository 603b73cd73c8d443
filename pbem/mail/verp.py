"""The envelope sender of every email: a signed bounce address naming its outbox row (VERP,
`bounce+<id>-<mac>@REPLY_DOMAIN`), so a bounce says which email, and so which address, failed
whatever the reporting server writes in it. Signed like the reply addresses (pbem/links.py):
80 bits of HMAC, lower case (mail systems may lower-case a local part), any key of
SECRET_KEY and its fallbacks; a token that does not verify names nothing."""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
from email.utils import parseaddr

from pbem.config import Config, reply_domain

BOUNCE_SALT = "korsar.bounce"
BOUNCE_LOCAL_PREFIX = "bounce+"
_TOKEN = re.compile(r"^(\d{1,12})-([a-z2-7]{16})$")
MAX_OUTBOX_ID = 2**31 - 1  # a 32-bit integer column (PostgreSQL refuses a bigger one)


def _mac(key: str, outbox_id: int) -> str:
    digest = hmac.new(key.encode(), f"{BOUNCE_SALT}|{outbox_id}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def bounce_address(cfg: Config, outbox_id: int) -> str:
    """The envelope sender (Return-Path) of outbox row `outbox_id`."""
    return f"{BOUNCE_LOCAL_PREFIX}{outbox_id}-{_mac(cfg.SECRET_KEY, outbox_id)}@{reply_domain(cfg)}"


def is_bounce_address(cfg: Config, address: str) -> bool:
    """Whether `address` is shaped like one of our bounce addresses (signed or not)."""
    local, _, domain = parseaddr(address)[1].lower().rpartition("@")
    return domain == reply_domain(cfg) and local.startswith(BOUNCE_LOCAL_PREFIX)


def bounced_row(cfg: Config, address: str) -> int | None:
    """The outbox row a bounce address names, when its token verifies; None otherwise."""
    if not is_bounce_address(cfg, address):
        return None
    local = parseaddr(address)[1].lower().rpartition("@")[0]
    match = _TOKEN.match(local[len(BOUNCE_LOCAL_PREFIX):])
    if match is None or int(match[1]) > MAX_OUTBOX_ID:
        return None
    outbox_id = int(match[1])
    keys = [cfg.SECRET_KEY, *cfg.SECRET_KEY_FALLBACKS]
    return outbox_id if any(hmac.compare_digest(match[2], _mac(key, outbox_id)) for key in keys) else None


def carries_a_token(cfg: Config, address: str) -> bool:
    """Whether `address` is one of our bounce addresses with a token of our shape (a row and a
    signature), verified or not: a bounce to one that does not verify is a forgery, not a bounce
    address some server stripped of its tag or mangled."""
    if not is_bounce_address(cfg, address):
        return False
    local = parseaddr(address)[1].lower().rpartition("@")[0]
    return _TOKEN.match(local[len(BOUNCE_LOCAL_PREFIX):]) is not None
