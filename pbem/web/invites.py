"""Blueprint 'invites': the pages behind the links of a game being set up. No account, no cookie.

GET  /p/<token>/confirm            the creator's confirmation page: the game, one button
POST /p/<token>/confirm            confirm (single use): invitations go out; 303 to the creator's page
GET  /p/<token>                    the creator's page: each seat and its answer, the game once started
POST /p/<token>/replace/<position> replace a declined or expired invitee by a bot or another friend
GET  /p/<token>/cancel             "cancel this game?"; POST cancels it
GET  /i/<token>                    an invitation: who invites, the game, accept / decline buttons
POST /i/<token>/accept, /decline   the answer
GET  /never/<token>                "never email me again?"; POST (also RFC 8058 one-click) does it
GET  /not-me/<token>               "you did not ask for this?"; POST blocks anyone's requests to the
                                   address (`action=allow` lets them through again); games untouched

GET and HEAD change nothing (mail scanners open every link): each link opens a page whose form
POSTs. The signed token is the credential and the CSRF defence. A page reached with a creator's
token speaks the proposal's language, with an invitation's token the invitation's, unless the
visitor chose one (`?lang=` or the language switch's cookie, pbem/web/i18n_web.py).
"""
from __future__ import annotations

from functools import partial
from typing import Any
from urllib.parse import urlsplit

import engine
from flask import Blueprint, g, redirect, render_template, request
from pbem import i18n, links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import invitations, proposals, unasked_mail
from pbem.games.never import never_email, read_never_token
from pbem.games.invitations import ProposalView
from pbem.games.limits import LimitReached
from pbem.games.errors import GameError
from pbem.games.setup import SetupError
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.letters.invitations import answer_note, clock_sentences, player_name, proposal_name, teams_sentence
from pbem.models import Invitation, Proposal
from pbem.web.error_page import error_page
from pbem.web.i18n_web import speak_stored
from pbem.web.limited import limit_page
from pbem.refusals import Refusal

bp = Blueprint("invites", __name__)

FRIEND = "friend"  # the replace form's choice of a person instead of a bot
NOT_ME_ACTIONS = ("block", "allow")  # the buttons of the "I did not ask for this" page


# ---------------------------------------------------------------- language, links, refusals
def _path(url: str | None) -> str | None:
    """A signed URL of ours as a path: pages and redirects work on whatever host serves them."""
    if not url:
        return None
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _refused(exc: Exception, link: str | None = None, link_text: str | None = None) -> Any:
    """The page of a refused link or answer: its status, the reason in words, nothing changed."""
    if isinstance(exc, LimitReached):
        return limit_page(exc)
    assert isinstance(exc, Refusal)  # a link's or the domain's, worded in the reader's language
    return error_page("setup", exc.text(), exc.status, link=_path(link), link_text=link_text)


def _row_of(salt: str, token: str, model: type[Proposal] | type[Invitation]) -> Any:
    """The row a token names if its signature holds (even past its age) and its nonce is the
    row's, else None: what a page needs to speak its reader's language, or to link on."""
    try:
        parsed = links.read_record(config(), salt, token)
    except links.LinkError:
        return None
    with read_scope(db()) as db_session:
        row: Proposal | Invitation | None = db_session.get(model, parsed.id)  # type: ignore[assignment]  # get() of either model
        return row if row is not None and row.nonce == parsed.nonce else None


def _speak_for(salt: str, token: str, model: type[Proposal] | type[Invitation]) -> Any:
    """Speak the language of the token's row from the start, so that the domain's refusals
    (translated where they are raised) are in it too; the row, or None."""
    row = _row_of(salt, token, model)
    # An invitee nobody chose a language for reads the browser's (pbem/models.py Invitation).
    speak_stored(row.language if row is not None and getattr(row, "language_chosen", True) else None)
    # the page's proven reader, whose zone a refusal's time is told in (web/limited.py)
    g.reader_email = None if row is None else getattr(row, "creator_email", None) or getattr(row, "email", None)
    return row


# ---------------------------------------------------------------- what the pages show
PROPOSAL_WORDS = {
    "unconfirmed": lazy("Waiting for your confirmation: nobody has been invited yet."),
    "inviting": lazy("Invitations sent: the game starts when everybody has accepted."),
    "started": lazy("The game has started."),
    "cancelled": lazy("This game was cancelled."),
    "expired": lazy("This game was never confirmed, so it was not set up."),
}


def _seat_rows(view: ProposalView, reader: Invitation | None, with_addresses: bool) -> list[dict[str, Any]]:
    """Each seat of the game to be, in order; addresses only for the creator, and only those
    they typed (a rematch's seats are names)."""
    rows = []
    for invitation in view.invitations:
        is_bot = invitation.kind == "bot"
        rows.append({
            "position": invitation.position, "name": player_name(invitation, view.invitations), "bot": is_bot,
            "email": invitation.email if with_addresses and invitation.creator_typed and not is_bot else None,
            "status": invitation.status,
            "status_text": answer_note(invitation),
            "unreachable": invitation.position in view.unreachable,
            "creator": invitation.position == view.creator.position,
            "you": reader is not None and invitation.position == reader.position,
            "replaceable": view.open and invitation.status in ("declined", "expired"),
        })
    return rows


def _clock(view: ProposalView) -> list[str]:
    """The game's setup in the sentences its emails use (pbem/letters/invitations.py)."""
    return [teams_sentence(view.proposal, view.invitations), *clock_sentences(view.proposal)]


def _game_name(view: ProposalView) -> str:
    return proposal_name(view.proposal, view.invitations)


def _proposal_page(token: str, view: ProposalView, *, status: int = 200, replace_errors: dict[int, str] | None = None,
                   typed: dict[int, dict[str, str]] | None = None) -> tuple[str, int]:
    return render_template(
        "public/proposal.html", token=token, view=view, game_name=_game_name(view),
        seats=_seat_rows(view, view.creator, with_addresses=True), clock=_clock(view),
        state_text=_(PROPOSAL_WORDS.get(view.proposal.status, view.proposal.status)),
        game_url=_path(view.game_url), bots=engine.bots.LEVELS, friend=FRIEND,
        replace_errors=replace_errors or {}, typed=typed or {}), status


# ---------------------------------------------------------------- the creator's confirmation
@bp.route("/p/<token>/confirm", methods=["GET"])
def confirm_page(token: str) -> Any:
    """The game as set up, and one button. Changes nothing."""
    _speak_for(links.CONFIRM_SALT, token, Proposal)
    try:
        with read_scope(db()) as db_session:
            view = proposals.open_confirmation(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _confirm_refused(token, exc)
    return render_template("public/confirm.html", token=token, view=view, game_name=_game_name(view),
                           seats=_seat_rows(view, view.creator, with_addresses=True), clock=_clock(view))


@bp.route("/p/<token>/confirm", methods=["POST"])
def confirm(token: str) -> Any:
    """Confirm once: the invitations go out (or the game starts: nobody to invite)."""
    _speak_for(links.CONFIRM_SALT, token, Proposal)
    try:
        with session_scope(db()) as db_session:
            view = proposals.confirm_proposal(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _confirm_refused(token, exc)
    return redirect(_path(view.manage_url) or "/", code=303)


def _confirm_refused(token: str, exc: Exception) -> Any:
    """A confirmation link used already (409) leads on to the creator's page."""
    proposal = _row_of(links.CONFIRM_SALT, token, Proposal) if getattr(exc, "status", 400) == 409 else None
    if proposal is None:
        return _refused(exc)
    manage = links.proposal_url(config(), proposal.id, proposal.nonce)
    return _refused(exc, manage, _("Open the page of your game"))


# ---------------------------------------------------------------- the creator's page
@bp.route("/p/<token>", methods=["GET"])
def proposal_page(token: str) -> Any:
    _speak_for(links.PROPOSAL_SALT, token, Proposal)
    try:
        with read_scope(db()) as db_session:
            view = proposals.open_proposal(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _refused(exc)
    return _proposal_page(token, view)


def _replacement() -> tuple[str, dict[str, str]]:
    """The replace form as the domain's player line ('bot:greedy' or 'Name <email>'), and what
    was typed (to show it again)."""
    choice = request.form.get("replacement", "").strip()
    typed = {"replacement": choice, "friend_name": request.form.get("friend_name", "").strip(),
             "friend_email": request.form.get("friend_email", "").strip()}
    if choice == FRIEND:
        return f"{typed['friend_name']} <{typed['friend_email']}>", typed
    return choice, typed


@bp.route("/p/<token>/replace/<id(min=0):position>", methods=["POST"])
def replace(token: str, position: int) -> Any:
    """A declined or expired seat goes to a bot or another friend (who gets an invitation)."""
    _speak_for(links.PROPOSAL_SALT, token, Proposal)
    player, typed = _replacement()
    try:
        with session_scope(db()) as db_session:
            view = proposals.replace_invitee(db_session, config(), token, position, player)
    except LimitReached as exc:
        return limit_page(exc)
    except links.LinkError as exc:
        return _refused(exc)
    except SetupError as exc:  # a bad player: the page again, the reason beside the form
        return _replace_refused(token, position, exc.problems[0].message if exc.problems else exc.message,
                                typed, exc)
    except GameError as exc:
        if exc.status == 422:
            return _replace_refused(token, position, exc.message, typed, exc)
        return _refused(exc, _path(_row_url(token)), _("Open the page of your game"))
    return redirect(_path(view.manage_url) or "/", code=303)


def _replace_refused(token: str, position: int, message: str, typed: dict[str, str], exc: Exception) -> Any:
    """The creator's page (422) with `message` beside the replace form of `position`."""
    try:
        with read_scope(db()) as db_session:
            view = proposals.open_proposal(db_session, config(), token)
    except (links.LinkError, GameError):
        return _refused(exc)
    return _proposal_page(token, view, status=422, replace_errors={position: message},
                          typed={position: typed})


def _row_url(token: str) -> str | None:
    """The creator's page of a valid creator's token (to link from a refusal)."""
    proposal = _row_of(links.PROPOSAL_SALT, token, Proposal)
    return links.proposal_url(config(), proposal.id, proposal.nonce) if proposal is not None else None


@bp.route("/p/<token>/cancel", methods=["GET"])
def cancel_page(token: str) -> Any:
    """"Cancel this game?" and one button. Changes nothing."""
    _speak_for(links.PROPOSAL_SALT, token, Proposal)
    try:
        with read_scope(db()) as db_session:
            view = proposals.open_proposal(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _refused(exc)
    if not view.open:
        return _refused(GameError("cannot_cancel"), _path(view.manage_url),
                        _("Open the page of your game"))
    return render_template("public/cancel.html", token=token, view=view, game_name=_game_name(view))


@bp.route("/p/<token>/cancel", methods=["POST"])
def cancel(token: str) -> Any:
    _speak_for(links.PROPOSAL_SALT, token, Proposal)
    try:
        with session_scope(db()) as db_session:
            view = proposals.cancel_proposal(db_session, config(), token)
    except links.LinkError as exc:
        return _refused(exc)
    except GameError as exc:  # started or cancelled already: its page shows it
        return _refused(exc, _path(_row_url(token)), _("Open the page of your game"))
    return redirect(_path(view.manage_url) or "/", code=303)


# ---------------------------------------------------------------- an invitation
def _invitation_page(template: str, token: str, invitation: Invitation, view: ProposalView,
                     **extra: Any) -> str:
    return render_template(
        template, token=token, invitation=invitation, view=view, game_name=_game_name(view),
        creator=view.creator, seats=_seat_rows(view, invitation, with_addresses=False), clock=_clock(view),
        game_url=_path(view.game_url), never_url=_path(links.never_url(config(), invitation.email))
        if invitation.email else None, **extra)


@bp.route("/i/<token>", methods=["GET"])
def invitation_page(token: str) -> Any:
    """Who invites, the game, the players and the clock; accept and decline buttons."""
    _speak_for(links.INVITATION_SALT, token, Invitation)
    try:
        with read_scope(db()) as db_session:
            invitation, view = invitations.open_invitation(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _refused(exc)
    return _invitation_page("public/invitation.html", token, invitation, view)


def _answer(token: str, answer: Any, accepted: bool) -> Any:
    _speak_for(links.INVITATION_SALT, token, Invitation)
    try:
        with session_scope(db()) as db_session:
            invitation, view = answer(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _refused(exc)
    # Rendered after the commit: the page does not hold the database's write lock.
    return _invitation_page("public/answered.html", token, invitation, view, accepted=accepted)


@bp.route("/i/<token>/accept", methods=["POST"])
def accept(token: str) -> Any:
    """Yes, in the language the page was read in (theirs in the game, if nobody chose one)."""
    return _answer(token, partial(invitations.accept_invitation, language=i18n.current()), accepted=True)


@bp.route("/i/<token>/decline", methods=["POST"])
def decline(token: str) -> Any:
    return _answer(token, invitations.decline_invitation, accepted=False)


# ---------------------------------------------------------------- never email me again
@bp.route("/never/<token>", methods=["GET"])
def never_page(token: str) -> Any:
    """The address and one button. Changes nothing."""
    try:
        address = read_never_token(config(), token)
    except links.LinkError as exc:
        return _refused(exc)
    return render_template("public/never.html", token=token, address=address, done=False)


@bp.route("/never/<token>", methods=["POST"])
def never(token: str) -> Any:
    """Put the address on the suppression list. Also the RFC 8058 one-click endpoint mail
    clients call (body `List-Unsubscribe=One-Click`): the same answer serves both."""
    try:
        with session_scope(db()) as db_session:
            address = never_email(db_session, config(), token)
    except (links.LinkError, GameError) as exc:
        return _refused(exc)
    return render_template("public/never.html", token=token, address=address, done=True)


# ---------------------------------------------------------------- I did not ask for this
@bp.route("/not-me/<token>", methods=["GET"])
def not_me_page(token: str) -> Any:
    """The address, whether requests to it are blocked, and one button. Changes nothing."""
    try:
        address = unasked_mail.read_not_me_token(config(), token)
        with read_scope(db()) as db_session:
            blocked = unasked_mail.is_blocked(db_session, address)
    except links.LinkError as exc:
        return _refused(exc)
    return render_template("public/not_me.html", token=token, address=address, blocked=blocked, done=False)


@bp.route("/not-me/<token>", methods=["POST"])
def not_me(token: str) -> Any:
    """Block anyone's requests to the address (`action=block`), or let them through again
    (`action=allow`)."""
    action = request.form.get("action", "")
    if action not in NOT_ME_ACTIONS:
        return _refused(GameError("choose_a_button"))
    block = action == "block"
    try:
        with session_scope(db()) as db_session:
            address = unasked_mail.set_blocked(db_session, config(), token, block)
    except links.LinkError as exc:
        return _refused(exc)
    return render_template("public/not_me.html", token=token, address=address, blocked=block, done=True)
