"""Mail an address did not ask for itself (anyone can type it): a confirmation link, a "my games"
link, an invitation. Each counts against one budget per mailbox and day, larger once the address
answered us (`AddressStanding`); "I did not ask for this" (`set_blocked`) stops all of it."""
from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Sequence

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pbem import links
from pbem.addresses import canonical_key
from pbem.config import Config
from pbem.games import limits
from pbem.letters import invitations as letters
from pbem.mail.suppression import suppressed_among
from pbem.mail.undeliverable import undeliverable_among
from pbem.models import AddressStanding, Proposal, ProposalStatus, Seat, utcnow

# Every email an address did not ask for itself (anyone can type it) counts against one budget
# per mailbox and day (pbem/config.py): a confirmation link, a "my games" link, an invitation.
# The two limits count the same events; the larger is the address's once it answered us.
UNASKED = limits.Limit("unasked", "LIMIT_UNASKED_PER_ADDRESS_DAY", limits.DAY)
UNASKED_KNOWN = limits.Limit("unasked", "LIMIT_UNASKED_PER_KNOWN_ADDRESS_DAY", limits.DAY)
INVITATIONS_PER_PAIR = limits.Limit("invite_pair", "LIMIT_INVITATIONS_PER_PAIR_DAY", limits.DAY)

# Why the worker did not write such an email (the admin outbox page shows it).
BLOCKED = "the address said it did not ask for this: nobody's request mails it"
OVER_BUDGET = "the address has had its emails it did not ask for today"


def _standing(session: Session, email: str, *, lock: bool = False) -> AddressStanding | None:
    query = select(AddressStanding).where(AddressStanding.key == canonical_key(email))
    return session.exec(query.with_for_update() if lock else query).first()


def _stand(session: Session, email: str) -> AddressStanding:
    """The standing of `email`'s mailbox, locked; made if it had none (two at once make one)."""
    row = _standing(session, email, lock=True)
    if row is None:
        try:
            with session.begin_nested():
                session.add(AddressStanding(key=canonical_key(email)))
        except IntegrityError:  # made at the same moment by another request
            pass
        row = _standing(session, email, lock=True)
    assert row is not None
    return row


def answered(session: Session, email: str, *, now: datetime) -> None:
    """`email`'s mailbox answered us (confirmed a game, accepted an invitation): its own."""
    row = _stand(session, email)
    if row.answered_at is None:
        row.answered_at = now
        session.add(row)


def has_answered(session: Session, email: str) -> bool:
    row = _standing(session, email)
    return row is not None and row.answered_at is not None


def unreachable_among(session: Session, emails: Sequence[str | None]) -> set[str]:
    """The lower-case addresses of `emails` nobody's request may mail: on the never-list, they
    said "I did not ask for this", or our mail to them bounces (until they say it works again)."""
    given = {e.strip().lower() for e in emails if e}
    keys = {email: canonical_key(email) for email in given}
    blocked = set(session.exec(select(AddressStanding.key).where(
        col(AddressStanding.key).in_(sorted(set(keys.values()))), col(AddressStanding.blocked_at).is_not(None))).all())
    return (suppressed_among(session, given) | undeliverable_among(session, given)
            | {email for email, key in keys.items() if key in blocked})


def take_unasked(session: Session, cfg: Config, email: str, *, now: datetime) -> None:
    """Count one email `email` did not ask for itself; LimitReached past its daily budget."""
    limit = UNASKED_KNOWN if has_answered(session, email) else UNASKED
    limits.take(session, cfg, limit, email, now=now)


def may_mail_unasked(session: Session, cfg: Config, email: str, *, now: datetime) -> str | None:
    """Why `email` may not be sent one more email it did not ask for (None: it may, and that
    email is counted). Asked by the worker, so the requester never learns the answer."""
    if unreachable_among(session, [email]):
        return BLOCKED
    try:
        take_unasked(session, cfg, email, now=now)
    except limits.LimitReached:
        return OVER_BUDGET
    return None


def pair_key(creator: str, invitee: str) -> str:
    """The key one creator's invitations to one co-player are counted by (rate_event.key)."""
    return hashlib.sha256(f"{canonical_key(creator)} {canonical_key(invitee)}".encode()).hexdigest()


def played_together(session: Session, one: str, other: str) -> bool:
    """Have the two addresses had seats in one game (any case)?"""
    mine, theirs = aliased(Seat), aliased(Seat)
    query = (select(mine.id).join(theirs, col(theirs.game_id) == col(mine.game_id))
             .where(func.lower(col(mine.email)) == one.strip().lower(),
                    func.lower(col(theirs.email)) == other.strip().lower()).limit(1))
    return session.exec(query).first() is not None


def read_not_me_token(cfg: Config, token: str) -> str:
    return links.read_address(cfg, letters.NOT_ME_SALT, token)


def is_blocked(session: Session, email: str) -> bool:
    row = _standing(session, email)
    return row is not None and row.blocked_at is not None


def set_blocked(session: Session, cfg: Config, token: str, blocked: bool, *, now: datetime | None = None) -> str:
    """"I did not ask for this" (`blocked`), or take it back: while blocked, no request of anyone
    mails the address (a confirmation link, a "my games" link, an invitation) and games set up in
    its name and not confirmed are dropped. Unlike "never email me again", its games, running or
    being set up, are not touched. The address of the token."""
    now = now or utcnow()
    email = read_not_me_token(cfg, token)
    row = _stand(session, email)
    row.blocked_at = (row.blocked_at or now) if blocked else None
    session.add(row)
    if blocked:
        for proposal in session.exec(select(Proposal).where(
                func.lower(col(Proposal.creator_email)) == email,
                col(Proposal.status) == ProposalStatus.UNCONFIRMED).with_for_update()).all():
            proposal.status, proposal.updated_at = ProposalStatus.EXPIRED, now
            session.add(proposal)
    return email
