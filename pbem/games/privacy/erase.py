""""Erase me": the address out of every table (see the package's docstring), and what an erasure
would touch, in counts, for the admin's confirmation."""
from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Session, col, delete

from pbem import i18n
from pbem.addresses import canonical_key
from pbem.auth import record_audit
from pbem.config import Config
from pbem.games import lifecycle, ratings
from pbem.games.errors import GameError
from pbem.games.finish import is_over
from pbem.games.invitations import cancel, decline
from pbem.games.seated import SeatedGame
from pbem.games.service import lock_game_with_seats
from pbem.games.unasked_mail import pair_key
from pbem.i18n import gettext as _
from pbem.mail import suppression
from pbem.models import (AddressPreference, AddressStanding, AdminUser, Game, InboundMail,
                         InvitationStatus, LoginAttempt, Notice, OutboxMessage, ProposalStatus,
                         RateEvent, Seat, SeatKind, TalkMessage, utcnow)
from pbem.models_analysis import AnalysisPreference
from pbem.models_mail import Bounce

from pbem.games.privacy.held import Held, held, invitations_of, is_creator, rows_of
from pbem.games.privacy.scrub import needles_of, scrub

TAG_LENGTH = 12  # hex digits of the keyed hash that name an erased address in the audit log

def address_tag(cfg: Config, email: str) -> str:
    """How the audit log names an erased address: a prefix of its mailbox's keyed hash."""
    hashed = suppression.hashed_key(canonical_key(email), cfg.SECRET_KEY)
    assert hashed is not None
    return "#" + hashed.removeprefix(suppression.HASHED_PREFIX)[:TAG_LENGTH]


@dataclass(frozen=True)
class Erased:
    """What an erasure did, in counts (nothing that names the address)."""

    tag: str
    seats: int
    games_handed_to_bots: int
    rows_deleted: int
    never_kept: bool


def former_name(position: int) -> str:
    """The neutral name an erased player's seat keeps, in the current language."""
    return _("Former player %(number)s", number=position + 1)


def _language_of(found: Held) -> str:
    for pref in found.preferences:
        if pref.language in i18n.LANGUAGES:
            return pref.language
    latest = max((s for s, _g in found.seats), key=lambda s: s.id or 0, default=None)
    return latest.language if latest is not None and latest.language in i18n.LANGUAGES else i18n.DEFAULT


def _leave_running_games(session: Session, cfg: Config, found: Held, now: datetime) -> int:
    """Each seat in a game under way is left (a bot plays it, the table is told), each game
    locked once, in one order."""
    left = 0
    for game_id in sorted({s.game_id for s, g in found.seats if not is_over(g)}):
        game, seats = lock_game_with_seats(session, game_id)
        if is_over(game):
            continue
        for seat in seats:
            if seat.kind == SeatKind.HUMAN and canonical_key(seat.email or "") == found.key and not seat.left_game:
                lifecycle.leave_game(session, cfg, SeatedGame(game, seats, seat), now=now)
                left += 1
    return left


def _close_invitations(session: Session, cfg: Config, found: Held, now: datetime) -> None:
    """Its open invitations are declined (their creators told), its open proposals cancelled."""
    for row, proposal in found.invitations:
        if is_creator(proposal, row, found.key) or proposal.status not in ProposalStatus.OPEN:
            continue
        if row.status == InvitationStatus.INVITED:
            decline(session, cfg, proposal, row, now=now)
        elif row.status == InvitationStatus.WAITING:
            row.status = InvitationStatus.DECLINED
            session.add(row)
    for proposal in found.proposals:
        if proposal.status in ProposalStatus.OPEN:
            cancel(session, cfg, proposal, now=now)


def _rename_seat(seat: Seat, game: Game, name: str) -> None:
    """The seat keeps its place in the record under `name`, with no address and no live link."""
    seat.name, seat.email, seat.link_nonce = name, None, secrets.token_hex(8)
    seat.unsubscribed, seat.digest = True, False
    state = json.loads(game.state_json)
    if isinstance(state.get("players"), list) and seat.position < len(state["players"]):
        state["players"][seat.position] = name
        game.state_json = json.dumps(state)


def erase_address(session: Session, cfg: Config, email: str, *, never: bool, actor: str,
                  now: datetime | None = None) -> Erased:
    """Erase the address `email` from every table, in the caller's transaction: running seats
    are left to bots (the table told), open invitations declined and proposals cancelled, its
    seats keep "Former player N" (in its language) for the others, its talk, news, mail both
    ways, preferences, counts, standing, bounces and logins go. The never-list keeps the
    mailbox's keyed hash if it was on it, or if `never`. Audited by `actor`, without the address."""
    now = now or utcnow()
    found = held(session, email)
    if not found.key or "@" not in found.key:
        raise GameError("write_an_address")
    tag = address_tag(cfg, email)
    forms, parts = needles_of(found)
    left = _leave_running_games(session, cfg, found, now)
    _close_invitations(session, cfg, found, now)
    session.flush()
    found = held(session, email)  # with the rows the leaving and the declines queued
    pairs = {pair_key(p.creator_email, i.email or "") for i, p in found.invitations}
    pairs |= {pair_key(p.creator_email, i.email) for p in found.proposals for i in invitations_of(session, p)
              if i.email}
    with i18n.using(_language_of(found)):
        for seat, game in found.seats:
            _rename_seat(seat, game, former_name(seat.position))
            session.add(seat)
            session.add(game)
        for row, _proposal in found.invitations:
            row.email, row.name = None, former_name(row.position)
            session.add(row)
    for proposal in found.proposals:
        proposal.creator_email = ""
        session.add(proposal)
    deleted = 0

    def gone(statement: Any) -> None:
        nonlocal deleted
        deleted += session.execute(statement).rowcount or 0  # type: ignore[attr-defined]

    for seat, _game in found.seats:
        gone(delete(TalkMessage).where(col(TalkMessage.game_id) == seat.game_id,
                                       col(TalkMessage.seat) == seat.position))
    seat_ids = [s.id for s, _g in found.seats]
    gone(delete(Notice).where(col(Notice.seat_id).in_(seat_ids)))
    outbox_ids = [o.id for o in found.outbox]
    gone(delete(Bounce).where(col(Bounce.key) == found.key))
    session.execute(update(Bounce).where(col(Bounce.outbox_id).in_(outbox_ids)).values(outbox_id=None))
    gone(delete(OutboxMessage).where(col(OutboxMessage.id).in_(outbox_ids)))
    gone(delete(InboundMail).where(col(InboundMail.id).in_([m.id for m in found.inbound])))
    gone(delete(AddressPreference).where(col(AddressPreference.email).in_([p.email for p in found.preferences])))
    gone(delete(LoginAttempt).where(col(LoginAttempt.id).in_([a.id for a in found.logins])))
    gone(delete(RateEvent).where(col(RateEvent.key).in_({found.key} | pairs)))
    gone(delete(AddressStanding).where(col(AddressStanding.key) == found.key))
    # Its ratings go; the games' line-ups keep its place as a fixed strength (the others replay).
    deleted += ratings.forget_mailbox(session, found.key)
    gone(delete(AnalysisPreference).where(col(AnalysisPreference.email).in_(
        [a.email for a in rows_of(session, AnalysisPreference, col(AnalysisPreference.email), found.key)])))
    # An admin account of that mailbox goes too (its audit lines keep "[erased]" as their actor).
    gone(delete(AdminUser).where(col(AdminUser.id).in_([a.id for a in rows_of(session, AdminUser, col(AdminUser.email),
                                                                           found.key)])))
    kept = suppression.forget(session, found.key, secret=cfg.SECRET_KEY, keep=never, now=now)
    session.flush()
    scrub(session, forms, parts)
    record_audit(session, actor, "erase_address", detail=f"erased address {tag}", now=now)
    return Erased(tag=tag, seats=len(found.seats), games_handed_to_bots=left, rows_deleted=deleted, never_kept=kept)


@dataclass(frozen=True)
class Found:
    """What an erasure of an address would touch, in counts (the admin's confirmation)."""

    seats: int
    games_under_way: int
    emails: int
    replies: int
    invitations: int
    proposals: int
    never_listed: bool

    @property
    def anything(self) -> bool:
        return any((self.seats, self.emails, self.replies, self.invitations, self.proposals, self.never_listed))


def what_is_held(session: Session, email: str) -> Found:
    """The counts of the rows that name `email` (reads only)."""
    found = held(session, email)
    return Found(seats=len(found.seats), games_under_way=sum(1 for _s, g in found.seats if not is_over(g)),
                 emails=len(found.outbox), replies=len(found.inbound), invitations=len(found.invitations),
                 proposals=len(found.proposals), never_listed=suppression.listed_since(session, found.key) is not None)
