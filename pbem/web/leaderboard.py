"""Blueprint 'leaderboard': the ratings players see (pbem/games/ratings.py).

GET /leaderboard               the players who chose to be listed, by rating (?mode=teams for team
                               games); only the name each chose, never an address
POST /me/<token>/leaderboard   from /me: be listed under a name of one's choice (checked like a
                               player's name), or not (the default); 303 back to /me

`my_ratings` builds the rating section of /me (templates/me/_ratings.html): the rating per mode,
games played and won, and its history as a small SVG chart with a table beside it.
GET and HEAD change nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Blueprint, redirect, render_template, request
from sqlmodel import Session

from pbem import links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import my_games, ratings
from pbem.games.errors import GameError
from pbem.i18n import format_date, format_number
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models_ratings import RatingMode
from pbem.present.ratings import HistoryChart, history_chart

bp = Blueprint("leaderboard", __name__)

MODE_WORDS = {RatingMode.INDIVIDUAL: lazy("Individual games"), RatingMode.TEAMS: lazy("Team games")}
HISTORY_ROWS = 20  # the table beside the chart: the last games


@dataclass(frozen=True)
class HistoryRow:
    when: str
    rating: str


@dataclass(frozen=True)
class ModeSection:
    mode: str
    title: str
    rating: ratings.ModeRating
    chart: HistoryChart | None
    rows: list[HistoryRow]


@dataclass(frozen=True)
class RatingsSection:
    """The rating section of /me."""

    modes: list[ModeSection]
    listed_name: str | None  # the leaderboard's name, None: not listed


def my_ratings(session: Session, email: str) -> RatingsSection:
    """The address's ratings as /me shows them (its history in the page's language)."""
    modes = []
    for mine in ratings.ratings_of(session, email):
        rows = [HistoryRow(format_date(p.at), format_number(p.points)) for p in mine.history[1:]][-HISTORY_ROWS:]
        modes.append(ModeSection(mode=mine.mode, title=_(MODE_WORDS[mine.mode]), rating=mine,
                                 chart=history_chart([p.points for p in mine.history]), rows=list(reversed(rows))))
    return RatingsSection(modes=modes, listed_name=ratings.listed_name(session, email))


@bp.route("/leaderboard", methods=["GET"])
def leaderboard_page() -> Any:
    """The players who opted in, best first, in one mode."""
    mode = request.args.get("mode", RatingMode.INDIVIDUAL)
    if mode not in RatingMode.ALL:
        mode = RatingMode.INDIVIDUAL
    with read_scope(db()) as session:
        lines = ratings.leaderboard(session, mode)
    return render_template("leaderboard/leaderboard.html", lines=lines, mode=mode,
                           modes=[(m, _(MODE_WORDS[m])) for m in RatingMode.ALL])


@bp.route("/me/<token>/leaderboard", methods=["POST"])
def set_listed(token: str) -> Any:
    """Be on the leaderboard under a chosen name, or come off it."""
    from pbem.web import my_games as my_games_page  # the /me page, shown again with the refusal

    form = request.form
    listed = form.get("listed") == "on"
    try:
        email = my_games.read_my_games_token(config(), token)
        with session_scope(db()) as session:
            ratings.set_listed(session, email, form.get("display_name", "") if listed else None)
    except links.LinkError as exc:
        return my_games_page._link_error(exc)
    except GameError as exc:
        try:
            return my_games_page._games_page(token, error=exc.message, status=exc.status if exc.status < 500 else 422)
        except links.LinkError as link_exc:
            return my_games_page._link_error(link_exc)
    return redirect(f"/me/{token}?saved=1#ratings", 303)
