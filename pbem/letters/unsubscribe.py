"""Unsubscribe links: one signed, non-expiring token per seat, and the RFC 8058 headers.

The token carries the seat's link nonce, so a change of address (a new nonce) revokes the old
owner's unsubscribe links as it revokes their move links.

An unsubscribe stops reminders and event emails of that seat (that game); turn emails and the
messages about the player's own seat always go. Every email to a player carries the headers
(`pbem.letters.send` adds them), turn emails included: their one-click link stops the reminders
and event emails, not the game. Admins' emails have none.
"""
from __future__ import annotations

from itsdangerous import BadSignature, URLSafeSerializer

from pbem.config import Config
from pbem.models import Seat

UNSUBSCRIBE_SALT = "korsar.unsubscribe"


def _serializer(cfg: Config) -> URLSafeSerializer:
    return URLSafeSerializer([*cfg.SECRET_KEY_FALLBACKS, cfg.SECRET_KEY], salt=UNSUBSCRIBE_SALT)


def sign_unsubscribe(cfg: Config, seat: Seat) -> str:
    return str(_serializer(cfg).dumps([seat.game_id, seat.id, seat.link_nonce]))


def read_unsubscribe(cfg: Config, token: str) -> tuple[int, int, str] | None:
    """(game id, seat id, link nonce) of a genuine token, else None."""
    try:
        payload = _serializer(cfg).loads(token)
    except BadSignature:
        return None
    if (isinstance(payload, list) and len(payload) == 3
            and all(isinstance(x, int) and not isinstance(x, bool) for x in payload[:2])
            and isinstance(payload[2], str)):
        return payload[0], payload[1], payload[2]
    return None


def unsubscribe_url(cfg: Config, seat: Seat) -> str:
    return f"{cfg.BASE_URL}/u/{sign_unsubscribe(cfg, seat)}"

