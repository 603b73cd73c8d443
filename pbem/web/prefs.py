"""Blueprint 'prefs': a player's email preferences and vacations, and unsubscribe links.

- GET /g/<seat token>/prefs: the page (vacation form, daily digest, reminders on/off, forced moves).
- POST /g/<seat token>/vacation, /vacation/cancel, /digest, /reminders, /timezone, /forced,
  /language:
  change them (the signed token in the URL authenticates the player, as for move links, so no
  session CSRF token is needed).
- GET /u/<token>: a page with one button; POST /u/<token>: unsubscribe. The POST is also the
  RFC 8058 one-click endpoint mail clients call (body `List-Unsubscribe=One-Click`).
GET never changes anything: mail scanners open every link.

Views parse the form and render; the seat entry (pbem/web/seat.py) verifies and locks once;
`pbem.games.clocks.preferences` decides and changes the locked rows, and its
refusals (`pbem.games.errors.GameError`, by code: `pbem.games.clocks.refusals`) are worded in the seat's language.
"""
from __future__ import annotations

from datetime import date
from typing import Any

from flask import Blueprint, redirect, render_template, request

from pbem import links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games.clocks import preferences
from pbem.games.clocks.refusals import refuse
from pbem.games.clocks.vacation import days_left, has_vacation, last_bookable_day
from pbem.games.address_prefs import set_seat_language
from pbem.games.errors import GameError
from pbem.i18n import ngettext
from pbem.models import utcnow
from pbem.schedule import away_days_text, seat_zone, to_local
from pbem.web import seat as seat_entry
from pbem.web.error_page import error_page
from pbem.web.seat import use_seat_language
from pbem.zones import picker, zone_from_form

bp = Blueprint("prefs", __name__)  # nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(bp)
unsubscribe_bp = Blueprint("prefs", __name__)  # /u/<token>, from an email's footer (endpoint prefs.unsubscribe)


def _page(message: str = "", error: str = "", form: dict[str, str] | None = None,
          status: int = 200, refused: GameError | None = None) -> tuple[str, int]:
    """The preferences page in the seat's language (with a refusal written in it, if any)."""
    now = utcnow()
    token = seat_entry.token()
    with seat_entry.reading() as (_session, seated):
        game, seat = seated.game, seated.seat
        error = refused.text() if refused is not None else error
        away = None
        if has_vacation(seat, now) and seat.vacation_start and seat.vacation_end:
            away = away_days_text(seat)  # the days as typed, the last one counted in
        today = to_local(now, seat_zone(seat)).date()
        return render_template(
            "prefs/prefs.html", game=game, seat=seat, token=token, away=away, today=today.isoformat(),
            zones=picker(seat.timezone),
            last_day=last_bookable_day(today).isoformat(),
            days_left=days_left(config(), seat), message=message, error=error, form=form or {},
            days_left_text=ngettext("%(num)s vacation day", "%(num)s vacation days", days_left(config(), seat)),
            game_url=links.seat_url(config(), token),
        ), status


@bp.route("/prefs", methods=["GET"])
def prefs_page() -> Any:
    return _page()


def _parse_day(text: str, label: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise refuse("bad_date", label=label) from None


def _saved(what: str) -> Any:
    return redirect(f"{seat_entry.page_url()}/prefs?saved={what}", 303)


@bp.route("/vacation", methods=["POST"])
def vacation() -> Any:
    form = {"first_day": request.form.get("first_day", ""), "last_day": request.form.get("last_day", "")}
    try:
        first, last = _parse_day(form["first_day"], "first day"), _parse_day(form["last_day"], "last day")
        with seat_entry.changing() as (session, seated):
            preferences.take_vacation(session, config(), seated, first, last, now=utcnow())
    except GameError as exc:
        return _page(refused=exc, form=form, status=exc.status)
    return _saved("vacation")


@bp.route("/vacation/cancel", methods=["POST"])
def vacation_cancel() -> Any:
    return _change("vacation", preferences.cancel_vacation)


def _change(saved: str, change: Any, *value: object) -> Any:
    """Apply one preferences service function to the locked seat; back to the page (with its
    refusal, if any)."""
    try:
        with seat_entry.changing() as (session, seated):
            change(session, config(), seated, *value, now=utcnow())
    except GameError as exc:
        return _page(refused=exc, status=exc.status)
    return _saved(saved)


@bp.route("/digest", methods=["POST"])
def digest() -> Any:
    return _change("digest", preferences.set_digest, request.form.get("digest") == "on")


@bp.route("/reminders", methods=["POST"])
def reminders() -> Any:
    return _change("unsubscribed", preferences.set_reminders, request.form.get("reminders") == "on")


@bp.route("/forced", methods=["POST"])
def play_forced() -> Any:
    """"Play my forced moves for me" on or off."""
    return _change("forced", preferences.set_play_forced, request.form.get("forced") == "on")


@bp.route("/timezone", methods=["POST"])
def set_timezone() -> Any:
    """The seat's IANA time zone: quiet hours, digest time and dates in emails follow it."""
    return _change("timezone", preferences.set_time_zone, zone_from_form(request.form))


@bp.route("/language", methods=["POST"])
def set_language() -> Any:
    """The seat's language (emails and pages); the address's next game starts in it too."""
    try:
        with seat_entry.changing() as (session, seated):
            set_seat_language(session, seated.seat, request.form.get("language", ""), now=utcnow())
    except GameError as exc:
        return _page(error=exc.message, status=400)
    return _saved("language")


def _unsubscribe_refused(exc: Exception) -> Any:
    """A refused unsubscribe link: the preferences' error page."""
    assert isinstance(exc, (GameError, links.LinkError))
    return error_page("prefs", exc.text(), exc.status)


for _kind in (links.LinkError, GameError):
    unsubscribe_bp.register_error_handler(_kind, _unsubscribe_refused)


@unsubscribe_bp.route("/u/<token>", methods=["GET"])
def unsubscribe_page(token: str) -> Any:
    with read_scope(db()) as session:
        game, seat = preferences.unsubscribe_target(session, config(), token)
        use_seat_language(seat)
        return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=False)


@unsubscribe_bp.route("/u/<token>", methods=["POST"])
def unsubscribe(token: str) -> Any:
    with session_scope(db()) as session:
        game, seat = preferences.unsubscribe(session, config(), token, now=utcnow())
    use_seat_language(seat)
    # Rendered after the commit: the page does not hold the database's write lock.
    return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=True)
