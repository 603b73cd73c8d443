"""Blueprint 'prefs': a player's email preferences and vacations, and unsubscribe links.

- GET /g/<seat token>/prefs: the page (vacation form, daily digest, reminders on/off, forced moves).
- POST /g/<seat token>/vacation, /vacation/cancel, /digest, /reminders, /timezone, /forced,
  /language:
  change them (the signed token in the URL authenticates the player, as for move links, so no
  session CSRF token is needed).
- GET /u/<token>: a page with one button; POST /u/<token>: unsubscribe. The POST is also the
  RFC 8058 one-click endpoint mail clients call (body `List-Unsubscribe=One-Click`).
GET never changes anything: mail scanners open every link.

Views parse the form and render; `pbem.games.clocks.preferences` locks, decides and changes, and its
refusals (`pbem.games.errors.Refusal`, by code: `pbem.games.clocks.refusals`) are worded in the seat's language.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from flask import Blueprint, Flask, redirect, render_template, request

from pbem import links
from pbem.games.clocks import preferences
from pbem.games.clocks.refusals import refuse
from pbem.games.errors import Refusal
from pbem.schedule import local_time_text, seat_zone, to_local
from pbem.games.clocks.vacation import days_left, has_vacation, last_bookable_day
from pbem.db import read_scope, session_scope
from pbem.games.seat_links import link_message, load_seat, lock_seat, use_seat_language
from pbem.games.address_prefs import set_seat_language
from pbem.games.errors import GameError
from pbem.i18n import ngettext
from pbem.logging import log_context
from pbem.models import utcnow
from pbem.appctx import config, db

bp = Blueprint("prefs", __name__)


def register(app: Flask, csrf: Any) -> None:
    """Register the blueprint; its forms are authenticated by signed tokens, not sessions."""
    csrf.exempt(bp)
    app.register_blueprint(bp)


def _error(message: str, status: int, game_url: str | None = None) -> tuple[str, int]:
    """A refused request's page (`message` in the reader's language already)."""
    return render_template("prefs/error.html", message=message, status=status,
                           game_url=game_url), status


def _token(token: str) -> links.SeatToken:
    parsed = links.read_seat(config(), token)
    log_context(game_id=parsed.game_id)
    return parsed


def _page(token: str, message: str = "", error: str = "", form: dict[str, str] | None = None,
          status: int = 200, refused: Refusal | None = None) -> tuple[str, int]:
    """The preferences page in the seat's language (with a refusal written in it, if any)."""
    now = utcnow()
    with read_scope(db()) as session:
        game, seat = load_seat(session, _token(token))
        use_seat_language(seat)
        error = refused.text() if refused is not None else error
        away = None
        if has_vacation(seat, now) and seat.vacation_start and seat.vacation_end:
            away = (local_time_text(seat.vacation_start, seat), local_time_text(seat.vacation_end, seat))
        today = to_local(now, seat_zone(seat)).date()
        return render_template(
            "prefs/prefs.html", game=game, seat=seat, token=token, away=away, today=today.isoformat(),
            last_day=last_bookable_day(today).isoformat(),
            days_left=days_left(config(), seat), message=message, error=error, form=form or {},
            days_left_text=ngettext("%(num)s vacation day", "%(num)s vacation days", days_left(config(), seat)),
            game_url=links.seat_url(config(), token),
        ), status


@bp.route("/g/<token>/prefs", methods=["GET"])
def prefs_page(token: str) -> Any:
    try:
        return _page(token)
    except links.LinkError as exc:
        return _error(link_message(exc), exc.status)


def _parse_day(text: str, label: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise refuse("bad_date", label=label) from None


@bp.route("/g/<token>/vacation", methods=["POST"])
def vacation(token: str) -> Any:
    form = {"first_day": request.form.get("first_day", ""), "last_day": request.form.get("last_day", "")}
    try:
        first, last = _parse_day(form["first_day"], "first day"), _parse_day(form["last_day"], "last day")
        with session_scope(db()) as session:
            preferences.take_vacation(session, config(), _token(token), first, last, now=utcnow())
    except links.LinkError as exc:
        return _error(link_message(exc), exc.status)
    except Refusal as exc:
        return _page(token, refused=exc, form=form, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved=vacation", 303)


@bp.route("/g/<token>/vacation/cancel", methods=["POST"])
def vacation_cancel(token: str) -> Any:
    try:
        with session_scope(db()) as session:
            preferences.cancel_vacation(session, config(), _token(token), now=utcnow())
    except links.LinkError as exc:
        return _error(link_message(exc), exc.status)
    except Refusal as exc:
        return _page(token, refused=exc, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved=vacation", 303)


def _change(token: str, saved: str, change: Any, value: object) -> Any:
    """Apply one preferences service function; back to the page (with its refusal, if any)."""
    try:
        with session_scope(db()) as session:
            change(session, config(), _token(token), value, now=utcnow())
    except links.LinkError as exc:
        return _error(link_message(exc), exc.status)
    except Refusal as exc:
        return _page(token, refused=exc, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved={saved}", 303)


@bp.route("/g/<token>/digest", methods=["POST"])
def digest(token: str) -> Any:
    return _change(token, "digest", preferences.set_digest, request.form.get("digest") == "on")


@bp.route("/g/<token>/reminders", methods=["POST"])
def reminders(token: str) -> Any:
    return _change(token, "unsubscribed", preferences.set_reminders, request.form.get("reminders") == "on")


@bp.route("/g/<token>/forced", methods=["POST"])
def play_forced(token: str) -> Any:
    """"Play my forced moves for me" on or off."""
    return _change(token, "forced", preferences.set_play_forced, request.form.get("forced") == "on")


@bp.route("/g/<token>/timezone", methods=["POST"])
def set_timezone(token: str) -> Any:
    """The seat's IANA time zone: quiet hours, digest time and dates in emails follow it."""
    return _change(token, "timezone", preferences.set_time_zone, request.form.get("timezone", ""))


@bp.route("/g/<token>/language", methods=["POST"])
def set_language(token: str) -> Any:
    """The seat's language (emails and pages); the address's next game starts in it too."""
    try:
        with session_scope(db()) as session:
            _game, _seats, seat = lock_seat(session, _token(token))
            set_seat_language(session, seat, request.form.get("language", ""), now=utcnow())
    except links.LinkError as exc:
        return _error(link_message(exc), exc.status)
    except GameError as exc:
        return _page(token, error=exc.message, status=400)
    return redirect(f"/g/{token}/prefs?saved=language", 303)


@bp.errorhandler(links.LinkError)
def _revoked_link(exc: links.LinkError) -> Any:
    return _error(link_message(exc), exc.status)


@bp.errorhandler(Refusal)
def _refused_link(exc: Refusal) -> Any:
    return _error(exc.text(), exc.status)


@bp.route("/u/<token>", methods=["GET"])
def unsubscribe_page(token: str) -> Any:
    with read_scope(db()) as session:
        game, seat = preferences.unsubscribe_target(session, config(), token)
        use_seat_language(seat)
        return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=False)


@bp.route("/u/<token>", methods=["POST"])
def unsubscribe(token: str) -> Any:
    with session_scope(db()) as session:
        game, seat = preferences.unsubscribe(session, config(), token, now=utcnow())
    use_seat_language(seat)
    # Rendered after the commit: the page does not hold the database's write lock.
    return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=True)
