"""Every row that names one mailbox (`held`), found by SQL on its spellings (`_near`: the local
part, a +tag, Gmail's dots and domains) and told apart by `canonical_key`."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import func, or_
from sqlmodel import Session, SQLModel, col, select

from pbem.addresses import canonical_key
from pbem.models import (AddressPreference, AuditLog, Game, InboundMail,
                         Invitation, LoginAttempt, OutboxMessage, Proposal, Seat, SeatKind)


Row = TypeVar("Row", bound=SQLModel)


def like_literal(text: str) -> str:
    """`text` matched literally by LIKE (escape character backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _near(column: Any, key: str) -> Any:
    """A condition that holds for every stored spelling of the mailbox `key` (and a few others,
    which `canonical_key` then tells apart): its local part, or that and a +tag, at its domain;
    on Gmail with the dots taken out (of the domain too)."""
    local, _at, domain = key.rpartition("@")
    value = func.lower(column)
    if domain == "gmail.com":
        value, domains = func.replace(value, ".", ""), ["gmailcom", "googlemailcom"]
    else:
        domains = [domain]
    return or_(*[value.like(f"{like_literal(local)}{tag}@{like_literal(d)}", escape="\\")
                 for d in domains for tag in ("", "+%")])


def rows_of(session: Session, model: type[Row], column: Any, key: str) -> list[Row]:
    """The rows of `model` whose address `column` is the mailbox `key` (any case, +tag, dots)."""
    return [row for row in session.exec(select(model).where(_near(column, key))).all()
            if canonical_key(getattr(row, column.key) or "") == key]


@dataclass
class Held:
    """Every row that names one mailbox, found once for the export and for the erasure."""

    key: str
    seats: list[tuple[Seat, Game]]
    invitations: list[tuple[Invitation, Proposal]]
    proposals: list[Proposal]
    outbox: list[OutboxMessage]
    inbound: list[InboundMail]
    preferences: list[AddressPreference]
    logins: list[LoginAttempt]

    @property
    def spellings(self) -> set[str]:
        """Every spelling of the address found in its rows, lower case."""
        found = {s.email for s, _g in self.seats} | {i.email for i, _p in self.invitations}
        found |= {p.creator_email for p in self.proposals} | {o.to_addr for o in self.outbox}
        found |= {m.from_addr for m in self.inbound} | {p.email for p in self.preferences}
        found |= {a.email for a in self.logins}
        return {f.lower() for f in found if f} | {self.key}


def audit_rows(session: Session, spellings: Iterable[str]) -> list[AuditLog]:
    """The admin's audit lines whose detail names one of `spellings` (an action on the address)."""
    wanted = sorted(set(spellings))
    if not wanted:
        return []
    return list(session.exec(select(AuditLog).where(or_(*[func.lower(col(AuditLog.detail)).contains(w, autoescape=True)
                                                          for w in wanted])).order_by(col(AuditLog.id))))


def held(session: Session, email: str) -> Held:
    key = canonical_key(email)
    seats = [s for s in rows_of(session, Seat, col(Seat.email), key) if s.kind == SeatKind.HUMAN]
    games = {g.id: g for g in session.exec(select(Game).where(col(Game.id).in_({s.game_id for s in seats})))}
    invitations = rows_of(session, Invitation, col(Invitation.email), key)
    proposal_ids = {i.proposal_id for i in invitations}
    proposals = {p.id: p for p in session.exec(select(Proposal).where(col(Proposal.id).in_(proposal_ids)))}
    return Held(
        key=key,
        seats=sorted(((s, games[s.game_id]) for s in seats), key=lambda sg: (sg[1].created_at, sg[0].game_id)),
        invitations=[(i, proposals[i.proposal_id]) for i in sorted(invitations, key=lambda i: i.id or 0)],
        proposals=sorted(rows_of(session, Proposal, col(Proposal.creator_email), key), key=lambda p: p.id or 0),
        outbox=sorted(rows_of(session, OutboxMessage, col(OutboxMessage.to_addr), key), key=lambda o: o.id or 0),
        inbound=sorted(rows_of(session, InboundMail, col(InboundMail.from_addr), key), key=lambda m: m.id or 0),
        preferences=rows_of(session, AddressPreference, col(AddressPreference.email), key),
        logins=rows_of(session, LoginAttempt, col(LoginAttempt.email), key),
    )


def is_creator(proposal: Proposal, row: Invitation, key: str) -> bool:
    return row.position == proposal.creator_position and canonical_key(proposal.creator_email or "-") == key


def invitations_of(session: Session, proposal: Proposal) -> list[Invitation]:
    return list(session.exec(select(Invitation).where(Invitation.proposal_id == proposal.id)
                             .order_by(col(Invitation.position))))
