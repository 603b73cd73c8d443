"""Games a creator sets up: at /new (confirmed by email first), by an admin (`invite_players`), or
as a rematch; and what the creator does with them (replace a seat, cancel). The invitations
they send and their answers: `invitations.py`."""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any, Sequence

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem import links
from pbem.addresses import canonical_key
from pbem.config import Config
from pbem.games import limits
from pbem.games.address_prefs import remembered_languages
from pbem.games.errors import GameError
from pbem.games.invitations import ProposalView, cancel, invite, proposal_of, proposal_view, seat_rows, start_if_ready
from pbem.games.my_games import write_my_games_link
from pbem.games.finish import is_over
from pbem.games.seated import SeatedGame
from pbem.games.settings import DEFAULT_SETTINGS, GameSettings, SettingsProblem
from pbem.games.setup import (SeatSpec, SetupError, SetupProblem, check_form, check_setup, form_problems, player_lines,
                              refuse_suppressed)
from pbem.games.unasked_mail import answered, has_answered, may_mail_unasked, unreachable_among
import pbem.i18n as i18n
from pbem.letters import invitations as letters
from pbem.mail.outbox import Email
from pbem.mail.suppression import is_suppressed, suppressed_among
from pbem.mail.writers import Cancel, register_writer
from pbem.present.names import default_game_name, reader_names, rematch_name
from pbem.models import Game, Invitation, InvitationStatus, OutboxMessage, Proposal, ProposalStatus, SeatKind, utcnow


def propose_game(session: Session, cfg: Config, *, your_name: str, your_email: str, players: str,
                 settings: GameSettings = DEFAULT_SETTINGS, unread: Sequence[SettingsProblem] = (),
                 language: str = "en", ip: str = "", form_id: str = "", now: datetime | None = None) -> Proposal:
    """A game set up at /new, waiting for its creator's confirmation: one email, to the creator,
    written by the worker (which sends it only if the address may be mailed: `may_mail_unasked`).
    `unread`: what `read_settings` could not read of the form.
    One proposal per form (`form_id`, the page's nonce; see `form_key`): the same form sent again,
    at once or later, is the same proposal. The answer says nothing about the addresses: whether
    one said never or "I did not ask for this" shows only on the creator's confirmation page.
    SetupError (each problem on its field) or LimitReached, and nothing written, otherwise."""
    now = now or utcnow()
    lines = player_lines(players)
    setup = check_form(your_name, your_email, lines, settings, unread)
    creator_email = setup.specs[0].email or ""
    proposal = _new_proposal(_proposed(setup.settings), creator_email=creator_email, creator_position=0,
                             language=language, now=now, confirmed=False)
    proposal.form_key = form_key(form_id, proposal, setup.specs, now=now)
    try:  # the database says whether this form made its proposal already, however close in time
        with session.begin_nested():
            session.add(proposal)
    except IntegrityError:
        return _sent_already(session, proposal.form_key)
    limits.take(session, cfg, limits.CONFIRMATIONS_PER_ADDRESS, creator_email, now=now)
    if ip:
        limits.take(session, cfg, limits.LINKS_PER_IP, ip, now=now)
    seat_rows(session, proposal, setup.specs, creator=0, now=now)
    letters.queue_confirmation(session, cfg, proposal)
    return proposal


def _proposed(settings: GameSettings) -> dict[str, Any]:
    """A proposal's settings columns: a team game's partners talk anyway, so no table talk."""
    return replace(settings, table_talk=settings.table_talk and not settings.teams).columns()


def _new_proposal(columns: dict[str, Any], *, creator_email: str, creator_position: int, language: str,
                  now: datetime, confirmed: bool, rematch_of: int | None = None) -> Proposal:
    """A new proposal row with its settings `columns`: `confirmed` (an admin's, a rematch: the
    creator proved their address) it invites at once; otherwise it waits for its creator's
    confirmation link (CONFIRM_MAX_AGE)."""
    return Proposal(
        status=ProposalStatus.INVITING if confirmed else ProposalStatus.UNCONFIRMED,
        creator_email=creator_email, creator_position=creator_position, nonce=secrets.token_hex(8),
        language=language, **columns, created_at=now, updated_at=now,
        confirm_by=now if confirmed else now + timedelta(seconds=links.CONFIRM_MAX_AGE),
        confirmed_at=now if confirmed else None, rematch_of=rematch_of)


DOUBLE_SUBMIT = timedelta(minutes=2)  # a form sent without its nonce: posts this close are one
FORM_ID = re.compile(r"^[A-Za-z0-9_-]{16,64}$")  # the /new page's nonce (secrets.token_urlsafe)
EPOCH = datetime(1970, 1, 1)


def new_form_id() -> str:
    """The nonce a /new page embeds: one proposal per page sent."""
    return secrets.token_urlsafe(16)


def form_key(form_id: str, proposal: Proposal, specs: Sequence[SeatSpec], *, now: datetime) -> str:
    """The key of one /new form's proposal (Proposal.form_key, unique): a digest of the form's
    nonce (without one, of the DOUBLE_SUBMIT window it came in), its creator's mailbox and
    everything it chose. A form sent again unchanged has the key of its first proposal; changed
    (the back button, a correction) it is another proposal."""
    nonce = form_id if FORM_ID.match(form_id) else f"window {(now - EPOCH) // DOUBLE_SUBMIT}"
    content = [nonce, canonical_key(proposal.creator_email), proposal.teams, proposal.name,
               proposal.options_json, proposal.deadline_hours, proposal.reminders, proposal.on_timeout,
               proposal.table_talk, [[s.name, canonical_key(s.email) if s.email else None, s.kind, s.bot,
                                      s.language] for s in specs]]
    return hashlib.sha256(json.dumps(content).encode()).hexdigest()


def _sent_already(session: Session, key: str | None) -> Proposal:
    """The proposal a form sent again made the first time: the same answer, nothing sent again."""
    first = session.exec(select(Proposal).where(Proposal.form_key == key)).one()
    if first.status != ProposalStatus.UNCONFIRMED:
        raise GameError("form_sent_already")
    return first


def _confirmable(session: Session, cfg: Config, token: str, *, lock: bool) -> Proposal:
    proposal = proposal_of(session, links.read_record(cfg, links.CONFIRM_SALT, token, links.CONFIRM_MAX_AGE),
                         lock=lock)
    if proposal.status == ProposalStatus.EXPIRED:
        raise links.LinkError("link_expired")
    if proposal.status != ProposalStatus.UNCONFIRMED:
        raise GameError("confirmed_already")
    return proposal


def open_confirmation(session: Session, cfg: Config, token: str) -> ProposalView:
    """The creator's own confirmation step: the game, and which invitees cannot be invited (said
    never, or "I did not ask for this"), shown to nobody before (the link came by email, counted)."""
    view = proposal_view(session, cfg, _confirmable(session, cfg, token, lock=False))
    unreachable = unreachable_among(session, [i.email for i in view.waiting])
    view.unreachable = {i.position for i in view.waiting if (i.email or "").lower() in unreachable}
    return view


def confirm_proposal(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> ProposalView:
    """The creator proved they read their mail: the game counts against their daily limit, and
    each invitee gets one invitation (or, with no human to invite, the game starts)."""
    now = now or utcnow()
    proposal = _confirmable(session, cfg, token, lock=True)
    limits.take(session, cfg, limits.GAMES_PER_CREATOR, proposal.creator_email, now=now)
    answered(session, proposal.creator_email, now=now)
    proposal.status = ProposalStatus.INVITING
    proposal.confirmed_at = proposal.updated_at = now
    session.add(proposal)
    view = proposal_view(session, cfg, proposal)
    invite(session, cfg, view, [i for i in view.invitations if i.status == InvitationStatus.WAITING], now=now)
    return start_if_ready(session, cfg, view, now=now)


def _managed(session: Session, cfg: Config, token: str, *, lock: bool = False) -> Proposal:
    return proposal_of(session, links.read_record(cfg, links.PROPOSAL_SALT, token), lock=lock)


def open_proposal(session: Session, cfg: Config, token: str) -> ProposalView:
    return proposal_view(session, cfg, _managed(session, cfg, token))


def _still_open(proposal: Proposal) -> None:
    if proposal.status == ProposalStatus.STARTED:
        raise GameError("started_already")
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError("proposal_cancelled")
    if proposal.status != ProposalStatus.INVITING:
        raise GameError("confirm_first")


def replace_invitee(session: Session, cfg: Config, token: str, position: int, player: str, *,
                    now: datetime | None = None) -> ProposalView:
    """A seat that declined or did not answer goes to a bot, or to another friend (invited)."""
    now = now or utcnow()
    proposal = _managed(session, cfg, token, lock=True)
    _still_open(proposal)
    view = proposal_view(session, cfg, proposal)
    row = next((i for i in view.invitations if i.position == position), None)
    if row is None or row.status not in (InvitationStatus.DECLINED, InvitationStatus.EXPIRED):
        raise GameError("not_replaceable")
    problems, specs = form_problems(view.creator.name, proposal.creator_email, [player],
                                    replace(GameSettings.of(proposal), name=""))
    problems = [p for p in problems if p.field == "players" and p.seat is not None]
    spec = specs[-1] if not problems else None
    if spec is not None and spec.kind == SeatKind.HUMAN:
        others = {canonical_key(i.email or "") for i in view.invitations if i.position != position}
        if canonical_key(spec.email or "") in others:
            problems.append(SetupProblem(GameError("already_playing", {"email": spec.email}), "players", 0))
        elif spec.name.casefold() in {i.name.casefold() for i in view.invitations if i.position != position}:
            problems.append(SetupProblem(GameError("same_name", {"name": spec.name}), "players", 0))
    if problems or spec is None:
        raise SetupError(problems)
    renamed = proposal.name == _default_name(proposal, view.invitations)  # named by its players: still so
    if spec.kind == SeatKind.BOT:
        taken = {i.name.casefold() for i in view.invitations if i.position != position}
        name, n = spec.name, 1
        while name.casefold() in taken:
            n += 1
            name = f"{spec.name} {n}"
        row.name, row.email, row.kind, row.bot = name, None, SeatKind.BOT, spec.bot
        row.status, row.answered_at = InvitationStatus.ACCEPTED, now
    else:  # invited as any invitee (one who said never is declined at once, and counted)
        row.name, row.email, row.kind, row.bot = spec.name, spec.email, SeatKind.HUMAN, None
        known = remembered_languages(session, [spec.email])
        row.language = spec.language or known.get(spec.email or "", proposal.language)
        row.language_chosen = bool(spec.language) or (spec.email or "") in known
        row.status, row.answered_at, row.invited_at = InvitationStatus.WAITING, None, None
        row.creator_typed = True
    row.nonce = secrets.token_hex(8)  # the old invitee's links die
    row.expires_at = None
    session.add(row)
    if renamed:
        proposal.name = _default_name(proposal, view.invitations)
    proposal.updated_at = now
    session.add(proposal)
    session.flush()
    if row.kind == SeatKind.HUMAN:
        invite(session, cfg, view, [row], now=now)
    return start_if_ready(session, cfg, view, now=now)


def _default_name(proposal: Proposal, invitations: Sequence[Invitation]) -> str:
    """The name a proposal of these seats gets when its creator gives none, in their language;
    an admin's (or the CLI's) proposal, whose creator has no seat, in its first human seat's."""
    language = proposal.language
    if proposal.creator_position == letters.ORGANISER:
        language = next((i.language for i in sorted(invitations, key=lambda i: i.position)
                         if i.kind == SeatKind.HUMAN), proposal.language)
    with i18n.using(language):
        return default_game_name(reader_names(invitations), teams=proposal.teams)


def cancel_proposal(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> ProposalView:
    """The creator gives up: whoever was invited or had accepted is told, once."""
    now = now or utcnow()
    proposal = _managed(session, cfg, token, lock=True)
    if proposal.status == ProposalStatus.STARTED:
        raise GameError("started_already")
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError("proposal_cancelled")
    return cancel(session, cfg, proposal, now=now)


NOT_WAITING = "the game no longer waits for its confirmation"


def write_confirmation(session: Session, cfg: Config, row: OutboxMessage, params: dict[str, Any],
                       now: datetime) -> Email | Cancel:
    """The writer of a queued confirmation link (pbem.mail.writers): plain to an address that
    never answered us; cancelled if the address may not be mailed any more today."""
    proposal_id = params.get("proposal_id")
    proposal = session.get(Proposal, proposal_id) if isinstance(proposal_id, int) else None
    if proposal is None or proposal.status != ProposalStatus.UNCONFIRMED:
        return Cancel(NOT_WAITING)
    refusal = may_mail_unasked(session, cfg, row.to_addr, now=now)
    if refusal is not None:
        return Cancel(refusal)
    seats = proposal_view(session, cfg, proposal).invitations
    return letters.confirmation_email(cfg, proposal, seats, plain=not has_answered(session, row.to_addr))


def register_writers() -> None:
    """Hand the mail transport the writers of the emails anyone can ask for (at start-up)."""
    register_writer(letters.CONFIRM_KIND, write_confirmation)
    register_writer(letters.MY_GAMES_KIND, write_my_games_link)


def invite_players(session: Session, cfg: Config, players: Sequence[SeatSpec | str],
                   settings: GameSettings = DEFAULT_SETTINGS, *, organiser_email: str,
                   unread: Sequence[SettingsProblem] = (), now: datetime | None = None) -> ProposalView:
    """A game an admin (or the CLI) sets up for people who have not said yes yet: each human gets
    one invitation, and the game starts when all have accepted (at once with bots alone).
    `organiser_email` is told of declines and expiries and manages the seats. Raises SetupError
    (English: the dashboard's and CLI's) before writing anything."""
    now = now or utcnow()
    unnamed = not settings.name.strip()
    setup = check_setup(players, settings, unread=unread)
    refuse_suppressed(session, setup.specs)
    specs = [replace(s, email=s.email.lower()) if s.email else s for s in setup.specs]
    proposal = _new_proposal(_proposed(setup.settings), creator_email=organiser_email.strip().lower(),
                             creator_position=letters.ORGANISER, language="en", now=now, confirmed=True)
    session.add(proposal)
    session.flush()
    rows = seat_rows(session, proposal, specs, creator=letters.ORGANISER, now=now)
    if unnamed:  # named in the players' language (the first human seat's), not the admin's English
        proposal.name = _default_name(proposal, rows)
        session.add(proposal)
    view = ProposalView(proposal, rows, links.proposal_url(cfg, proposal.id or 0, proposal.nonce))
    invite(session, cfg, view, [i for i in rows if i.status == InvitationStatus.WAITING], now=now)
    return start_if_ready(session, cfg, view, now=now)


def rematch(session: Session, cfg: Config, at: SeatedGame, *,
            now: datetime | None = None) -> ProposalView:
    """Same players and options: the asking seat is the creator (their link proved the address),
    the other humans are invited again (by name: the creator's page shows no address it did not
    type), bots carried over. One rematch of a game at a time: asked again (a double click) it is
    the same one; asked by another player, refused (their invitation is on its way). It counts
    against its creator's limits only: the others have played with them (`_count_invitation`)."""
    now = now or utcnow()
    game, seats, seat = at.game, at.seats, at.seat  # locked by the caller: two rematches of one game wait in turn
    open_one = session.exec(select(Proposal).where(Proposal.rematch_of == game.id,
                                                   col(Proposal.status).in_(ProposalStatus.OPEN))).first()
    if open_one is not None:
        if open_one.creator_position == seat.position:
            return proposal_view(session, cfg, open_one)
        raise GameError("rematch_asked")
    if not is_over(game):
        raise GameError("rematch_not_over")
    if not seat.email or seat.kind != SeatKind.HUMAN:
        raise GameError("rematch_needs_address")
    creator_email = seat.email.lower()
    if is_suppressed(session, creator_email):
        raise GameError("creator_suppressed")
    never = suppressed_among(session, [s.email for s in seats if s.kind == SeatKind.HUMAN])
    gone = [s.name for s in seats if s.kind == SeatKind.HUMAN and s.email and s.email.lower() in never]
    if gone:
        raise GameError("players_suppressed", {"names": ", ".join(gone)})
    # Humans are asked again (even one a bot played for), each in the language they played in;
    # bots come back as they were (their kind).
    specs = [SeatSpec(name=s.name, kind=SeatKind.BOT, bot=s.bot) if s.kind == SeatKind.BOT
             else SeatSpec(name=s.name, email=(s.email or "").lower() or None, language=s.language)
             for s in seats]
    first, number = _line_of_rematches(session, game)
    with i18n.using(seat.language):  # named in its creator's words, as any new game
        name = rematch_name(first, number)
    columns = {**GameSettings.of(game).columns(), "name": name}
    proposal = _new_proposal(columns, creator_email=creator_email,
                             creator_position=seat.position, language=seat.language, now=now, confirmed=True,
                             rematch_of=game.id)
    session.add(proposal)
    session.flush()
    limits.take(session, cfg, limits.GAMES_PER_CREATOR, creator_email, now=now)
    invitations = seat_rows(session, proposal, specs, creator=seat.position, now=now, typed=False)
    view = ProposalView(proposal, invitations, links.proposal_url(cfg, proposal.id or 0, proposal.nonce))
    invite(session, cfg, view, [i for i in invitations if i.status == InvitationStatus.WAITING], now=now)
    return start_if_ready(session, cfg, view, now=now)


def _line_of_rematches(session: Session, game: Game) -> tuple[str, int]:
    """The name of the first game of the line `game` ends (a game, its rematch, the rematch's
    rematch, ...) and the number of the rematch about to be made: 1 for a first rematch."""
    number = 1
    first = game
    seen = {game.id}
    while True:
        made_by = session.exec(select(Proposal).where(Proposal.game_id == first.id)).first()
        earlier = session.get(Game, made_by.rematch_of) if made_by and made_by.rematch_of else None
        if earlier is None or earlier.id in seen:
            return first.name, number
        seen.add(earlier.id)
        first, number = earlier, number + 1
