"""Blueprint 'prefs': a player's email preferences and vacations, and unsubscribe links.

- GET /g/<seat token>/prefs: the page (vacation form, daily digest, reminders on/off).
- POST /g/<seat token>/vacation, /vacation/cancel, /digest, /reminders: change them (the signed token in the
  URL authenticates the player, as for move links, so no session CSRF token is needed).
- GET /u/<token>: a page with one button; POST /u/<token>: unsubscribe. The POST is also the
  RFC 8058 one-click endpoint mail clients call (body `List-Unsubscribe=One-Click`).
GET never changes anything: mail scanners open every link.
"""
from __future__ import annotations

from datetime import date
from zoneinfo import available_timezones
from typing import Any

from flask import Blueprint, Flask, redirect, render_template, request
from sqlmodel import Session, select

from pbem import links
from pbem.clocks.schedule import local_time_text, replan_reminders, seat_zone, to_local
from pbem.clocks.unsubscribe import read_unsubscribe
from pbem.clocks.vacation import cancel_vacation, days_left, last_bookable_day, take_vacation
from pbem.db import read_scope, session_scope
from pbem.games.service import GameError
from pbem.logging import log_context
from pbem.models import Game, GameStatus, Seat, utcnow
from pbem.web.context import config, db
from pbem.web.seat_links import GONE, load_seat, lock_seat

bp = Blueprint("prefs", __name__)


def register(app: Flask, csrf: Any) -> None:
    """Register the blueprint; its forms are authenticated by signed tokens, not sessions."""
    csrf.exempt(bp)
    app.register_blueprint(bp)


def _error(message: str, status: int, game_url: str | None = None) -> tuple[str, int]:
    return render_template("prefs/error.html", message=message, status=status,
                           game_url=game_url), status


def _token(token: str) -> links.SeatToken:
    parsed = links.read_seat(config(), token)
    log_context(game_id=parsed.game_id)
    return parsed


def _game_and_seat(session: Session, token: str) -> tuple[Game, Seat]:
    return load_seat(session, _token(token))


def _locked_seat(session: Session, token: str) -> tuple[Game, Seat]:
    """The game (locked) and seat of a genuine token that is still the seat's, checked in the
    transaction that makes the change: a link revoked meanwhile changes nothing."""
    game, _seats, seat = lock_seat(session, _token(token))
    return game, seat


def _page(token: str, message: str = "", error: str = "", form: dict[str, str] | None = None,
          status: int = 200) -> tuple[str, int]:
    now = utcnow()
    with read_scope(db()) as session:
        game, seat = _game_and_seat(session, token)
        away = None
        if seat.vacation_end is not None and seat.vacation_end > now and seat.vacation_start:
            away = (local_time_text(seat.vacation_start, seat), local_time_text(seat.vacation_end, seat))
        today = to_local(now, seat_zone(seat)).date()
        return render_template(
            "prefs/prefs.html", game=game, seat=seat, token=token, away=away, today=today.isoformat(),
            last_day=last_bookable_day(today).isoformat(),
            days_left=days_left(config(), seat), message=message, error=error, form=form or {},
            game_url=links.seat_url(config(), token),
        ), status


@bp.route("/g/<token>/prefs", methods=["GET"])
def prefs_page(token: str) -> Any:
    try:
        return _page(token)
    except links.LinkError as exc:
        return _error(exc.message, exc.status)


def _parse_day(text: str, label: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise GameError(f"The {label} must be a date like 2026-07-14.", 422) from None


@bp.route("/g/<token>/vacation", methods=["POST"])
def vacation(token: str) -> Any:
    form = {"first_day": request.form.get("first_day", ""), "last_day": request.form.get("last_day", "")}
    try:
        first, last = _parse_day(form["first_day"], "first day"), _parse_day(form["last_day"], "last day")
        with session_scope(db()) as session:
            game, seat = _locked_seat(session, token)
            take_vacation(session, config(), game.id, seat.position, first, last, now=utcnow())  # type: ignore[arg-type]  # stored: its id is set
    except links.LinkError as exc:
        return _error(exc.message, exc.status)
    except GameError as exc:
        return _page(token, error=exc.message, form=form, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved=vacation", 303)


@bp.route("/g/<token>/vacation/cancel", methods=["POST"])
def vacation_cancel(token: str) -> Any:
    try:
        with session_scope(db()) as session:
            game, seat = _locked_seat(session, token)
            cancel_vacation(session, config(), game.id, seat.position, now=utcnow())  # type: ignore[arg-type]  # stored: its id is set
    except links.LinkError as exc:
        return _error(exc.message, exc.status)
    except GameError as exc:
        return _page(token, error=exc.message, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved=vacation", 303)


def _update_seat(token: str, **values: object) -> None:
    """Change the seat's preferences; reminders of a turn under way follow at once."""
    with session_scope(db()) as session:
        game, seat = _locked_seat(session, token)
        for field, value in values.items():
            setattr(seat, field, value)
        session.add(seat)
        if game.status == GameStatus.RUNNING and game.to_move == seat.position and game.deadline_at:
            replan_reminders(game, seat, utcnow())
            session.add(game)


def _set_flag(token: str, field: str, value: bool) -> Any:
    try:
        _update_seat(token, **{field: value})
    except links.LinkError as exc:
        return _error(exc.message, exc.status)
    return redirect(f"/g/{token}/prefs?saved={field}", 303)


@bp.route("/g/<token>/digest", methods=["POST"])
def digest(token: str) -> Any:
    return _set_flag(token, "digest", request.form.get("digest") == "on")


@bp.route("/g/<token>/reminders", methods=["POST"])
def reminders(token: str) -> Any:
    return _set_flag(token, "unsubscribed", request.form.get("reminders") != "on")


@bp.route("/g/<token>/timezone", methods=["POST"])
def set_timezone(token: str) -> Any:
    """The seat's IANA time zone: quiet hours, digest time and dates in emails follow it."""
    name = request.form.get("timezone", "").strip()
    try:
        if name not in available_timezones():
            shown = name if len(name) <= 60 else name[:60] + "…"  # the page echoes no 10 kB field
            raise GameError(f"{shown or 'An empty name'!r} is not a time zone like Europe/Paris "
                            "or America/New_York.", 422)
        _update_seat(token, timezone=name)
    except links.LinkError as exc:
        return _error(exc.message, exc.status)
    except GameError as exc:
        return _page(token, error=exc.message, status=exc.status)
    return redirect(f"/g/{token}/prefs?saved=timezone", 303)


def _unsubscribe_target(session: Session, token: str, *, lock: bool = False) -> tuple[Game, Seat] | None:
    """The game and seat of a genuine unsubscribe token (None: damaged or forged); LinkError if
    the game or seat is gone (404) or the link belongs to an older address of the seat (403).
    `lock`: the game row is locked, so the check holds for the change that follows."""
    found = read_unsubscribe(config(), token)
    if found is None:
        return None
    game_id, seat_id, nonce = found
    log_context(game_id=game_id)
    query = select(Game).where(Game.id == game_id)
    game = session.exec(query.with_for_update() if lock else query).first()
    seat = session.get(Seat, seat_id)
    if game is None or seat is None or seat.game_id != game.id:
        raise links.LinkError(GONE, 404)
    if seat.link_nonce != nonce:
        raise links.LinkError("This unsubscribe link belongs to an older address of this seat "
                              "and no longer works.", 403)
    return game, seat


@bp.errorhandler(links.LinkError)
def _revoked_link(exc: links.LinkError) -> Any:
    return _error(exc.message, exc.status)


def _damaged_unsubscribe_link() -> Any:
    return _error("This unsubscribe link is damaged or was not made by us. "
                  "Copy the whole link from your email.", 400)


@bp.route("/u/<token>", methods=["GET"])
def unsubscribe_page(token: str) -> Any:
    with read_scope(db()) as session:
        target = _unsubscribe_target(session, token)
        if target is None:
            return _damaged_unsubscribe_link()
        game, seat = target
        return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=False)


@bp.route("/u/<token>", methods=["POST"])
def unsubscribe(token: str) -> Any:
    with session_scope(db()) as session:
        target = _unsubscribe_target(session, token, lock=True)
        if target is None:
            return _damaged_unsubscribe_link()
        game, seat = target
        seat.unsubscribed = True
        session.add(seat)
        if game.to_move == seat.position:
            game.next_reminder_at = None
            session.add(game)
    # Rendered after the commit: the page does not hold the database's write lock.
    return render_template("prefs/unsubscribe.html", game=game, seat=seat, token=token, done=True)
