"""DKIM signing at delivery (dkimpy), for an operator whose relay does not sign: on when
DKIM_SELECTOR, DKIM_DOMAIN and DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE) are set. The
signature covers the headers a reader sees and the ones that keep a thread and an unsubscribe
link honest; the DNS records it needs are in docs/deployment.md."""
from __future__ import annotations

import functools
from dataclasses import dataclass

import dkim

from pbem.config import Config

# RFC 6376 5.4: From is required; the rest are what a forger would want to change.
SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"in-reply-to", b"references",
                  b"reply-to", b"list-unsubscribe", b"list-unsubscribe-post", b"mime-version",
                  b"content-type", b"auto-submitted")


@dataclass(frozen=True)
class Signer:
    """The key one process signs every email with."""

    selector: bytes
    domain: bytes
    private_key: bytes

    def sign(self, message: bytes) -> bytes:
        """`message` (CRLF lines) with its DKIM-Signature header in front."""
        present = [h for h in SIGNED_HEADERS if _has_header(message, h)]
        signature = dkim.sign(message, self.selector, self.domain, self.private_key,
                              include_headers=present, canonicalize=(b"relaxed", b"relaxed"))
        return bytes(signature) + message


def _has_header(message: bytes, name: bytes) -> bool:
    head = message.split(b"\r\n\r\n", 1)[0].lower()
    return head.startswith(name + b":") or b"\r\n" + name + b":" in head


def signer(cfg: Config) -> Signer | None:
    """The configured signer (None: DKIM is off)."""
    if not (cfg.DKIM_SELECTOR and cfg.DKIM_DOMAIN and cfg.DKIM_PRIVATE_KEY):
        return None
    return _signer(cfg.DKIM_SELECTOR, cfg.DKIM_DOMAIN, cfg.DKIM_PRIVATE_KEY)


@functools.lru_cache(maxsize=4)
def _signer(selector: str, domain: str, private_key: str) -> Signer:
    return Signer(selector.encode("ascii"), domain.encode("idna"), private_key.encode("ascii"))
