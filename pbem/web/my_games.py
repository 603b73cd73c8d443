"""Blueprint 'my_games': an address's games and its preferences for all of them, without an
account (pbem/games/my_games.py).

GET /me                 a form: an email address
POST /me                asks for a signed link by email: only queued, the worker writes it if the
                        address plays here; the SAME page, status and work whether it plays here or
                        not (nobody learns who plays, not even from the time it takes); 422
                        malformed, 429 limit
GET /me/<token>         every game of the address (running, waiting for invitations, finished)
                        and its preferences; 410 expired (7 days), with the way to a new link
POST /me/<token>/prefs  the preferences, for every game of the address; 303 back, "saved"
POST /me/<token>/mail-works  "I can read mail again": our mail to the address bounced, and may go
                        out again (pbem/games/bounced.py); 303 back
GET /me/<token>/data    everything held about the address, readable (pbem/games/privacy.py)
GET /me/<token>/data.json  the same, a JSON file to download (Content-Disposition: attachment)
GET /me/<token>/erase   "Erase me": what erasure does, and a form (with "and never email me again")
POST /me/<token>/erase  erases the address from every table; 200, the page that says it is done

The page of a token speaks the address's remembered language unless the visitor chose one
(`?lang=` or the switch's cookie). GET and HEAD change nothing.
"""
from __future__ import annotations

from datetime import datetime, timezone
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import json

from babel import dates as babel_dates

from flask import Blueprint, Response, redirect, render_template, request
from sqlmodel import Session

from pbem import i18n, links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import analysis as game_analysis
from pbem.games import bounced, my_games, privacy
from pbem.games.limits import LimitReached
from pbem.games.errors import GameError
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import AddressPreference
from pbem.web.error_page import error_page
from pbem.web.i18n_web import speak_stored
from pbem.web.limited import limit_page
from pbem.zones import picker, zone_from_form, zone_in_words
from pbem.web.seat import link_message
from pbem.web.ratings_section import my_ratings

bp = Blueprint("my_games", __name__)

MAX_ECHOED_EMAIL = 254  # a refused address is shown back in the form this far, no further
# An invitation's status in words, on the list of a game waiting for its players.
INVITATION_WORDS = {
    "waiting": lazy("not invited yet"),
    "invited": lazy("invited, no answer yet"),
    "accepted": lazy("accepted"),
    "declined": lazy("declined"),
    "expired": lazy("did not answer in time"),
}

# "My data" says each status in words, by what it is the status of (a code stays in the JSON file).
STATUS_WORDS = {
    "game": {"running": lazy("being played"),
             "paused": lazy("paused"), "finished": lazy("finished"), "aborted": lazy("stopped by an admin")},
    "email": {"pending": lazy("waiting to be sent"), "sending": lazy("being sent"), "sent": lazy("sent"),
              "failed": lazy("could not be sent"), "cancelled": lazy("not sent (no longer needed)")},
    "proposal": {"unconfirmed": lazy("waiting for the creator's confirmation"),
                 "inviting": lazy("invitations sent"), "started": lazy("started"),
                 "cancelled": lazy("cancelled by its creator"), "expired": lazy("never confirmed")},
    "invitation": INVITATION_WORDS,
    # An email's kind (its template), in the table of the emails sent.
    "email_kind": {
        "analysis_ready": lazy("analysis ready"), "attacked": lazy("ship attacked"),
        "confirm_game": lazy("game to confirm"), "digest": lazy("daily digest"), "game_over": lazy("game over"),
        "invitation": lazy("invitation"), "invitation_bounced": lazy("invitation bounced"),
        "invitation_declined": lazy("invitation declined"), "invitations_expired": lazy("invitations unanswered"),
        "my_games_link": lazy("link to your games"), "news": lazy("news from the table"),
        "notice": lazy("notice"), "paused": lazy("game paused"), "proposal_cancelled": lazy("game cancelled"),
        "reminder": lazy("reminder"), "reply_played": lazy("reply played"),
        "reply_refused": lazy("reply not played"), "resumed": lazy("game resumed"),
        "seat_to_bot": lazy("a bot took your seat"), "talk_heard": lazy("message received"),
        "timeout_autoplay": lazy("move played for you"), "turn": lazy("your turn"),
        "vacation": lazy("vacation booked"), "welcome": lazy("welcome"),
    },
}


def status_words(what: str, status: str) -> str:
    """A status of `what` ("game", "email", "proposal", "invitation") in the reader's words."""
    words = STATUS_WORDS.get(what, {}).get(status)
    return _(words) if words else status


@lru_cache(maxsize=1)
def time_zones() -> list[str]:
    """Every IANA zone this machine knows, sorted: the choices of the time zone list."""
    return sorted(available_timezones())


def _ask_page(*, email: str = "", error: str = "", status: int = 200) -> tuple[str, int]:
    return render_template("me/ask.html", email=email[:MAX_ECHOED_EMAIL], error=error), status


@bp.route("/me", methods=["GET"])
def ask_page() -> Any:
    """The form: type your address, get a link to your games by email."""
    return _ask_page()


@bp.route("/me", methods=["POST"])
def ask_link() -> Any:
    """Email the address a link to its games if it plays here; the answer never says whether."""
    email = request.form.get("email", "")
    try:
        with session_scope(db()) as session:
            my_games.request_my_games_link(session, config(), email, ip=request.remote_addr or "",
                                           language=i18n.current())
    except LimitReached as exc:
        return limit_page(exc)
    except GameError as exc:
        return _ask_page(email=email, error=exc.message, status=422)
    # The same page for a known and an unknown address: it does not even repeat the address.
    return render_template("me/sent.html"), 200


def _link_error(exc: links.LinkError) -> tuple[str, int]:
    """A refused "my games" link: why, and the way to a fresh one."""
    return error_page("my_games", link_message(exc), exc.status, link="/me",
                      link_text=_("Get a new link to my games"))


def _use_address_language(session: Session, email: str) -> None:
    """The page speaks the address's remembered language unless the visitor chose one."""
    remembered = session.get(AddressPreference, email)
    if remembered is not None and remembered.language in i18n.LANGUAGES:
        speak_stored(remembered.language)


def _local_time(when: datetime | None, zone: str | None) -> str:
    """A deadline in the address's time zone (UTC when it chose none), the zone named."""
    if when is None:
        return ""
    name = zone if zone in time_zones() else "UTC"
    return f"{i18n.format_datetime(when, ZoneInfo(name), date_format='full')} {zone_in_words(name)}"


def _games_page(token: str, *, error: str = "", status: int = 200) -> tuple[str, int]:
    with read_scope(db()) as session:
        mine = my_games.my_games(session, config(), token)
        _use_address_language(session, mine.email)
        return render_template(
            "me/games.html", mine=mine, token=token, zones=picker(mine.prefs.timezone), error=error,
            saved=bool(request.args.get("saved")) and not error,
            bounces=bounced.bounces(session, mine.email), mail_works=bool(request.args.get("mail")),
            deadline=lambda when: _local_time(when, mine.prefs.timezone),
            invitation_words={k: _(v) for k, v in INVITATION_WORDS.items()},
            analysis_email=game_analysis.ready_email_chosen(session, mine.email),
            ratings_section=my_ratings(session, mine.email),  # me/_ratings.html
        ), status


@bp.route("/me/<token>", methods=["GET"])
def games_page(token: str) -> Any:
    """Every game of the address, and its preferences for all of them."""
    try:
        return _games_page(token)
    except links.LinkError as exc:
        return _link_error(exc)


@bp.route("/me/<token>/prefs", methods=["POST"])
def save_preferences(token: str) -> Any:
    """Time zone, reminders, digest and forced moves, for every game of the address at once, and
    whether an email says when a game's analysis is ready."""
    form = request.form
    try:
        with session_scope(db()) as session:
            mine = my_games.set_address_preferences(
                session, config(), token, timezone=zone_from_form(form),
                reminders=form.get("reminders") == "on", digest=form.get("digest") == "on",
                play_forced=form.get("play_forced") == "on")
            game_analysis.set_ready_email(session, mine.email, form.get("analysis_email") == "on")
    except links.LinkError as exc:
        return _link_error(exc)
    except GameError as exc:
        try:
            return _games_page(token, error=exc.message, status=exc.status if exc.status < 500 else 422)
        except links.LinkError as link_exc:
            return _link_error(link_exc)
    return redirect(f"/me/{token}?saved=1", 303)


@bp.route("/me/<token>/mail-works", methods=["POST"])
def mail_works(token: str) -> Any:
    """"I can read mail again": our mail to the address goes out again."""
    try:
        with session_scope(db()) as session:
            bounced.mail_works_again(session, config(), token)
    except links.LinkError as exc:
        return _link_error(exc)
    return redirect(f"/me/{token}?mail=1", 303)


# ---------------------------------------------------------------- the address's rights (issue 27)
EXPORT_FILENAME = "korsar-my-data.json"


def _export(token: str) -> tuple[dict[str, Any], str]:
    """Everything held about the token's address, and the address (LinkError if refused)."""
    email = my_games.read_my_games_token(config(), token)
    with read_scope(db()) as session:
        _use_address_language(session, email.lower())
        return privacy.export_address(session, email), email


@bp.route("/me/<token>/data", methods=["GET"])
def my_data_page(token: str) -> Any:
    """Everything we hold about the address, to read (the JSON file holds the same)."""
    try:
        data, email = _export(token)
    except links.LinkError as exc:
        return _link_error(exc)
    zone = next((p["timezone"] for p in data.get("preferences", []) if p.get("timezone")), None)
    return render_template("me/data.html", data=data, email=email, token=token, status_words=status_words,
                           as_json=lambda value: json.dumps(value, ensure_ascii=False, indent=1),
                           in_words=lambda iso: _local_time(_instant(iso), zone),
                           in_cell=lambda iso: babel_dates.format_datetime(
                               _instant(iso).replace(tzinfo=timezone.utc), "short",
                               tzinfo=ZoneInfo(zone if zone in time_zones() else "UTC"), locale=i18n.locale()))


def _instant(iso: str) -> datetime:
    """An instant of the export ("2026-12-03T08:30:00Z") as the naive UTC datetime it stores."""
    return datetime.fromisoformat(iso.removesuffix("Z"))


@bp.route("/me/<token>/data.json", methods=["GET"])
def my_data_json(token: str) -> Any:
    """The same, as a JSON file to keep."""
    try:
        data, _email = _export(token)
    except links.LinkError as exc:
        return _link_error(exc)
    body = json.dumps(data, ensure_ascii=False, indent=2)
    return Response(body, 200, {"Content-Disposition": f'attachment; filename="{EXPORT_FILENAME}"'},
                    content_type="application/json; charset=utf-8")


@bp.route("/me/<token>/erase", methods=["GET"])
def erase_page(token: str) -> Any:
    """What erasure does, and the form that does it."""
    try:
        email = my_games.read_my_games_token(config(), token)
        with read_scope(db()) as session:
            _use_address_language(session, email.lower())
    except links.LinkError as exc:
        return _link_error(exc)
    return render_template("me/erase.html", email=email, token=token)


@bp.route("/me/<token>/erase", methods=["POST"])
def erase(token: str) -> Any:
    """Erase the address from every table (and keep it off our mail if it asks)."""
    try:
        email = my_games.read_my_games_token(config(), token)
        with session_scope(db()) as session:
            _use_address_language(session, email.lower())  # before its preferences go
            language = i18n.current()
            done = privacy.erase_address(session, config(), email, never=request.form.get("never") == "on",
                                         actor="player")
    except links.LinkError as exc:
        return _link_error(exc)
    except GameError as exc:
        return error_page("my_games", exc.message, exc.status if exc.status < 500 else 422,
                          link="/me", link_text=_("My games"))
    speak_stored(language)
    return render_template("me/erased.html", never=done.never_kept), 200
