"""Admin page of ratings (pbem/games/ratings.py): every mailbox's rating per mode, the latest
rated games with what each did, and the exclusion of a game from the ratings (and its undo),
which replays the affected ratings; audited."""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, url_for

from pbem.appctx import db
from pbem.auth import current_admin_email
from pbem.db import read_scope, session_scope
from pbem.games import ratings
from pbem.games.errors import GameError
from pbem.present.ratings import PROVISIONAL_GAMES, points
from pbem.web.admin import bp


@bp.route("/ratings")
def ratings_page() -> Any:
    with read_scope(db()) as session:
        rows = ratings.admin_ratings(session)
        games = ratings.rated_games(session)
    return render_template("admin/ratings.html", rows=rows, games=games, points=points,
                           provisional_games=PROVISIONAL_GAMES)


def _set(game_id: int, excluded: bool) -> Any:
    try:
        with session_scope(db()) as session:
            replayed = ratings.set_excluded(session, game_id, excluded, actor=current_admin_email() or "?")
    except GameError as exc:
        abort(exc.status, description=exc.text("en"))
    what = "taken out of the ratings" if excluded else "counted in the ratings again"
    flash(f"Game #{game_id} {what}: {len(replayed)} ratings replayed.", "ok")
    return redirect(url_for("admin.ratings_page"), code=303)


@bp.route("/ratings/games/<id:game_id>/exclude", methods=["POST"])
def ratings_exclude(game_id: int) -> Any:
    return _set(game_id, True)


@bp.route("/ratings/games/<id:game_id>/include", methods=["POST"])
def ratings_include(game_id: int) -> Any:
    return _set(game_id, False)
