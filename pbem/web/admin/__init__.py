"""Blueprint 'admin': the dashboard where admins create and run games (Jinja pages, no JS needed).

Every URL under /admin needs a logged-in admin, except the login page itself.
"""
from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from flask import Blueprint, abort, render_template, request, url_for
from werkzeug.exceptions import HTTPException

from pbem.auth import current_admin_email, load_admin, login_redirect
from pbem.db import read_scope
from pbem.appctx import db
from pbem.web.errors import player_error_page
from pbem.words import plural

bp = Blueprint("admin", __name__, url_prefix="/admin")

PUBLIC_ENDPOINTS = frozenset({"admin.login"})


@bp.before_request
def require_admin() -> Any:
    if request.endpoint in PUBLIC_ENDPOINTS:
        return None
    with read_scope(db()) as session:
        admin = load_admin(session)
    if admin is None:
        if request.method in ("GET", "HEAD"):
            return login_redirect()
        abort(401)
    return None


@bp.after_request
def admin_headers(response: Any) -> Any:
    # Admin pages show every hand: never keep them in a shared or browser cache.
    response.headers["Cache-Control"] = "no-store"
    # Flask-WTF checks the Referer of a POST over https, so the dashboard's own forms must send
    # one; admin URLs carry no secrets, and other sites still get no Referer.
    response.headers["Referrer-Policy"] = "same-origin"
    return response


@bp.errorhandler(HTTPException)
def admin_error(exc: HTTPException) -> Any:
    """Errors inside the dashboard keep its layout and say what went wrong."""
    return render_template("admin/error.html", code=exc.code, name=exc.name,
                           description=exc.description), exc.code


@bp.app_errorhandler(404)
def unknown_admin_url(exc: HTTPException) -> Any:
    """A URL under /admin that matches no route (an id past `pbem.web.converters.MAX_ID`, a
    word where an id belongs): the dashboard's error page too. Flask gives a blueprint's own
    handlers only the URLs one of its rules matched; everything else keeps its default page."""
    if request.blueprint == bp.name:
        return admin_error(exc)  # (a code's handler comes before any class handler, even the blueprint's)
    if request.blueprint is not None or not request.path.startswith(f"{bp.url_prefix}/"):
        return player_error_page(exc)  # a player's mistyped link: their page, their language
    return render_template("admin/error.html", code=404, name="Not Found",
                           description="There is no such page in the dashboard."), 404


@bp.context_processor
def admin_context() -> dict[str, Any]:
    return {"admin_email": current_admin_email()}


@bp.app_template_global("page_url")
def page_url(endpoint: str, page: int) -> str:
    """The list at `endpoint` on page `page`, keeping the query's filters. Keys that url_for
    reads itself (`endpoint`, `_external`, `_scheme`, ...) are dropped: copied from the query
    string they raised a TypeError (a 500) or made an absolute link to another scheme."""
    args: dict[str, Any] = {k: v for k, v in request.args.items()
                            if k not in ("endpoint", "page") and not k.startswith("_")}
    return url_for(endpoint, **args, page=page)


# The one plural rule (pbem/words.py) for every page: `{{ n|plural("card") }}`.
bp.add_app_template_filter(plural, "plural")


@bp.app_template_filter("admin_dt")
def format_datetime(value: datetime | None) -> str:
    return "—" if value is None else value.strftime("%Y-%m-%d %H:%M")


@bp.app_template_filter("admin_span")
def format_span(delta: timedelta | None) -> str:
    """A duration in the largest two units: '2 d 5 h', '3 h 10 min', '45 s'."""
    if delta is None:
        return "—"
    seconds = int(abs(delta.total_seconds()))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        text = f"{days} d {hours} h"
    elif hours:
        text = f"{hours} h {minutes} min"
    elif minutes:
        text = f"{minutes} min"
    else:
        text = f"{secs} s"
    return f"-{text}" if delta.total_seconds() < 0 else text


from pbem.web.admin import (  # noqa: E402,F401  (routes register themselves on bp)
    auth_views,
    bounces,
    game_actions,
    games,
    outbox,
    privacy,
    stats,
)
from pbem.web.admin import ratings  # noqa: E402,F401  (the ratings page)
