"""The emails of games players set up themselves (pbem/games/invitations.py calls them): the
creator's confirmation link, one invitation per invited human, the creator told of a decline or
of invitations left unanswered, an invitee told the game was cancelled, and the "my games" link.

None of these is about a seat: each carries the address's "never email me again" link (in its
footer and as its one-click List-Unsubscribe) instead of a seat's unsubscribe link, and none is
queued for an address on the suppression list. They show names, the game's setup and its clock,
never a hand, and no address but the reader's own. Each is written in its reader's language: the
creator's (`proposal.language`), the invitee's (`invitation.language`), or the one the visitor
asked in (the "my games" link).

The three an address did not ask for itself (a confirmation link, an invitation, a "my games"
link: anyone can type an address) carry "I did not ask for this" (`not_me_url`), and `plain`
ones, to an address that never answered us, carry no words of the requester's but the names, cut
short (SHORT_NAME): no game name.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from babel.numbers import format_percent
from sqlmodel import Session

import pbem.i18n as i18n
from pbem import links
from pbem.config import Config
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.letters.send import Address, build, queue
from pbem.mail.outbox import Email, OutboxRow
from pbem.mail.suppression import is_suppressed
from pbem.present.grammar import together
from pbem.present.names import default_game_name, reader_names, seat_name
from pbem.models import AddressPreference, Invitation, InvitationStatus, OnTimeout, Proposal, SeatKind
from pbem.schedule import parse_ladder
from pbem.words import plural
from pbem.zones import zone_in_words

CONFIRM_HOURS = links.CONFIRM_MAX_AGE // 3600
MY_GAMES_DAYS = links.MY_GAMES_MAX_AGE // (24 * 3600)
# "I did not ask for this": an address token (pbem.links) of its own purpose, with no age: the
# page it opens also lifts the block again.
NOT_ME_SALT = "korsar.not-me"
SHORT_NAME = 20  # a name in a plain email is cut to this many characters (with the ellipsis)
# The two emails anyone can ask for are written by the worker just before they are sent (their
# writers are registered under their kinds by pbem/games/proposals.py), or cancelled there: the
# request does the same work whoever the address is. Until then the admin outbox page shows:
CONFIRM_KIND, MY_GAMES_KIND = "confirm_game", "my_games_link"
DEFERRED_TEXT = {
    CONFIRM_KIND: "Written just before it is sent, if the game still waits for its confirmation and "
                  "the address may still be mailed today; cancelled otherwise.",
    MY_GAMES_KIND: "Written just before it is sent, if the address plays here and may still be mailed "
                   "today; cancelled otherwise.",
}


ORGANISER = -1  # Proposal.creator_position of a game an admin set up: its creator has no seat
ORGANISER_NAME = "Korsar by mail"  # who invites, for such a game (with the admin's address)


def creator_of(proposal: Proposal, invitations: Sequence[Invitation]) -> Invitation:
    """The creator's own row (its name is the creator's name); for a game an admin set up, a row
    that stands for the organiser and is not a seat (never stored)."""
    if proposal.creator_position == ORGANISER:
        return Invitation(proposal_id=proposal.id or 0, position=ORGANISER, name=ORGANISER_NAME,
                          email=proposal.creator_email, status=InvitationStatus.ACCEPTED, nonce="",
                          language=proposal.language)
    return next(i for i in invitations if i.position == proposal.creator_position)


def not_me_url(cfg: Config, email: str) -> str:
    """The "I did not ask for this" page of `email` (GET asks, POST blocks or allows again)."""
    return f"{cfg.BASE_URL}/not-me/{links.sign_address(cfg, NOT_ME_SALT, email)}"


def short(name: str) -> str:
    """A name as a plain email shows it: at most SHORT_NAME characters."""
    return name if len(name) <= SHORT_NAME else name[:SHORT_NAME - 1].rstrip() + "…"


def player_name(invitation: Invitation, invitations: Sequence[Invitation]) -> str:
    """A person's name as typed; a bot by its kind, numbered among its game's, in the reader's
    language (pbem/present/names.py: the stored name is English)."""
    return seat_name(invitation, invitations)


# What the creator reads of each seat's answer (emails and the creator's page).
STATUS_NOTES: dict[str, str] = {
    InvitationStatus.WAITING: lazy("waiting for your confirmation"),
    InvitationStatus.INVITED: lazy("invited, no answer yet"),
    InvitationStatus.ACCEPTED: lazy("accepted"),
    InvitationStatus.DECLINED: lazy("declined"),
    InvitationStatus.EXPIRED: lazy("did not answer in time"),
}


@dataclass(frozen=True)
class TimeoutWords:
    """One timeout policy in words: `sentence` in the emails and pages of a game and `choice` in
    the /new form's select (the reader's language), `admin` in the dashboard's select (English)."""

    sentence: str
    choice: str
    admin: str


# What happens when a player's time for a move is up (Game/Proposal.on_timeout).
ON_TIMEOUT_WORDS: dict[OnTimeout, TimeoutWords] = {
    OnTimeout.AUTOPLAY: TimeoutWords(lazy("When the time is up, a bot plays that one move for the player."),
                                     lazy("a bot plays one move for them, and the game goes on"),
                                     "a bot plays that one move"),
    OnTimeout.PAUSE: TimeoutWords(lazy("When the time is up, the game pauses until an admin resumes it."),
                                  lazy("the game pauses until an admin resumes it"),
                                  "pause the game"),
    OnTimeout.BOT: TimeoutWords(lazy("When the time is up, a bot plays that player's seat for the rest of the game."),
                                lazy("a bot takes over their seat for the rest of the game"),
                                "a bot takes over the seat"),
}


def _note(proposal: Proposal, invitation: Invitation, reader: Invitation | None,
          with_status: bool) -> str:
    """What follows a player's name in the list: you, who invites, a bot, or their answer."""
    if reader is not None and invitation.position == reader.position:
        return _("you")
    if invitation.kind == SeatKind.BOT:  # its name says it is a bot
        return ""
    if invitation.position == proposal.creator_position:
        return _("invites you") if reader is not None else ""
    return answer_note(invitation) if with_status else ""


def _players(proposal: Proposal, invitations: Sequence[Invitation], reader: Invitation | None,
             *, with_status: bool = False, plain: bool = False) -> list[dict[str, Any]]:
    """The seats in order, as the templates list them: names only, never an address."""
    name = short if plain else str
    return [{"name": name(player_name(i, invitations)), "note": _note(proposal, i, reader, with_status),
             "bot": i.kind == SeatKind.BOT, "creator": i.position == proposal.creator_position}
            for i in sorted(invitations, key=lambda i: i.position)]


# A seat declined at once, never invited: its address said never, or "I did not ask for this".
NOT_INVITABLE = lazy("cannot be invited")


def status_note(status: str) -> str:
    return _(STATUS_NOTES[status]) if status in STATUS_NOTES else status


def answer_note(invitation: Invitation) -> str:
    """A seat's answer in words, for its creator."""
    if invitation.status == InvitationStatus.DECLINED and invitation.invited_at is None:
        return _(NOT_INVITABLE)
    return status_note(invitation.status)


def teams_sentence(proposal: Proposal, invitations: Sequence[Invitation], *, plain: bool = False) -> str:
    """Partners sit side by side: seats 0 and 1, 2 and 3, ... (engine.team_of)."""
    if not proposal.teams:
        return _("Every player plays for themselves.")
    name = short if plain else str
    names = [name(n) for n in reader_names(invitations)]
    pairs = [together(names[start:start + 2]) for start in range(0, len(names), 2)]
    return _("Teams of two: %(teams)s. Partners see each other's hands.", teams=" · ".join(pairs))


def clock_sentences(proposal: Proposal) -> list[str]:
    """The turn clock in sentences: time per move, the reminders, what a timeout does, and
    whether players may talk to the table (emails and the pages of a game being set up)."""
    steps = [format_percent(step / 100, locale=i18n.locale()) for step in parse_ladder(proposal.reminders)]
    reminders = (i18n.ngettext("A reminder by email when %(steps)s of that time has gone.",
                               "Reminders by email when %(steps)s of that time have gone.",
                               len(steps), steps=together(steps))
                 if steps else _("No reminders."))
    hours = proposal.deadline_hours
    per_move = plural(hours // 24, "day") if float(hours).is_integer() and hours % 24 == 0 else plural(hours, "hour")
    words = ON_TIMEOUT_WORDS.get(proposal.on_timeout)  # type: ignore[call-overload]  # a StrEnum's key is its str
    timeout = words.sentence if words else None
    options = json.loads(proposal.options_json or "{}")
    return [_("Time for each move: %(time)s.", time=per_move), reminders, *([_(timeout)] if timeout else []),
            *([_("Players may talk to the whole table.")] if proposal.table_talk else []),
            *([_("House rule: the waiting time (a ship a weaker first pirate was played on is not "
                 "captured before that player's next turn).")] if options.get("waiting_time") else []),
            *([_("Ships left on the table at the end score for nobody.")]
              if options.get("end_settlement") == "none" else [])]


def proposal_name(proposal: Proposal, invitations: Sequence[Invitation], *, plain: bool = False) -> str:
    """A game being set up by its name: the one its creator gave, else its default one (an older
    proposal's has none stored); a plain email's is its default of names cut short, or ours."""
    if not plain and proposal.name:
        return proposal.name
    names = reader_names(invitations)
    if not plain:
        return default_game_name(names, teams=proposal.teams)
    with i18n.using(proposal.language):  # the name stored is its creator's default one
        defaulted = not proposal.name or proposal.name == default_game_name(reader_names(invitations),
                                                                              teams=proposal.teams)
    return default_game_name([short(n) for n in names], teams=proposal.teams) if defaulted else _("A new game")


def _common(cfg: Config, proposal: Proposal | None, to_addr: str, *, plain: bool = False,
            invitations: Sequence[Invitation] = ()) -> dict[str, Any]:
    """What every one of these emails shows: the game's name in the header (a plain email's
    holds no words of the requester's but names), the rules, and the reader's ways to stop our mail."""
    name = proposal_name(proposal, invitations, plain=plain) if proposal is not None else _("A new game")
    return {"game": {"name": name}, "rules_url": links.rules_url(cfg), "home_url": f"{cfg.BASE_URL}/",
            "never_url": links.never_url(cfg, to_addr), "not_me_url": not_me_url(cfg, to_addr)}


def _about(cfg: Config, proposal: Proposal, invitations: Sequence[Invitation], to_addr: str,
           reader: Invitation | None, *, with_status: bool = False, plain: bool = False) -> dict[str, Any]:
    """The game being set up, for its creator or an invitee (`reader`: their row): names, never
    an address."""
    creator = creator_of(proposal, invitations)
    players = _players(proposal, invitations, reader, with_status=with_status, plain=plain)
    return {**_common(cfg, proposal, to_addr, plain=plain, invitations=invitations), "players": players,
            "teams": teams_sentence(proposal, invitations, plain=plain),
            "creator": {"name": short(creator.name) if plain else creator.name},
            "organised": proposal.creator_position == ORGANISER,
            "clock": clock_sentences(proposal)}


@i18n.speaking_to("to")
def _queue_deferred(session: Session, cfg: Config, kind: str, to: Address,
                    params: dict[str, Any]) -> OutboxRow | None:
    """An email anyone can ask for, queued to be written at delivery (its subject, in the
    reader's language, names no game: the requester wrote the game's name)."""
    subject = {"game": {"name": _("A new game")}}
    return queue(session, cfg, kind, to, subject, write_at_delivery=DEFERRED_TEXT[kind], params=params)


def queue_confirmation(session: Session, cfg: Config, proposal: Proposal) -> OutboxRow | None:
    """"Confirm your game", to the creator, written at delivery (`confirmation_email`) or
    cancelled there (the address said never, or may not be mailed any more today)."""
    return _queue_deferred(session, cfg, CONFIRM_KIND, Address(proposal.creator_email, proposal.language),
                           {"proposal_id": proposal.id})


@i18n.speaking_to("proposal")
def confirmation_email(cfg: Config, proposal: Proposal, invitations: Sequence[Invitation], *,
                       plain: bool = False) -> Email:
    """"Confirm your game", to the creator: the setup, the single-use link (24 hours), what
    happens next. The only email of a proposal before the creator confirms it."""
    to_addr = proposal.creator_email
    creator = creator_of(proposal, invitations)
    context = {**_about(cfg, proposal, invitations, to_addr, creator, plain=plain),
               "confirm_url": links.confirm_url(cfg, proposal.id, proposal.nonce),  # type: ignore[arg-type]  # stored: its id is set
               "valid_hours": plural(CONFIRM_HOURS, "hour"),
               "invites_anyone": any(i.kind != SeatKind.BOT and i.position != creator.position
                                     for i in invitations)}
    return build(cfg, CONFIRM_KIND, Address(to_addr, proposal.language), context)


def reader_zone(session: Session, email: str | None, proposal: Proposal) -> str:
    """The zone an invitation's dates are written in: the one the address chose on its "my
    games" page, else its creator's (a friend most likely lives where the creator does), else
    UTC (then said as UTC)."""
    for address in (email, proposal.creator_email):
        saved = session.get(AddressPreference, (address or "").lower()) if address else None
        if saved is not None and saved.timezone:
            return saved.timezone
    return "UTC"


def expiry_text(when: Any, zone: str) -> str:
    """An invitation's expiry in words, its zone named: "8 décembre 2026 à 20 h 01 (heure de
    Paris)", "December 8, 2026, 7:01 PM (UTC)"."""
    return f"{i18n.format_datetime(when, zone)} {zone_in_words(zone)}"


@i18n.speaking_to("invitation")
def queue_invitation(session: Session, cfg: Config, proposal: Proposal, invitation: Invitation,
                     invitations: Sequence[Invitation], *, plain: bool = False) -> OutboxRow | None:
    """The one invitation an invited human gets: who invites them (by name), the game, the
    clock, the page where they accept or decline, its expiry, and "never email me again"."""
    to_addr = invitation.email
    if not to_addr or is_suppressed(session, to_addr):
        return None
    context = {**_about(cfg, proposal, invitations, to_addr, invitation, plain=plain),
               "you": short(invitation.name) if plain else invitation.name,
               "answer_url": links.invitation_url(cfg, invitation.id, invitation.nonce),  # type: ignore[arg-type]  # stored: its id is set
               "expires": (expiry_text(invitation.expires_at, reader_zone(session, to_addr, proposal))
                           if invitation.expires_at else None)}
    return queue(session, cfg, "invitation", Address(to_addr, invitation.language), context)


@i18n.speaking_to("proposal")
def _to_creator(session: Session, cfg: Config, kind: str, proposal: Proposal,
                invitations: Sequence[Invitation], missing: Sequence[Invitation]) -> OutboxRow | None:
    """The creator told that `missing` will not play (declined, or did not answer in time), with
    their page, where they replace them with a bot or another friend, or cancel."""
    to_addr = proposal.creator_email
    if is_suppressed(session, to_addr):
        return None
    creator = creator_of(proposal, invitations)
    context = {**_about(cfg, proposal, invitations, to_addr, creator, with_status=True),
               "missing": together([player_name(i, invitations) for i in missing]),
               "manage_url": links.proposal_url(cfg, proposal.id, proposal.nonce)}  # type: ignore[arg-type]  # stored: its id is set
    return queue(session, cfg, kind, Address(to_addr, proposal.language), context)


def queue_declined(session: Session, cfg: Config, proposal: Proposal, invitation: Invitation,
                   invitations: Sequence[Invitation]) -> OutboxRow | None:
    """To the creator: the friend invited as `invitation` declined."""
    return _to_creator(session, cfg, "invitation_declined", proposal, invitations, [invitation])


def queue_bounced(session: Session, cfg: Config, proposal: Proposal, invitation: Invitation,
                  invitations: Sequence[Invitation]) -> OutboxRow | None:
    """To the creator: the invitation to `invitation` bounced (its mailbox refused it)."""
    return _to_creator(session, cfg, "invitation_bounced", proposal, invitations, [invitation])


def queue_expired(session: Session, cfg: Config, proposal: Proposal, expired: list[Invitation],
                  invitations: Sequence[Invitation]) -> OutboxRow | None:
    """To the creator: the invitations `expired` were not answered in time."""
    if not expired:
        return None
    return _to_creator(session, cfg, "invitations_expired", proposal, invitations, expired)


@i18n.speaking_to("invitation")
def queue_proposal_cancelled(session: Session, cfg: Config, proposal: Proposal, invitation: Invitation,
                             invitations: Sequence[Invitation]) -> OutboxRow | None:
    """To an invitee who had accepted or was invited: the creator cancelled the game; nothing
    more will come about it."""
    to_addr = invitation.email
    if not to_addr or is_suppressed(session, to_addr):
        return None
    creator = creator_of(proposal, invitations)
    context = {**_common(cfg, proposal, to_addr, invitations=invitations), "you": invitation.name,
               "creator": {"name": creator.name},
               "accepted": invitation.status == InvitationStatus.ACCEPTED}
    return queue(session, cfg, "proposal_cancelled", Address(to_addr, invitation.language), context)


def queue_my_games_link(session: Session, cfg: Config, email: str, language: str) -> OutboxRow | None:
    """A "my games" link asked for at /me, written at delivery (`my_games_link_email`) or
    cancelled there: the request does the same work whoever the address is."""
    return _queue_deferred(session, cfg, MY_GAMES_KIND, Address(email, language), {"language": language})


def my_games_link_email(cfg: Config, email: str, language: str) -> Email:
    """The signed link to the address's "my games" page (7 days), asked for at /me."""
    return _my_games_link(cfg, Address(email, language))


@i18n.speaking_to("to")
def _my_games_link(cfg: Config, to: Address) -> Email:
    context = {**_common(cfg, None, to.email), "game": {"name": _("Your games")},
               "my_games_url": links.my_games_url(cfg, to.email),
               "valid_days": plural(MY_GAMES_DAYS, "day")}
    return build(cfg, MY_GAMES_KIND, to, context)
