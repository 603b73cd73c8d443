"""The admin's actions on one game (all POST): each one and its audit row commit together.

A refused action re-renders the game page with the reason and the fitting status; nothing
is changed then (the transaction rolls back).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import flash, redirect, request, url_for
from sqlmodel import Session

from pbem.auth import current_admin_email, record_audit
from pbem.db import session_scope
from pbem.games import lifecycle
from pbem.games.admin_actions import resend_turn_email
from pbem.games.errors import GameError
from pbem.games.lifecycle import change_seat_language
from pbem.models import utcnow
from pbem.web.admin import bp
from pbem.i18n import LANGUAGES
from pbem.web.admin.forms import ChangeEmailForm, ExtendDeadlineForm, HandToBotForm, SeatLanguageForm, \
    has_control_characters
from pbem.web.admin.games import render_detail
from pbem.appctx import config, db

# An action gets (session, now, actor) and returns (message for the admin, audit detail).
Action = Callable[[Session, Any, str], tuple[str, str]]


def run_action(game_id: int, name: str, action: Action, **error_forms: Any) -> Any:
    actor = current_admin_email() or "?"
    try:
        with session_scope(db()) as session:
            message, detail = action(session, utcnow(), actor)
            record_audit(session, actor, name, game_id=game_id, detail=detail)
    except GameError as exc:
        return render_detail(game_id, error=exc.message, status=exc.status, **error_forms)
    flash(message, "ok")
    return redirect(url_for("admin.game_detail", game_id=game_id), code=303)


@bp.route("/games/<id:game_id>/resend", methods=["POST"])
def game_resend(game_id: int) -> Any:
    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = resend_turn_email(session, config(), game_id, now=now)
        return f"The turn email to {seat.name} is queued again.", f"seat {seat.position} ({seat.name})"
    return run_action(game_id, "resend_turn_email", act)


@bp.route("/games/<id:game_id>/nudge", methods=["POST"])
def game_nudge(game_id: int) -> Any:
    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = lifecycle.send_reminder_now(session, config(), game_id, now=now, actor=actor)
        return f"A reminder to {seat.name} is queued.", f"seat {seat.position} ({seat.name})"
    return run_action(game_id, "nudge", act)


@bp.route("/games/<id:game_id>/pause", methods=["POST"])
def game_pause(game_id: int) -> Any:
    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        lifecycle.pause_game(session, config(), game_id, now=now, actor=actor)
        return "The game is paused; the players are told.", ""
    return run_action(game_id, "pause", act)


@bp.route("/games/<id:game_id>/resume", methods=["POST"])
def game_resume(game_id: int) -> Any:
    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        lifecycle.resume_game(session, config(), game_id, now=now, actor=actor)
        return "The game is running again.", ""
    return run_action(game_id, "resume", act)


@bp.route("/games/<id:game_id>/extend", methods=["POST"])
def game_extend(game_id: int) -> Any:
    form = ExtendDeadlineForm()
    if not form.validate():
        return render_detail(game_id, error="The deadline was not changed: " + "; ".join(form.hours.errors),
                             status=422, extend_form=form)
    assert form.hours.data is not None  # InputRequired passed
    hours = float(form.hours.data)

    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        game = lifecycle.extend_deadline(session, config(), game_id, hours=hours, now=now, actor=actor)
        return (f"The deadline is now {game.deadline_at:%Y-%m-%d %H:%M} UTC.",
                f"+{hours:g} h, deadline {game.deadline_at:%Y-%m-%d %H:%M}")
    return run_action(game_id, "extend_deadline", act, extend_form=form)


@bp.route("/games/<id:game_id>/seats/<id(min=0):position>/email", methods=["POST"])
def seat_email(game_id: int, position: int) -> Any:
    form = ChangeEmailForm()
    if not form.validate():
        return render_detail(game_id, error="The address was not changed: " + "; ".join(form.email.errors),
                             status=422, email_forms={position: form})
    new_email = (form.email.data or "").strip()

    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = lifecycle.change_seat_email(session, config(), game_id, position, new_email, now=now, actor=actor)
        return (f"{seat.name} now plays from {seat.email}; their old links no longer work.",
                f"seat {position} ({seat.name}) -> {seat.email}")
    return run_action(game_id, "change_email", act, email_forms={position: form})


@bp.route("/games/<id:game_id>/seats/<id(min=0):position>/language", methods=["POST"])
def seat_language(game_id: int, position: int) -> Any:
    """What the seat reads from now on (its next email, its pages); its address's next game too."""
    form = SeatLanguageForm()
    if not form.validate():
        return render_detail(game_id, error="The language was not changed: choose one of "
                                            f"{', '.join(LANGUAGES)}.", status=422)
    code = form.language.data or ""

    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = change_seat_language(session, game_id, position, code, now=now)
        return (f"{seat.name} reads {LANGUAGES[seat.language]} from now on.",
                f"seat {position} ({seat.name}) -> {seat.language}")
    return run_action(game_id, "seat_language", act)


@bp.route("/games/<id:game_id>/seats/<id(min=0):position>/bot", methods=["POST"])
def seat_to_bot(game_id: int, position: int) -> Any:
    form = HandToBotForm()
    if not form.validate():
        return render_detail(game_id, error="Choose a bot.", status=422)
    bot = form.bot.data

    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = lifecycle.hand_seat_to_bot(session, config(), game_id, position, now=now, actor=actor,
                                          bot=bot, reason="An admin handed the seat to the bot.")
        return f"The {bot} bot plays for {seat.name} now.", f"seat {position} ({seat.name}) -> bot {bot}"
    return run_action(game_id, "seat_to_bot", act)


@bp.route("/games/<id:game_id>/seats/<id(min=0):position>/human", methods=["POST"])
def seat_back(game_id: int, position: int) -> Any:
    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        seat = lifecycle.hand_seat_back(session, config(), game_id, position, now=now, actor=actor)
        return f"{seat.name} plays their seat again.", f"seat {position} ({seat.name})"
    return run_action(game_id, "seat_back", act)


@bp.route("/games/<id:game_id>/abort", methods=["POST"])
def game_abort(game_id: int) -> Any:
    reason = (request.form.get("reason") or "").strip()[:300]
    if has_control_characters(reason):
        return render_detail(game_id, error="The game was not aborted: remove the control characters "
                             "(such as NUL) from the reason.", status=422)

    def act(session: Session, now: Any, actor: str) -> tuple[str, str]:
        lifecycle.abort_game(session, config(), game_id, now=now, actor=actor, reason=reason)
        return "The game is aborted; every player is told.", reason
    return run_action(game_id, "abort", act)
