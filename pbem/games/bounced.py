"""An address our mail bounces from is handled like an absent player (issue 26): nothing more
is queued for it (`letters/send.queue`, `unasked_mail.unreachable_among`, the worker), its games
go on by their clocks, and the people who wait on it are told once, by the worker after the
mark (`announce_marks`): each other player of its games under way gets a table notice, and the
creator of a game being set up learns that the invitation bounced and may replace the seat
(the invitation counts as unanswered: `proposals.replace_invitee`). The person clears the mark
on their /me page ("I can read mail again"), or an admin does."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from sqlmodel import Session, col, select

from pbem.addresses import canonical_key
from pbem.config import Config
from pbem.games import notices
from pbem.games.invitations import proposal_view
from pbem.games.my_games import read_my_games_token
from pbem.i18n import gettext as _
from pbem.letters import invitations as letters
from pbem.mail import undeliverable
from pbem.models import Game, GameStatus, Invitation, InvitationStatus, Proposal, ProposalStatus, Seat, SeatKind, utcnow
from pbem.models_mail import Bounce

UNDER_WAY = (GameStatus.RUNNING, GameStatus.PAUSED)


def bouncing_seats(session: Session, seats: Sequence[Seat]) -> list[Seat]:
    """The human seats of `seats` whose address our mail bounces from (the game page says so)."""
    humans = [s for s in seats if s.kind == SeatKind.HUMAN and s.email and not s.left_game]
    marked = undeliverable.undeliverable_among(session, [s.email for s in humans])
    return [s for s in humans if (s.email or "").strip().lower() in marked]


def announce_marks(session: Session, cfg: Config, *, now: datetime | None = None) -> int:
    """Tell the games of every address marked undeliverable since the last call; how many marks."""
    now = now or utcnow()
    marks = undeliverable.unannounced(session)
    for mark in marks:
        _tell_tables(session, mark, now)
        _tell_creators(session, cfg, mark, now)
        mark.announced_at = now
        session.add(mark)
    session.flush()
    return len(marks)


def _tell_tables(session: Session, mark: Bounce, now: datetime) -> None:
    rows = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id)).where(
        col(Seat.email).is_not(None), Seat.kind == SeatKind.HUMAN, col(Game.status).in_(UNDER_WAY))).all()
    for seat, game in rows:
        if seat.left_game or not _same_mailbox(seat.email, mark):
            continue
        others = [s for s in session.exec(select(Seat).where(Seat.game_id == game.id)).all() if s.id != seat.id]
        notices.add_news(session, game, others, _bounces_news(seat.name), now=now)


def _same_mailbox(email: str | None, mark: Bounce) -> bool:
    """Whether `email` is the marked mailbox, however it is spelled (`ann+games@`, Gmail's dots)."""
    return bool(email) and canonical_key(email or "") == mark.key


def _bounces_news(name: str) -> Callable[[], str]:
    """The table's news, written in each reader's language when it is stored."""
    return lambda: _("Our emails to %(name)s bounce: they get none from this game until they tell us they "
                     "can read mail again. Their turns still follow the game's clock.", name=name)


def _tell_creators(session: Session, cfg: Config, mark: Bounce, now: datetime) -> None:
    rows = session.exec(select(Invitation, Proposal).join(Proposal, col(Proposal.id) == col(Invitation.proposal_id))
                        .where(col(Invitation.email).is_not(None), Invitation.status == InvitationStatus.INVITED,
                               col(Proposal.status).in_(ProposalStatus.OPEN))).all()
    for invitation, proposal in rows:
        if not _same_mailbox(invitation.email, mark) or _same_mailbox(proposal.creator_email, mark):
            continue
        # Never read: it counts as unanswered, so the creator may put someone else in its place.
        invitation.status, invitation.answered_at, invitation.expires_at = InvitationStatus.EXPIRED, now, None
        session.add(invitation)
        session.flush()
        letters.queue_bounced(session, cfg, proposal, invitation, proposal_view(session, cfg, proposal).invitations)


def clear_mark(session: Session, email: str, *, now: datetime | None = None) -> bool:
    """`email` can read mail again (its own /me page, or an admin): mail to it resumes."""
    return undeliverable.clear(session, email, now=now)


def mail_works_again(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> bool:
    """"I can read mail again", from the address's own /me page (its signed token)."""
    return clear_mark(session, read_my_games_token(cfg, token), now=now)


def bounces(session: Session, email: str) -> bool:
    """Whether our mail to `email` bounces (its /me page offers to say it works again)."""
    return undeliverable.is_undeliverable(session, email)
