"""The table of mail that did not arrive (beside pbem/models.py, which holds every other):
bounces, relays' refusals and complaints, read and written by pbem/mail/undeliverable.py."""
from __future__ import annotations

from typing import Optional

from pydantic import NaiveDatetime
from sqlalchemy import Index
from sqlmodel import Field, SQLModel

from pbem.models import utcnow


class BounceKind:
    PERMANENT = "permanent"  # a DSN's 5.x.x (or a failure report without a temporary status)
    TEMPORARY = "temporary"  # a DSN's 4.x.x: three in seven days count as permanent
    RELAY = "relay"  # our relay's 5xx at send time
    COMPLAINT = "complaint"  # an ARF abuse report (RFC 5965): the address goes on the never-list


class Bounce(SQLModel, table=True):
    """One bounce or complaint about a mailbox. A row `undeliverable` and not cleared stops all
    mail to that mailbox until the person (/me) or an admin clears it."""

    __tablename__ = "bounce"
    __table_args__ = (Index("ix_bounce_key_created", "key", "created_at"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    key: str = Field(max_length=254)  # pbem.addresses.canonical_key of `email`
    email: str = Field(max_length=254)  # lower case, as the outbox row had it
    kind: str = Field(max_length=16)  # a BounceKind
    reason: str = Field(default="", max_length=500)
    outbox_id: Optional[int] = Field(default=None, foreign_key="outbox.id")
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    undeliverable: bool = False  # this bounce made the mailbox undeliverable
    cleared_at: Optional[NaiveDatetime] = None  # "I can read mail again" (or an admin)
    announced_at: Optional[NaiveDatetime] = None  # its games were told (pbem/games/bounced.py)
