"""Games players start themselves, with everyone's consent before any game mail.

A visitor sets up a game at /new (`propose_game`): a proposal with one invitation row per seat,
and one email, to the creator, with a confirmation link (single use, 24 hours). Nothing goes to
anyone else until the creator confirms (`confirm_proposal`); then each invited human gets one
invitation email (accept, decline, "never email me again") and nothing more until they accept.
When every human has accepted, the proposal becomes a game (`service.create_game`). The creator
is told who declined or let an invitation expire (INVITATION_DAYS) and may replace them with a
bot or another friend, or cancel. Addresses that chose "never email me again" are on the
suppression list (`suppress`), honoured by every path. Counted limits: `pbem/games/limits.py`.

Anyone can type an address, so what mails an address it did not ask for itself (a confirmation
link, a "my games" link, an invitation) is bounded per mailbox (`canonical_key`) and day: the
UNASKED budget, larger once the address answered us (confirmed or accepted: `AddressStanding`);
an invitation from someone it played with counts against that pair only. "I did not ask for
this" (`set_blocked`) stops all of it, and no game of the address is touched. Nothing here tells
a stranger whether an address plays or is on the never-list: /new answers the same for any
address (the creator learns who cannot be invited on their own confirmation page), and /me only
queues the ask; the worker looks the address up (`write_my_games_link`).

Every function that takes a token reads it here (links.LinkError: 400 damaged, 410 expired,
403 replaced) and locks what it changes; GameError (409) when the answer is already given.
"""
from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Sequence

import engine
import engine.bots
from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from pbem import links
from pbem.addresses import canonical_key
from pbem.config import Config
from pbem.games import lifecycle, limits, service
from pbem.games.clocks import preferences
from pbem.games.clocks.preferences import check_time_zone
from pbem.games.clocks.refusals import Refused
from pbem.games.seated import lock_seated
from pbem.games.service import (ON_TIMEOUT_CHOICES, GameError, SeatSpec, SetupError, SetupProblem, check_email,
                                check_game_name, check_name, check_setup, create_game, parse_player,
                                reminder_ladder, remembered_languages)
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.letters import invitations as letters
from pbem.mail import suppression
from pbem.mail.outbox import Email
from pbem.mail.suppression import is_suppressed, suppressed_among
from pbem.mail.writers import Cancel, register_writer
from pbem.store import load_state
from pbem.models import (AddressPreference, AddressStanding, Game, GameStatus, Invitation, InvitationStatus,
                         OutboxMessage, Proposal, ProposalStatus, Seat, SeatKind, utcnow)

# The sentences of the links of this module (pbem.links, English), shown in the reader's language.
LINK_SENTENCES = (
    lazy("This link has expired."),
    lazy("This link is damaged or was not made by us. Copy the whole link from your email."),
    lazy("This link is damaged. Copy the whole link from your email."),
)
REPLACED = lazy("This link has been replaced by a newer one. Use the link in your latest email.")
GONE = lazy("This game is no longer being set up.")


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


@dataclass(frozen=True)
class GameEntry:
    """One game of an address on its "my games" page."""

    game_id: int
    name: str
    status: str
    seat_name: str
    seat_url: str
    to_move: str | None
    your_turn: bool
    deadline_at: datetime | None
    winners: list[str] = field(default_factory=list)
    you_won: bool = False
    left: bool = False


@dataclass(frozen=True)
class ProposalEntry:
    """A game of an address still waiting for its invitations."""

    proposal_id: int
    name: str
    url: str
    creator: bool
    players: list[tuple[str, str]]


@dataclass(frozen=True)
class AddressPrefs:
    timezone: str | None
    reminders: bool
    digest: bool
    play_forced: bool


@dataclass(frozen=True)
class MyGames:
    email: str
    running: list[GameEntry]
    waiting: list[ProposalEntry]
    finished: list[GameEntry]
    prefs: AddressPrefs


# ---------------------------------------------------------------- the setup form
def _lines(players: str) -> list[str]:
    return [line.strip() for line in players.splitlines() if line.strip()]


def _form_problems(your_name: str, your_email: str, lines: list[str], *, teams: bool, name: str,
                   deadline_hours: float, reminders: str, on_timeout: str
                   ) -> tuple[list[SetupProblem], list[SeatSpec]]:
    """The form's problems in the reader's language, each on its field (and line), and the seats
    (the creator first) when there are none."""
    problems: list[SetupProblem] = []
    creator_name = creator_email = ""
    try:
        creator_name = check_name(your_name)
    except GameError:
        problems.append(SetupProblem(_name_problem(your_name), "your_name"))
    try:
        creator_email = check_email(your_email).lower()
    except GameError as exc:  # what is wrong with the address, once there is one
        problems.append(SetupProblem(exc.message if your_email.strip()
                                     else _("Write your email address, like ann@example.com."), "your_email"))
    specs = [SeatSpec(name=creator_name, email=creator_email)]
    names = {creator_name.casefold()} if creator_name else set()
    emails = {canonical_key(creator_email)} if creator_email else set()  # mailboxes: ann@ is Ann+x@
    for index, line in enumerate(lines):
        try:
            spec = parse_player(line)
        except service.BadAddress as exc:
            problems.append(SetupProblem(exc.message, "players", index))
            continue
        except GameError:
            problems.append(SetupProblem(_line_problem(line), "players", index))
            continue
        if spec.kind == SeatKind.HUMAN:
            address = (spec.email or "").lower()
            if canonical_key(address) in emails:
                problems.append(SetupProblem(
                    _("Line %(n)d: %(email)s is already playing in this game.", n=index + 1, email=address),
                    "players", index))
            elif spec.name.casefold() in names:
                problems.append(SetupProblem(
                    _("Line %(n)d: two players are called %(name)s: give them different names.",
                      n=index + 1, name=spec.name), "players", index))
            names.add(spec.name.casefold())
            emails.add(canonical_key(address))
            spec = SeatSpec(name=spec.name, email=address, language=spec.language)
        specs.append(spec)
    if not lines:
        problems.append(SetupProblem(_("Add at least one other player: a friend or a bot."), "players"))
    elif not any(p.field == "players" for p in problems):
        count = len(lines) + 1
        try:  # how many may play: the engine's rule (R2.3), said in the reader's words
            engine.check_config(count, teams, engine.Options())
        except engine.ConfigError:
            problems.append(SetupProblem(
                _("Team play needs 4, 6 or 8 players with you; you have %(n)d.", n=count) if teams else
                _("Korsar is played by 2 to 5 players alone (4, 6 or 8 in teams); with you, you have %(n)d.",
                  n=count), "players"))
    if name.strip():
        try:
            check_game_name(name)
        except GameError:
            problems.append(SetupProblem(_("A game name has at most 80 characters and no line breaks."), "name"))
    try:
        service.check_deadline_hours(deadline_hours)
    except GameError as exc:
        problems.append(SetupProblem(exc.message, "deadline_hours"))
    try:
        reminder_ladder(reminders)
    except GameError:
        problems.append(SetupProblem(
            _("Reminders are percentages of the time for a move, like 50,85."), "reminders"))
    if on_timeout not in ON_TIMEOUT_CHOICES:
        problems.append(SetupProblem(_("Choose what happens when a player runs out of time."), "on_timeout"))
    return problems, specs


def _option_problems(options: dict[str, Any], *, count: int, teams: bool) -> list[SetupProblem]:
    """The engine's options, asked of the engine (R2.3, R7), said in the reader's words."""
    try:
        parsed = service.parse_options(options)
    except GameError:
        return [SetupProblem(_("Choose what happens to the ships left on the table at the end."), "end_settlement")]
    try:
        engine.check_config(count, teams, parsed)
    except engine.ConfigError:  # the player count itself is refused elsewhere, on its own field
        if parsed.waiting_time:
            return [SetupProblem(_("The waiting time is only for games of 2 or 3 players alone."), "waiting_time")]
    return []


def _name_problem(text: str) -> str:
    if not text.strip():
        return _("Write your name as the other players will see it.")
    if service.hides_characters(text):
        return _(service.HIDDEN_IN_NAME)
    return _("A name has at most 40 characters and no line breaks.")


def _line_problem(line: str) -> str:
    if line.lower().startswith("bot:"):
        return _("%(line)s: there is no such bot. Write one of %(bots)s.", line=line[:60],
                 bots=", ".join(f"bot:{name}" for name in engine.bots.BOTS))
    return _("%(line)s: write a player as Name <email@example.com>, or a bot as bot:greedy.",
             line=line[:60])


def _options(proposal: Proposal) -> dict[str, Any]:
    return dict(json.loads(proposal.options_json or "{}"))


def _view(session: Session, cfg: Config, proposal: Proposal, *, reader: Invitation | None = None) -> ProposalView:
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


def propose_game(session: Session, cfg: Config, *, your_name: str, your_email: str, players: str,
                 teams: bool = False, name: str = "", deadline_hours: float = 72.0,
                 reminders: str = "50,85", on_timeout: str = "autoplay", table_talk: bool = False,
                 waiting_time: bool = False, end_settlement: str = "resolve",
                 language: str = "en", ip: str = "", form_id: str = "", now: datetime | None = None) -> Proposal:
    """A game set up at /new, waiting for its creator's confirmation: one email, to the creator,
    written by the worker (which sends it only if the address may be mailed: `may_mail_unasked`).
    `waiting_time` and `end_settlement` are the engine's options (docs/rules.md R6.2, section 7).
    One proposal per form (`form_id`, the page's nonce; see `form_key`): the same form sent again,
    at once or later, is the same proposal. The answer says nothing about the addresses: whether
    one said never or "I did not ask for this" shows only on the creator's confirmation page.
    SetupError (each problem on its field) or LimitReached, and nothing written, otherwise."""
    now = now or utcnow()
    lines = _lines(players)
    problems, specs = _form_problems(your_name, your_email, lines, teams=teams, name=name,
                                     deadline_hours=deadline_hours, reminders=reminders,
                                     on_timeout=on_timeout)
    options = {"end_settlement": end_settlement, "waiting_time": waiting_time}
    problems += _option_problems(options, count=len(lines) + 1, teams=teams)
    if problems:
        raise SetupError(problems)
    setup = check_setup(specs, teams=teams, name=name, deadline_hours=deadline_hours,
                        reminders=reminders, on_timeout=on_timeout)
    creator_email = specs[0].email or ""
    proposal = Proposal(
        status=ProposalStatus.UNCONFIRMED, creator_email=creator_email, creator_position=0,
        nonce=secrets.token_hex(8), language=language, name=setup.name, teams=teams,
        options_json=json.dumps(options, sort_keys=True),
        deadline_hours=float(deadline_hours), reminders=",".join(f"{p:g}" for p in setup.reminders),
        on_timeout=on_timeout, table_talk=table_talk and not teams, created_at=now, updated_at=now,
        confirm_by=now + timedelta(seconds=links.CONFIRM_MAX_AGE))
    proposal.form_key = form_key(form_id, proposal, setup.specs, now=now)
    try:  # the database says whether this form made its proposal already, however close in time
        with session.begin_nested():
            session.add(proposal)
    except IntegrityError:
        return _sent_already(session, proposal.form_key)
    limits.take(session, cfg, limits.CONFIRMATIONS_PER_ADDRESS, creator_email, now=now)
    if ip:
        limits.take(session, cfg, limits.LINKS_PER_IP, ip, now=now)
    _seat_rows(session, proposal, setup.specs, creator=0, now=now)
    letters.queue_confirmation(session, cfg, proposal)
    return proposal


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
        raise GameError(_("This form was sent already and its game is set up. To start another game, "
                          "open the form again."), 409)
    return first


def _seat_rows(session: Session, proposal: Proposal, specs: Sequence[SeatSpec], *, creator: int,
               now: datetime, typed: bool = True) -> list[Invitation]:
    """One invitation row per seat: the creator and bots accepted, humans waiting; `typed`: the
    creator typed these addresses (a rematch's they did not)."""
    assert proposal.id is not None
    remembered = remembered_languages(session, [s.email for s in specs])
    rows = []
    for position, spec in enumerate(specs):
        accepted = position == creator or spec.kind == SeatKind.BOT
        row = Invitation(
            proposal_id=proposal.id, position=position, name=spec.name, email=spec.email,
            kind=spec.kind, bot=spec.bot, nonce=secrets.token_hex(8),
            status=InvitationStatus.ACCEPTED if accepted else InvitationStatus.WAITING,
            language=proposal.language if position == creator
            else spec.language or remembered.get(spec.email or "", proposal.language),
            created_at=now, answered_at=now if accepted else None, creator_typed=typed)
        session.add(row)
        rows.append(row)
    session.flush()
    return rows


# ---------------------------------------------------------------- the creator
def _proposal(session: Session, token: links.RecordToken, *, lock: bool = False) -> Proposal:
    query = select(Proposal).where(Proposal.id == token.id)
    proposal = session.exec(query.with_for_update() if lock else query).first()
    if proposal is None:
        raise links.LinkError(GONE, 404)
    if proposal.nonce != token.nonce:
        raise links.LinkError(REPLACED, 403)
    return proposal


def _confirmable(session: Session, cfg: Config, token: str, *, lock: bool) -> Proposal:
    proposal = _proposal(session, links.read_record(cfg, links.CONFIRM_SALT, token, links.CONFIRM_MAX_AGE),
                         lock=lock)
    if proposal.status == ProposalStatus.EXPIRED:
        raise links.LinkError("This link has expired.", 410)
    if proposal.status != ProposalStatus.UNCONFIRMED:
        raise GameError(_("This game is confirmed already: its page shows where it stands."), 409)
    return proposal


def open_confirmation(session: Session, cfg: Config, token: str) -> ProposalView:
    """The creator's own confirmation step: the game, and which invitees cannot be invited (said
    never, or "I did not ask for this"), shown to nobody before (the link came by email, counted)."""
    view = _view(session, cfg, _confirmable(session, cfg, token, lock=False))
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
    view = _view(session, cfg, proposal)
    _invite(session, cfg, view, [i for i in view.invitations if i.status == InvitationStatus.WAITING], now=now)
    return _start_if_ready(session, cfg, view, now=now)


def _invite(session: Session, cfg: Config, view: ProposalView, rows: list[Invitation], *,
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
    return not _has_answered(session, email)


def _start_if_ready(session: Session, cfg: Config, view: ProposalView, *, now: datetime) -> ProposalView:
    """Every seat accepted: the proposal becomes a game (its welcome emails go to people who
    all said yes)."""
    proposal = view.proposal
    if proposal.status != ProposalStatus.INVITING or any(
            i.status != InvitationStatus.ACCEPTED for i in view.invitations):
        return view
    specs = [SeatSpec(name=i.name, email=i.email, kind=i.kind, bot=i.bot,
                      language=i.language if i.kind == SeatKind.HUMAN else None)
             for i in view.invitations]
    game = create_game(session, cfg, specs, teams=proposal.teams, options=_options(proposal),
                       name=proposal.name, deadline_hours=service.bounded_deadline_hours(proposal.deadline_hours),
                       reminders=proposal.reminders, on_timeout=proposal.on_timeout,
                       table_talk=proposal.table_talk, now=now)
    proposal.status = ProposalStatus.STARTED
    proposal.game_id = game.id
    proposal.updated_at = now
    session.add(proposal)
    session.flush()
    return _view(session, cfg, proposal)


def _managed(session: Session, cfg: Config, token: str, *, lock: bool = False) -> Proposal:
    return _proposal(session, links.read_record(cfg, links.PROPOSAL_SALT, token), lock=lock)


def open_proposal(session: Session, cfg: Config, token: str) -> ProposalView:
    return _view(session, cfg, _managed(session, cfg, token))


def _still_open(proposal: Proposal) -> None:
    if proposal.status == ProposalStatus.STARTED:
        raise GameError(_("This game has started already."), 409)
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError(_("This game was cancelled."), 409)
    if proposal.status != ProposalStatus.INVITING:
        raise GameError(_("Confirm the game first, from the link in your email."), 409)


def replace_invitee(session: Session, cfg: Config, token: str, position: int, player: str, *,
                    now: datetime | None = None) -> ProposalView:
    """A seat that declined or did not answer goes to a bot, or to another friend (invited)."""
    now = now or utcnow()
    proposal = _managed(session, cfg, token, lock=True)
    _still_open(proposal)
    view = _view(session, cfg, proposal)
    row = next((i for i in view.invitations if i.position == position), None)
    if row is None or row.status not in (InvitationStatus.DECLINED, InvitationStatus.EXPIRED):
        raise GameError(_("Only a player who declined or did not answer can be replaced."), 409)
    problems, specs = _form_problems(view.creator.name, proposal.creator_email, [player], teams=proposal.teams,
                                     name="", deadline_hours=proposal.deadline_hours,
                                     reminders=proposal.reminders, on_timeout=proposal.on_timeout)
    problems = [p for p in problems if p.field == "players" and p.seat is not None]
    spec = specs[-1] if not problems else None
    if spec is not None and spec.kind == SeatKind.HUMAN:
        others = {canonical_key(i.email or "") for i in view.invitations if i.position != position}
        if canonical_key(spec.email or "") in others:
            problems.append(SetupProblem(_("%(email)s is already playing in this game.", email=spec.email),
                                         "players", 0))
        elif spec.name.casefold() in {i.name.casefold() for i in view.invitations if i.position != position}:
            problems.append(SetupProblem(_("Two players are called %(name)s: give them different names.",
                                           name=spec.name), "players", 0))
    if problems or spec is None:
        raise SetupError(problems)
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
        row.language = remembered_languages(session, [spec.email]).get(spec.email or "", proposal.language)
        row.status, row.answered_at, row.invited_at = InvitationStatus.WAITING, None, None
        row.creator_typed = True
    row.nonce = secrets.token_hex(8)  # the old invitee's links die
    row.expires_at = None
    session.add(row)
    proposal.updated_at = now
    session.add(proposal)
    session.flush()
    if row.kind == SeatKind.HUMAN:
        _invite(session, cfg, view, [row], now=now)
    return _start_if_ready(session, cfg, view, now=now)


def cancel_proposal(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> ProposalView:
    """The creator gives up: whoever was invited or had accepted is told, once."""
    now = now or utcnow()
    proposal = _managed(session, cfg, token, lock=True)
    if proposal.status == ProposalStatus.STARTED:
        raise GameError(_("This game has started already."), 409)
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError(_("This game was cancelled."), 409)
    return _cancel(session, cfg, proposal, now=now)


def _cancel(session: Session, cfg: Config, proposal: Proposal, *, now: datetime) -> ProposalView:
    """Whoever was invited or had accepted is told, once; the open invitations close."""
    was_inviting = proposal.status == ProposalStatus.INVITING
    proposal.status = ProposalStatus.CANCELLED
    proposal.updated_at = now
    session.add(proposal)
    view = _view(session, cfg, proposal)
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
        raise links.LinkError(GONE, 404)
    if row.nonce != parsed.nonce:
        raise links.LinkError(REPLACED, 403)
    query_p = select(Proposal).where(Proposal.id == row.proposal_id)
    proposal = session.exec(query_p.with_for_update() if lock else query_p).one()
    return row, proposal


def open_invitation(session: Session, cfg: Config, token: str) -> tuple[Invitation, ProposalView]:
    row, proposal = _invitation(session, cfg, token)
    return row, _view(session, cfg, proposal, reader=row)


def _answerable(row: Invitation, proposal: Proposal) -> None:
    if proposal.status == ProposalStatus.CANCELLED:
        raise GameError(_("This game was cancelled by the player who set it up."), 409)
    if row.status == InvitationStatus.ACCEPTED:
        raise GameError(_("You have accepted this invitation already."), 409)
    if row.status == InvitationStatus.DECLINED:
        raise GameError(_("You have declined this invitation already."), 409)
    if row.status == InvitationStatus.EXPIRED:
        raise links.LinkError("This link has expired.", 410)
    if proposal.status != ProposalStatus.INVITING:
        raise GameError(_("This game is no longer being set up."), 409)


def accept_invitation(session: Session, cfg: Config, token: str, *,
                      now: datetime | None = None) -> tuple[Invitation, ProposalView]:
    now = now or utcnow()
    row, proposal = _invitation(session, cfg, token, lock=True)
    _answerable(row, proposal)
    row.status, row.answered_at = InvitationStatus.ACCEPTED, now
    session.add(row)
    answered(session, row.email or "", now=now)
    session.flush()
    view = _start_if_ready(session, cfg, _view(session, cfg, proposal), now=now)
    return row, _view(session, cfg, view.proposal, reader=row)


def decline_invitation(session: Session, cfg: Config, token: str, *,
                       now: datetime | None = None) -> tuple[Invitation, ProposalView]:
    """No thanks: the creator is told and may replace the seat; nothing more goes to them."""
    now = now or utcnow()
    row, proposal = _invitation(session, cfg, token, lock=True)
    _answerable(row, proposal)
    _decline(session, cfg, proposal, row, now=now)
    return row, _view(session, cfg, proposal, reader=row)


def _decline(session: Session, cfg: Config, proposal: Proposal, row: Invitation, *, now: datetime) -> None:
    row.status, row.answered_at = InvitationStatus.DECLINED, now
    session.add(row)
    session.flush()
    view = _view(session, cfg, proposal)
    letters.queue_declined(session, cfg, proposal, row, view.invitations)


# ---------------------------------------------------------------- "never email me again"
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
            _decline(session, cfg, proposal, row, now=now)
        else:
            row.status = InvitationStatus.DECLINED
            session.add(row)
    for proposal in session.exec(select(Proposal).where(Proposal.creator_email == email,
                                                        col(Proposal.status).in_(ProposalStatus.OPEN))).all():
        _cancel(session, cfg, proposal, now=now)
    lifecycle.leave_all_games(session, cfg, email, now=now)


def never_email(session: Session, cfg: Config, token: str, *, now: datetime | None = None) -> str:
    email = read_never_token(cfg, token)
    suppress(session, cfg, email, now=now)
    return email


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
            letters.queue_expired(session, cfg, waiting, expired, _view(session, cfg, waiting).invitations)
    limits.forget_before(session, now - limits.DAY - limits.HOUR)
    return len(unconfirmed) + len(rows)


# ---------------------------------------------------------------- mail an address did not ask for
# Every email an address did not ask for itself (anyone can type it) counts against one budget
# per mailbox and day (pbem/config.py): a confirmation link, a "my games" link, an invitation.
# The two limits count the same events; the larger is the address's once it answered us.
UNASKED = limits.Limit("unasked", "LIMIT_UNASKED_PER_ADDRESS_DAY", limits.DAY)
UNASKED_KNOWN = limits.Limit("unasked", "LIMIT_UNASKED_PER_KNOWN_ADDRESS_DAY", limits.DAY)
INVITATIONS_PER_PAIR = limits.Limit("invite_pair", "LIMIT_INVITATIONS_PER_PAIR_DAY", limits.DAY)
# Why the worker did not write such an email (the admin outbox page shows it).
BLOCKED = "the address said it did not ask for this: nobody's request mails it"
OVER_BUDGET = "the address has had its emails it did not ask for today"
PLAYS_NOTHING = "the address plays no game here"
NOT_WAITING = "the game no longer waits for its confirmation"


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


def _has_answered(session: Session, email: str) -> bool:
    row = _standing(session, email)
    return row is not None and row.answered_at is not None


def unreachable_among(session: Session, emails: Sequence[str | None]) -> set[str]:
    """The lower-case addresses of `emails` nobody's request may mail: on the never-list, or
    they said "I did not ask for this"."""
    given = {e.strip().lower() for e in emails if e}
    keys = {email: canonical_key(email) for email in given}
    blocked = set(session.exec(select(AddressStanding.key).where(
        col(AddressStanding.key).in_(sorted(set(keys.values()))), col(AddressStanding.blocked_at).is_not(None))).all())
    return suppressed_among(session, given) | {email for email, key in keys.items() if key in blocked}


def take_unasked(session: Session, cfg: Config, email: str, *, now: datetime) -> None:
    """Count one email `email` did not ask for itself; LimitReached past its daily budget."""
    limit = UNASKED_KNOWN if _has_answered(session, email) else UNASKED
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
    seats = _view(session, cfg, proposal).invitations
    return letters.confirmation_email(cfg, proposal, seats, plain=not _has_answered(session, row.to_addr))


# ---------------------------------------------------------------- "my games"
def _known(session: Session, email: str) -> bool:
    """Does `email` play with us: a seat, a game they confirmed, or an invitation they got?"""
    return (session.exec(select(Seat.id).where(func.lower(col(Seat.email)) == email).limit(1)).first() is not None
            or session.exec(select(Proposal.id).where(Proposal.creator_email == email,
                                                      col(Proposal.confirmed_at).is_not(None))
                            .limit(1)).first() is not None
            or session.exec(select(Invitation.id).where(Invitation.email == email,
                                                        col(Invitation.invited_at).is_not(None))
                            .limit(1)).first() is not None)


def request_my_games_link(session: Session, cfg: Config, email: str, *, ip: str, language: str = "en",
                          now: datetime | None = None) -> None:
    """Ask for a link to the address's games: queued, whoever the address is, for the worker to
    write if it plays with us and may be mailed (`write_my_games_link`); the request does the
    same work for any address, so neither its answer nor its time says who plays here."""
    now = now or utcnow()
    try:
        email = check_email(email).lower()
    except GameError:
        raise GameError(_("Write an email address, like ann@example.com."), 422) from None
    limits.take(session, cfg, limits.LINKS_PER_ADDRESS, email, now=now)
    if ip:
        limits.take(session, cfg, limits.LINKS_PER_IP, ip, now=now)
    letters.queue_my_games_link(session, cfg, email, language)


def write_my_games_link(session: Session, cfg: Config, row: OutboxMessage, params: dict[str, Any],
                        now: datetime) -> Email | Cancel:
    """The writer of a queued "my games" link: only to an address that plays with us and may
    still be mailed today, in its remembered language (else the one it was asked in)."""
    email = row.to_addr
    if not _known(session, email):
        return Cancel(PLAYS_NOTHING)
    refusal = may_mail_unasked(session, cfg, email, now=now)
    if refusal is not None:
        return Cancel(refusal)
    remembered = session.get(AddressPreference, email)
    language = remembered.language if remembered else str(params.get("language", "en"))
    return letters.my_games_link_email(cfg, email, language)


def register_writers() -> None:
    """Hand the mail transport the writers of the emails anyone can ask for (at start-up)."""
    register_writer(letters.CONFIRM_KIND, write_confirmation)
    register_writer(letters.MY_GAMES_KIND, write_my_games_link)


def read_my_games_token(cfg: Config, token: str) -> str:
    return links.read_address(cfg, links.MY_GAMES_SALT, token, links.MY_GAMES_MAX_AGE)


def _entry(cfg: Config, game: Game, seat: Seat, seats: list[Seat]) -> GameEntry:
    to_move = next((s for s in seats if s.position == game.to_move), None)
    winners: list[str] = []
    you_won = False
    if game.status == GameStatus.FINISHED:
        state = load_state(game)
        winners = engine.winner_names(state, [s.name for s in seats])  # partners joined in team play
        side = engine.team_of(state, seat.position) if game.teams else seat.position
        you_won = side in engine.winners(state)
    return GameEntry(
        game_id=game.id or 0, name=game.name, status=game.status, seat_name=seat.name,
        seat_url=links.seat_url(cfg, links.sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce)),
        to_move=to_move.name if to_move is not None and game.status == GameStatus.RUNNING else None,
        your_turn=game.status == GameStatus.RUNNING and to_move is not None and to_move.position == seat.position,
        deadline_at=game.deadline_at if game.status == GameStatus.RUNNING else None,
        winners=winners, you_won=you_won, left=seat.left_game)


def _prefs(session: Session, email: str) -> AddressPrefs:
    saved = session.get(AddressPreference, email)
    return AddressPrefs(
        timezone=saved.timezone if saved else None,
        reminders=saved.reminders if saved and saved.reminders is not None else True,
        digest=bool(saved and saved.digest),
        play_forced=saved.play_forced if saved and saved.play_forced is not None else True)


def games_of(session: Session, cfg: Config, email: str) -> MyGames:
    """Every game of the address (newest first) and its preferences."""
    email = email.lower()
    seats = session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
                         .where(func.lower(col(Seat.email)) == email, col(Seat.kind) == SeatKind.HUMAN)
                         .order_by(col(Game.created_at).desc()).limit(200)).all()
    running: list[GameEntry] = []
    finished: list[GameEntry] = []
    tables: dict[int, list[Seat]] = {}  # every seat of those games, in one query
    for other in session.exec(select(Seat).where(col(Seat.game_id).in_([game.id for _seat, game in seats]))
                              .order_by(col(Seat.game_id), col(Seat.position))).all():
        tables.setdefault(other.game_id, []).append(other)
    for seat, game in seats:
        entry = _entry(cfg, game, seat, tables.get(game.id or 0, []))
        (running if game.status in (GameStatus.RUNNING, GameStatus.PAUSED) else finished).append(entry)
    waiting = []
    rows = session.exec(select(Invitation, Proposal).join(Proposal, col(Proposal.id) == col(Invitation.proposal_id))
                        .where(col(Invitation.email) == email, col(Proposal.status).in_(ProposalStatus.OPEN))
                        .order_by(col(Proposal.created_at).desc()).limit(100)).all()
    for row, proposal in rows:
        creator = proposal.creator_email == email and row.position == proposal.creator_position
        if not creator and row.invited_at is None:
            continue  # not invited yet: not theirs to see
        assert proposal.id is not None and row.id is not None
        view = _view(session, cfg, proposal)
        waiting.append(ProposalEntry(
            proposal_id=proposal.id, name=proposal.name or " · ".join(i.name for i in view.invitations),
            url=view.manage_url if creator else links.invitation_url(cfg, row.id, row.nonce),
            creator=creator, players=[(i.name, i.status) for i in view.invitations]))
    return MyGames(email=email, running=running, waiting=waiting, finished=finished, prefs=_prefs(session, email))


def my_games(session: Session, cfg: Config, token: str) -> MyGames:
    return games_of(session, cfg, read_my_games_token(cfg, token))


def set_address_preferences(session: Session, cfg: Config, token: str, *, timezone: str, reminders: bool,
                            digest: bool, play_forced: bool, now: datetime | None = None) -> MyGames:
    """Set once for all the address's games: every seat in a game under way takes them now, and
    the next games start with them."""
    now = now or utcnow()
    email = read_my_games_token(cfg, token)
    try:
        zone = check_time_zone(timezone)
    except Refused as exc:
        raise GameError(exc.message, 422) from None
    saved = session.get(AddressPreference, email) or AddressPreference(email=email, language="en")
    saved.timezone, saved.reminders, saved.digest, saved.play_forced = zone, reminders, digest, play_forced
    saved.updated_at = now
    session.add(saved)
    for seat, _game in session.exec(select(Seat, Game).join(Game, col(Game.id) == col(Seat.game_id))
                                    .where(func.lower(col(Seat.email)) == email,
                                          col(Game.status).in_((GameStatus.RUNNING, GameStatus.PAUSED)))).all():
        at = lock_seated(session, seat.game_id, seat.position)
        preferences.set_time_zone(session, cfg, at, zone, now=now)
        preferences.set_reminders(session, cfg, at, reminders, now=now)
        preferences.set_digest(session, cfg, at, digest, now=now)
        preferences.set_play_forced(session, cfg, at, play_forced, now=now)
    session.flush()
    return games_of(session, cfg, email)


# ---------------------------------------------------------------- an admin's game
def invite_players(session: Session, cfg: Config, players: Sequence[SeatSpec | str], *, organiser_email: str,
                   teams: bool = False, options: dict[str, Any] | None = None, name: str = "",
                   deadline_hours: float = 72.0, reminders: str = "50,85", on_timeout: str = "autoplay",
                   table_talk: bool = False, now: datetime | None = None) -> ProposalView:
    """A game an admin (or the CLI) sets up for people who have not said yes yet: each human gets
    one invitation, and the game starts when all have accepted (at once with bots alone).
    `organiser_email` is told of declines and expiries and manages the seats. Raises SetupError
    (English: the dashboard's and CLI's) before writing anything."""
    now = now or utcnow()
    setup = check_setup(players, teams=teams, options=options, name=name, deadline_hours=deadline_hours,
                        reminders=reminders, on_timeout=on_timeout)
    service.refuse_suppressed(session, setup.specs)
    specs = [replace(s, email=s.email.lower()) if s.email else s for s in setup.specs]
    proposal = Proposal(
        status=ProposalStatus.INVITING, creator_email=organiser_email.strip().lower(),
        creator_position=letters.ORGANISER, nonce=secrets.token_hex(8), language="en", name=setup.name,
        teams=teams, options_json=json.dumps(options or {}, sort_keys=True), deadline_hours=float(deadline_hours),
        reminders=",".join(f"{p:g}" for p in setup.reminders), on_timeout=on_timeout,
        table_talk=table_talk and not teams, created_at=now, updated_at=now, confirm_by=now, confirmed_at=now)
    session.add(proposal)
    session.flush()
    rows = _seat_rows(session, proposal, specs, creator=letters.ORGANISER, now=now)
    view = ProposalView(proposal, rows, links.proposal_url(cfg, proposal.id or 0, proposal.nonce))
    _invite(session, cfg, view, [i for i in rows if i.status == InvitationStatus.WAITING], now=now)
    return _start_if_ready(session, cfg, view, now=now)


# ---------------------------------------------------------------- rematch
def rematch(session: Session, cfg: Config, game: Game, seat: Seat, *,
            now: datetime | None = None) -> ProposalView:
    """Same players and options: the asking seat is the creator (their link proved the address),
    the other humans are invited again (by name: the creator's page shows no address it did not
    type), bots carried over. One rematch of a game at a time: asked again (a double click) it is
    the same one; asked by another player, refused (their invitation is on its way). It counts
    against its creator's limits only: the others have played with them (`_count_invitation`)."""
    now = now or utcnow()
    service.lock_game(session, game.id or 0)  # two rematches of one game at once: one at a time
    open_one = session.exec(select(Proposal).where(Proposal.rematch_of == game.id,
                                                   col(Proposal.status).in_(ProposalStatus.OPEN))).first()
    if open_one is not None:
        if open_one.creator_position == seat.position:
            return _view(session, cfg, open_one)
        raise GameError(_("Another player has asked for a rematch of this game already: your invitation "
                          "is in your email."), 409)
    if game.status not in (GameStatus.FINISHED, GameStatus.ABORTED):
        raise GameError(_("This game is not over yet: a rematch can start once it has ended."), 409)
    if not seat.email or seat.kind != SeatKind.HUMAN:
        raise GameError(_("Only a player with an email address can ask for a rematch."), 409)
    creator_email = seat.email.lower()
    if is_suppressed(session, creator_email):
        raise GameError(_("This address asked us never to email it again."), 409)
    seats = service.seats_of(session, game.id or 0)
    never = suppressed_among(session, [s.email for s in seats if s.kind == SeatKind.HUMAN])
    gone = [s.name for s in seats if s.kind == SeatKind.HUMAN and s.email and s.email.lower() in never]
    if gone:
        raise GameError(_("%(names)s asked never to receive email from us: start a new game instead.",
                          names=", ".join(gone)), 409)
    # Humans are asked again (even one a bot played for); bots come back as they were.
    specs = [SeatSpec(name=s.name, kind=SeatKind.BOT, bot=s.bot) if s.kind == SeatKind.BOT
             else SeatSpec(name=s.name, email=(s.email or "").lower() or None) for s in seats]
    proposal = Proposal(
        status=ProposalStatus.INVITING, creator_email=creator_email, creator_position=seat.position,
        nonce=secrets.token_hex(8), language=seat.language, name=game.name, teams=game.teams,
        options_json=game.options_json, deadline_hours=service.bounded_deadline_hours(game.deadline_hours),
        reminders=game.reminders,
        on_timeout=game.on_timeout, table_talk=game.table_talk, created_at=now, updated_at=now,
        confirm_by=now, confirmed_at=now, rematch_of=game.id)
    session.add(proposal)
    session.flush()
    limits.take(session, cfg, limits.GAMES_PER_CREATOR, creator_email, now=now)
    invitations = _seat_rows(session, proposal, specs, creator=seat.position, now=now, typed=False)
    view = ProposalView(proposal, invitations, links.proposal_url(cfg, proposal.id or 0, proposal.nonce))
    _invite(session, cfg, view, [i for i in invitations if i.status == InvitationStatus.WAITING], now=now)
    return _start_if_ready(session, cfg, view, now=now)
