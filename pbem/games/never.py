""""Never email me again": the address goes on the suppression list, its open invitations are
declined, its proposals cancelled and its seats in games under way left to bots."""
from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from pbem import links
from pbem.config import Config
from pbem.games import lifecycle
from pbem.games.invitations import cancel, decline
from pbem.mail import suppression
from pbem.models import Invitation, InvitationStatus, Proposal, ProposalStatus, utcnow


def read_never_token(cfg: Config, token: str) -> str:
    return links.read_address(cfg, links.NEVER_SALT, token)


def suppress(session: Session, cfg: Config, email: str, *, now: datetime | None = None) -> None:
    """Put `email` on the suppression list: its open invitations are declined (their creators
    told), its seats in games under way are left to bots. Nothing is ever queued for it again."""
    now = now or utcnow()
    email = email.strip().lower()
    suppression.add(session, email, now=now)
    rows = session.exec(select(Invitation, Proposal).join(Proposal, col(Proposal.id) == col(Invitation.proposal_id))
                        .where(col(Invitation.email) == email,
                               col(Invitation.status).in_(InvitationStatus.OPEN),
                               col(Proposal.status).in_(ProposalStatus.OPEN))).all()
    for row, proposal in rows:
        if proposal.creator_email == email:
            continue
        if row.status == InvitationStatus.INVITED:
            decline(session, cfg, proposal, row, now=now)
        else:
            row.status = InvitationStatus.DECLINED
            session.add(row)
    for proposal in session.exec(select(Proposal).where(Proposal.creator_email == email,
                                                        col(Proposal.status).in_(ProposalStatus.OPEN))).all():
        cancel(session, cfg, proposal, now=now)
    lifecycle.leave_all_games(session, cfg, email, now=now)


def never_email(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> str:
    email = read_never_token(cfg, token)
    suppress(session, cfg, email, now=now)
    return email
