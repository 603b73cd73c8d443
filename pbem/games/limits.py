"""Limits against abuse, counted in the database (table rate_event) so they hold across every
web and worker process: games started and invitations sent per verified creator per day,
invitations per invited address per day, and the emails anyone can ask for (a new game's
confirmation link, a "my games" link) per address and per IP per hour. The numbers are
settings (`pbem/config.py` LIMIT_*; docs/deployment.md).

An address is counted by its mailbox (`pbem.addresses.canonical_key`: `victim+1@` and, on
Gmail, `v.ictim@` are `victim@`), an IP by its client (`pbem.addresses.client_key`: an IPv6
/64 is one client, as an IPv4 address is), whatever spelling the caller passes.
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from sqlalchemy import delete, text
from sqlmodel import Session, col, select

from pbem.addresses import canonical_key, client_key
from pbem.config import Config
from pbem import i18n
from pbem.games.errors import REFUSALS, GameError, declare_refusals
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.present.phrases import first_upper
from pbem.zones import zone_in_words
from pbem.models import RateEvent, utcnow

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


@dataclass(frozen=True)
class Limit:
    """At most `number(cfg)` events of `kind` per key within `window`; the key is an email
    address (`per="address"`) or an IP (`per="ip"`)."""

    kind: str
    setting: str  # the Config field holding the number
    window: timedelta
    per: Literal["address", "ip"] = "address"

    def number(self, cfg: Config) -> int:
        return int(getattr(cfg, self.setting))

    def key_of(self, given: str) -> str:
        """What is counted for `given`: its mailbox, or its client."""
        return client_key(given) if self.per == "ip" else canonical_key(given)


GAMES_PER_CREATOR = Limit("game", "LIMIT_GAMES_PER_CREATOR_DAY", DAY)
INVITATIONS_PER_CREATOR = Limit("invite_sent", "LIMIT_INVITATIONS_PER_CREATOR_DAY", DAY)
INVITATIONS_PER_ADDRESS = Limit("invite_received", "LIMIT_INVITATIONS_PER_ADDRESS_DAY", DAY)
# An address's confirmation links and its "my games" links are counted apart (setting up five
# games in an hour must not lock its owner out of "my games"); an IP's together.
CONFIRMATIONS_PER_ADDRESS = Limit("confirm_address", "LIMIT_LINKS_PER_ADDRESS_HOUR", HOUR)
LINKS_PER_ADDRESS = Limit("link_address", "LIMIT_LINKS_PER_ADDRESS_HOUR", HOUR)
LINKS_PER_IP = Limit("link_ip", "LIMIT_LINKS_PER_IP_HOUR", HOUR, per="ip")


# What was refused, one sentence per limit, and when to try again: `when` is the moment in the
# reader's zone, named after it ("1er décembre à 21 h 01 (heure de Paris)").
declare_refusals({
    "limit_game": (lazy("You have started too many games in a short time; please try again after "
                        "%(when)s."), 429),
    "limit_invite_sent": (lazy("You have sent too many invitations in a short time; please try "
                               "again after %(when)s."), 429),
    "limit_invite_received": (lazy("This player has been sent too many invitations today; please "
                                   "invite them again after %(when)s."), 429),
    "limit_confirm_address": (lazy("Too many confirmation links have gone to this address in a "
                                   "short time; please try again after %(when)s."), 429),
    "limit_link_address": (lazy("Too many links to your games have gone to this address in a "
                                "short time; please try again after %(when)s."), 429),
    "limit_link_ip": (lazy("Too many links have been asked for from your connection in a short "
                           "time; please try again after %(when)s."), 429),
    # the limits of pbem/games/unasked_mail.py
    "limit_unasked": (lazy("This address has been sent too many emails it did not ask for today; "
                           "please try again after %(when)s."), 429),
    "limit_invite_pair": (lazy("You have invited this player too often today; please invite them "
                               "again after %(when)s."), 429),
})


class LimitReached(GameError):
    """Too many of something: the page says what was refused (by the limit's kind) and when to
    try again (`retry_at`, naive UTC) in the reader's zone (`zone`: set by the page that knows
    its reader; UTC, said as UTC, otherwise)."""

    status = 429

    def __init__(self, limit: Limit, retry_at: datetime, zone: str | None = None) -> None:
        self.limit = limit
        self.retry_at = retry_at
        self.zone = zone
        super().__init__(f"limit_{limit.kind}", {"when": retry_at})

    def text(self, language: str | None = None) -> str:
        with i18n.using(language if language is not None else i18n.current()):
            when = f"{i18n.format_datetime(self.retry_at, self.zone, 'day')} {zone_in_words(self.zone)}"
            return first_upper(_(REFUSALS[self.code][0], when=when))


def _serialise(session: Session, limit: Limit, key: str) -> None:
    """Two processes counting the same key take turns (PostgreSQL: a transaction lock; SQLite
    writes one transaction at a time already, pbem/db.py)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"),
                        {"k": zlib.crc32(f"{limit.kind}:{key}".encode())})


def check(session: Session, cfg: Config, limit: Limit, key: str, *, now: datetime | None = None,
          count: int = 1) -> None:
    """LimitReached if `count` more events of `limit` for `key` would pass its number."""
    now = now or utcnow()
    key = limit.key_of(key)
    _serialise(session, limit, key)
    since = now - limit.window
    seen = session.exec(select(RateEvent.created_at).where(
        col(RateEvent.kind) == limit.kind, col(RateEvent.key) == key,
        col(RateEvent.created_at) > since).order_by(col(RateEvent.created_at))).all()
    allowed = limit.number(cfg)
    if len(seen) + count > allowed:
        # Free again when enough of the counted events have aged out of the window.
        index = min(len(seen) - 1, max(0, len(seen) + count - allowed - 1))
        raise LimitReached(limit, (seen[index] if seen else now) + limit.window)


def record(session: Session, limit: Limit, key: str, *, now: datetime | None = None,
           count: int = 1) -> None:
    """Count `count` events of `limit` for `key` (in the caller's transaction)."""
    now = now or utcnow()
    key = limit.key_of(key)
    for _event in range(count):
        session.add(RateEvent(kind=limit.kind, key=key, created_at=now))


def take(session: Session, cfg: Config, limit: Limit, key: str, *, now: datetime | None = None,
         count: int = 1) -> None:
    """`check` then `record`: the limit allows it and it is counted."""
    check(session, cfg, limit, key, now=now, count=count)
    record(session, limit, key, now=now, count=count)


def forget_before(session: Session, before: datetime) -> int:
    """Drop events older than every window (the clock sweep keeps the table small)."""
    done = session.execute(delete(RateEvent).where(col(RateEvent.created_at) < before))
    return int(done.rowcount or 0)  # type: ignore[attr-defined]  # a DELETE returns a CursorResult
