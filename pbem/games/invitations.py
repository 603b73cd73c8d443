"""Games players start themselves, with everyone's consent before any game mail: the invitations
of a proposal (sent, answered, expired) and the game started when every seat accepted. What the
creator does is `proposals.py`; the budget of mail nobody asked for is `unasked_mail.py`.

A visitor sets up a game at /new (`proposals.propose_game`): a proposal with one invitation row per seat,
and one email, to the creator, with a confirmation link (single use, 24 hours). Nothing goes to
anyone else until the creator confirms (`proposals.confirm_proposal`); then each invited human gets one
invitation email (accept, decline, "never email me again") and nothing more until they accept.
When every human has accepted, the proposal becomes a game (`service.create_game`). The creator
is told who declined or let an invitation expire (INVITATION_DAYS) and may replace them with a
bot or another friend, or cancel. Addresses that chose "never email me again" are on the
suppression list (`never.suppress`), honoured by every path. Counted limits: `pbem/games/limits.py`.

Anyone can type an address, so what mails an address it did not ask for itself (a confirmation
link, a "my games" link, an invitation) is bounded per mailbox (`canonical_key`) and day: the
UNASKED budget, larger once the address answered us (confirmed or accepted: `AddressStanding`);
an invitation from someone it played with counts against that pair only. "I did not ask for
this" (`unasked_mail.set_blocked`) stops all of it, and no game of the address is touched. Nothing here tells
a stranger whether an address plays or is on the never-list: /new answers the same for any
address (the creator learns who cannot be invited on their own confirmation page), and /me only
queues the ask; the worker looks the address up (`my_games.write_my_games_link`).

Every function that takes a token reads it here (links.LinkError: 400 damaged, 410 expired,
403 replaced) and locks what it changes; GameError (409) when the answer is already given.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Sequence

from sqlmodel import Session, col, select

from pbem import links
from pbem.config import Config
from pbem.games import limits
from pbem.games.address_prefs import remembered_languages
from pbem.games.errors import GameError
from pbem.games.service import create_game
from pbem.games.setup import SeatSpec
import pbem.i18n as i18n
from pbem.letters import invitations as letters
from pbem.models import (Invitation, InvitationStatus,
                         Proposal, ProposalStatus, Seat, SeatKind, utcnow)
from pbem.games.unasked_mail import (INVITATIONS_PER_PAIR, answered, has_answered, pair_key, played_together,
                                     take_unasked, unreachable_among)
from pbem.games.settings import GameSettings



# ---------------------------------------------------------------- what the pages show
@dataclass
class ProposalView:
    """A proposal with its seats, as every page about it shows them."""

    proposal: Proposal
    invitations: list[Invitation]
    manage_url: str
    game_url: str | None = None
    # The invitees who cannot be invited (said never, or "I did not ask for this"): their
    # positions, known on the creator's confirmation page only (`open_confirmation`).
    unreachable: set[int] = field(default_factory=set)

    @property
    def creator(self) -> Invitation:
        return letters.creator_of(self.proposal, self.invitations)

    @property
    def waiting(self) -> list[Invitation]:
        return [i for i in self.invitations if i.status in InvitationStatus.OPEN and i.kind == SeatKind.HUMAN]

    @property
    def declined(self) -> list[Invitation]:
        return [i for i in self.invitations if i.status == InvitationStatus.DECLINED]

    @property
    def expired(self) -> list[Invitation]:
        return [i for i in self.invitations if i.status == InvitationStatus.EXPIRED]

    @property
    def open(self) -> bool:
        return self.proposal.status in ProposalStatus.OPEN


# ---------------------------------------------------------------- the setup form


def proposal_view(session: Session, cfg: Config, proposal: Proposal, *,
                  reader: Invitation | None = None) -> ProposalView:
    """The proposal with its seats; `reader`'s game page link once it started (else the creator's)."""
    invitations = list(session.exec(select(Invitation).where(Invitation.proposal_id == proposal.id)
                                    .order_by(col(Invitation.position))).all())
    assert proposal.id is not None
    view = ProposalView(proposal, invitations, links.proposal_url(cfg, proposal.id, proposal.nonce))
    if proposal.game_id is not None:
        position = reader.position if reader is not None else proposal.creator_position
        seat = session.exec(select(Seat).where(Seat.game_id == proposal.game_id,
                                               Seat.position == position)).first()
        if seat is not None:
            view.game_url = links.seat_url(cfg, links.sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce))
    return view


def seat_rows(session: Session, proposal: Proposal, specs: Sequence[SeatSpec], *, creator: int,
              now: datetime, typed: bool = True) -> list[Invitation]:
    """One invitation row per seat: the creator and bots accepted, humans waiting; `typed`: the
    creator typed these addresses (a rematch's they did not)."""
    assert proposal.id is not None
    remembered = remembered_languages(session, [s.email for s in specs])
    rows = []
    for position, spec in enumerate(specs):
        accepted = position == creator or spec.kind == SeatKind.BOT
        chosen = position == creator or spec.kind == SeatKind.BOT or bool(spec.language) \
            or (spec.email or "") in remembered
        row = Invitation(
            proposal_id=proposal.id, position=position, name=spec.name, email=spec.email,
            kind=spec.kind, bot=spec.bot, nonce=secrets.token_hex(8),
            status=InvitationStatus.ACCEPTED if accepted else InvitationStatus.WAITING,
            language=proposal.language if position == creator
            else spec.language or remembered.get(spec.email or "", proposal.language), language_chosen=chosen,
            created_at=now, answered_at=now if accepted else None, creator_typed=typed)
        session.add(row)
        rows.append(row)
    session.flush()
    return rows


# ---------------------------------------------------------------- the creator
def proposal_of(session: Session, token: links.RecordToken, *, lock: bool = False) -> Proposal:
    query = select(Proposal).where(Proposal.id == token.id)
    proposal = session.exec(query.with_for_update() if lock else query).first()
    if proposal is None:
        raise links.LinkError("proposal_gone")
    if proposal.nonce != token.nonce:
        raise links.LinkError("link_replaced")
    return proposal


def invite(session: Session, cfg: Config, view: ProposalView, rows: list[Invitation], *,
           now: datetime) -> None:
    """Send one invitation to each of `rows`, within the creator's (not an admin's) daily number
    and each address's budget (`_count_invitation`). An address that said never or "I did not ask
    for this" is not invited: its seat is declined at once (never invited), for the creator to
    replace; each such seat counts against the creator as an invitation, so the creator's pages
    are no free oracle of the never-list."""
    if not rows:
        return
    proposal = view.proposal
    if proposal.creator_position != letters.ORGANISER:
        limits.take(session, cfg, limits.INVITATIONS_PER_CREATOR, proposal.creator_email, now=now,
                    count=len(rows))
    unreachable = unreachable_among(session, [row.email for row in rows])
    invited: list[tuple[Invitation, bool]] = []
    for row in rows:
        if (row.email or "").lower() in unreachable:
            row.status, row.answered_at, row.expires_at = InvitationStatus.DECLINED, now, None
        else:
            plain = _count_invitation(session, cfg, proposal, row.email or "", now=now)
            row.status, row.invited_at = InvitationStatus.INVITED, now
            row.expires_at = now + timedelta(days=cfg.INVITATION_DAYS)
            invited.append((row, plain))
        session.add(row)
    session.flush()
    for row, plain in invited:
        letters.queue_invitation(session, cfg, proposal, row, view.invitations, plain=plain)


def _count_invitation(session: Session, cfg: Config, proposal: Proposal, email: str, *, now: datetime) -> bool:
    """Count one invitation to `email` (LimitReached past a limit), and whether it is written
    plain (`pbem.letters.invitations`: no words of the creator's but names, cut short). An admin's
    counts against the address's daily invitations; one from a player the address has played
    with against that pair's number only (a rematch, a friend's next game: nobody else can use
    up the address's budget with them); any other against the address's UNASKED budget too."""
    if proposal.creator_position == letters.ORGANISER:
        limits.take(session, cfg, limits.INVITATIONS_PER_ADDRESS, email, now=now)
        return False
    if played_together(session, proposal.creator_email, email):
        limits.take(session, cfg, INVITATIONS_PER_PAIR, pair_key(proposal.creator_email, email), now=now)
        return False
    take_unasked(session, cfg, email, now=now)
    limits.take(session, cfg, limits.INVITATIONS_PER_ADDRESS, email, now=now)
    return not has_answered(session, email)


def start_if_ready(session: Session, cfg: Config, view: ProposalView, *, now: datetime) -> ProposalView:
    """Every seat accepted: the proposal becomes a game (its welcome emails go to people who
    all said yes)."""
    proposal = view.proposal
    if proposal.status != ProposalStatus.INVITING or any(
            i.status != InvitationStatus.ACCEPTED for i in view.invitations):
        return view
    specs = [SeatSpec(name=i.name, email=i.email, kind=i.kind, bot=i.bot,
                      language=i.language if i.kind == SeatKind.HUMAN else None)
             for i in view.invitations]
    with i18n.using(proposal.language):  # a game it names (pbem/games/setup.py) is named in its creator's words
        game = create_game(session, cfg, specs, GameSettings.of(proposal), now=now)
    proposal.status = ProposalStatus.STARTED
    proposal.game_id = game.id
    proposal.updated_at = now
    session.add(proposal)
    session.flush()
    return proposal_view(session, cfg, proposal)


def cancel(session: Session, cfg: Config, proposal: Proposal, *, now: datetime) -> ProposalView:
    """Whoever was invited or had accepted is told, once; the open invitations close."""
    was_inviting = proposal.status == ProposalStatus.INVITING
    proposal.status = ProposalStatus.CANCELLED
    proposal.updated_at = now
    session.add(proposal)
    view = proposal_view(session, cfg, proposal)
    for row in view.invitations:
        told = row.status in (InvitationStatus.INVITED, InvitationStatus.ACCEPTED)
        if row.status in InvitationStatus.OPEN:
            row.status = InvitationStatus.EXPIRED
            session.add(row)
        if was_inviting and told and row.kind == SeatKind.HUMAN and row.position != proposal.creator_position:
            letters.queue_proposal_cancelled(session, cfg, proposal, row, view.invitations)
    return view


# ---------------------------------------------------------------- the invitees
def _invitation(session: Session, cfg: Config, token: str, *, lock: bool = False) -> tuple[Invitation, Proposal]:
    parsed = links.read_record(cfg, links.INVITATION_SALT, token)
    query = select(Invitation).where(Invitation.id == parsed.id)
    row = session.exec(query.with_for_update() if lock else query).first()
    if row is None:
        raise links.LinkError("proposal_gone")
    if row.nonce != parsed.nonce:
        raise links.LinkError("link_replaced")
    query_p = select(Proposal).where(Proposal.id == row.proposal_id)
    proposal = session.exec(query_p.with_for_update() if lock else query_p).one()
    return row, proposal


def open_invitation(session: Session, cfg: Config, token: str) -> tuple[Invitation, ProposalView]:
    row, proposal = _invitation(session, cfg, token)
    return row, proposal_view(session, cfg, proposal, reader=row)


def _answerable(row: Invitation, proposal: Proposal) -> None:
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError("invitation_cancelled")
    if row.status == InvitationStatus.ACCEPTED:
        raise GameError("accepted_already")
    if row.status == InvitationStatus.DECLINED:
        raise GameError("declined_already")
    if row.status == InvitationStatus.EXPIRED:
        raise links.LinkError("link_expired")
    if proposal.status != ProposalStatus.INVITING:
        raise GameError("not_being_set_up")


def accept_invitation(session: Session, cfg: Config, token: str, *, language: str | None = None,
                      now: datetime | None = None) -> tuple[Invitation, ProposalView]:
    """Yes: `language`, the one the invitee read the invitation in, is theirs in the game if
    nobody chose one for them (`Invitation.language_chosen`)."""
    now = now or utcnow()
    row, proposal = _invitation(session, cfg, token, lock=True)
    _answerable(row, proposal)
    if not row.language_chosen and language in i18n.LANGUAGES:
        row.language, row.language_chosen = language, True
    row.status, row.answered_at = InvitationStatus.ACCEPTED, now
    session.add(row)
    answered(session, row.email or "", now=now)
    session.flush()
    view = start_if_ready(session, cfg, proposal_view(session, cfg, proposal), now=now)
    return row, proposal_view(session, cfg, view.proposal, reader=row)


def decline_invitation(session: Session, cfg: Config, token: str, *,
                       now: datetime | None = None) -> tuple[Invitation, ProposalView]:
    """No thanks: the creator is told and may replace the seat; nothing more goes to them."""
    now = now or utcnow()
    row, proposal = _invitation(session, cfg, token, lock=True)
    _answerable(row, proposal)
    decline(session, cfg, proposal, row, now=now)
    return row, proposal_view(session, cfg, proposal, reader=row)


def decline(session: Session, cfg: Config, proposal: Proposal, row: Invitation, *, now: datetime) -> None:
    row.status, row.answered_at = InvitationStatus.DECLINED, now
    session.add(row)
    session.flush()
    view = proposal_view(session, cfg, proposal)
    letters.queue_declined(session, cfg, proposal, row, view.invitations)


# ---------------------------------------------------------------- "never email me again"


# ---------------------------------------------------------------- time passes (the clock sweep)
def expire_invitations(session: Session, cfg: Config, *, now: datetime | None = None, limit: int = 200) -> int:
    """Invitations not answered in INVITATION_DAYS expire (their creator told, once per game);
    proposals never confirmed in 24 hours expire silently (nobody but their creator knew)."""
    now = now or utcnow()
    unconfirmed = session.exec(select(Proposal).where(
        col(Proposal.status) == ProposalStatus.UNCONFIRMED, col(Proposal.confirm_by) <= now)
        .limit(limit).with_for_update(skip_locked=True)).all()
    for proposal in unconfirmed:
        proposal.status, proposal.updated_at = ProposalStatus.EXPIRED, now
        session.add(proposal)
    rows = session.exec(select(Invitation).where(
        col(Invitation.status) == InvitationStatus.INVITED, col(Invitation.expires_at) <= now)
        .order_by(col(Invitation.proposal_id)).limit(limit).with_for_update(skip_locked=True)).all()
    by_proposal: dict[int, list[Invitation]] = {}
    for row in rows:
        row.status = InvitationStatus.EXPIRED
        session.add(row)
        by_proposal.setdefault(row.proposal_id, []).append(row)
    session.flush()
    for proposal_id, expired in by_proposal.items():
        waiting = session.get(Proposal, proposal_id)
        if waiting is not None and waiting.status == ProposalStatus.INVITING:
            letters.queue_expired(session, cfg, waiting, expired, proposal_view(session, cfg, waiting).invitations)
    limits.forget_before(session, now - limits.DAY - limits.HOUR)
    return len(unconfirmed) + len(rows)


# ---------------------------------------------------------------- mail an address did not ask for


# ---------------------------------------------------------------- "my games"


# ---------------------------------------------------------------- an admin's game


# ---------------------------------------------------------------- rematch
