"""Blueprint 'leaderboard': the leaderboard players see (pbem/games/leaderboard.py).

GET /leaderboard               the players who chose to be listed, by rating (?mode=teams for team
                               games); only the name each chose, never an address
POST /me/<token>/leaderboard   from /me: be listed under a name of one's choice (checked like a
                               player's name), or not (the default); 303 back to /me

The rating section of /me itself is built by pbem/web/ratings_section.py.
GET and HEAD change nothing.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, redirect, render_template, request

from pbem import links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import leaderboard as listing
from pbem.games import my_games
from pbem.games.errors import GameError
from pbem.i18n import gettext as _
from pbem.models_ratings import RatingMode
from pbem.web import my_games as my_games_page  # the /me page, shown again with a refusal
from pbem.web.ratings_section import MODE_WORDS

bp = Blueprint("leaderboard", __name__)


@bp.route("/leaderboard", methods=["GET"])
def leaderboard_page() -> Any:
    """The players who opted in, best first, in one mode."""
    mode = request.args.get("mode", RatingMode.INDIVIDUAL)
    if mode not in RatingMode.ALL:
        mode = RatingMode.INDIVIDUAL
    with read_scope(db()) as session:
        lines = listing.leaderboard(session, mode)
    return render_template("leaderboard/leaderboard.html", lines=lines, mode=mode,
                           modes=[(m, _(MODE_WORDS[m])) for m in RatingMode.ALL])


@bp.route("/me/<token>/leaderboard", methods=["POST"])
def set_listed(token: str) -> Any:
    """Be on the leaderboard under a chosen name, or come off it."""
    form = request.form
    listed = form.get("listed") == "on"
    try:
        email = my_games.read_my_games_token(config(), token)
        with session_scope(db()) as session:
            listing.set_listed(session, email, form.get("display_name", "") if listed else None)
    except links.LinkError as exc:
        return my_games_page._link_error(exc)
    except GameError as exc:
        try:
            return my_games_page._games_page(token, error=exc.message, status=exc.status if exc.status < 500 else 422)
        except links.LinkError as link_exc:
            return my_games_page._link_error(link_exc)
    return redirect(f"/me/{token}?saved=1#ratings", 303)
