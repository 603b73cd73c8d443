"""The replay of a game, one server-rendered page per step (GET only, inert; pbem/static/replay.js
adds the keyboard and the slider).

GET /g/<seat token>/replay[/<step>]    (also ?step=N) nested in the seat entry (pbem/web/seat.py):
    a game that is over shows every hand at every step (they are public then); while it is
    played, only what that seat saw at each step (`engine.player_view` at that step).
GET /admin/games/<id>/replay[/<step>]  nested in the dashboard's blueprint (its admin check):
    every hand, in English like the rest of the dashboard.

Step 0 is the deal, step k the game after its k-th move (pbem/present/replay.py pictures it).
A step past the last move is a 404 and one that is not a whole number a 400, each a refusal with
its sentence (the dashboard's /<step> is an id of its URL map, as all its ids: a 404 otherwise).

Render time (`python -m benchmarks.replay_bench`, SQLite, a 131-move game of 3): a step costs
7 ms of CPU (median; p95 9 ms) with the game's states cached, 12 ms replaying them each time;
the engine replays a whole game in about 2 ms, the rest is the page (the log of every move, the
template). So the states of a game that is over are kept per process (`_FINISHED`, a small
LRU: the 5 ms a step saves on a game nobody moves any more), and a game being played is
replayed to its last move on each request (8 to 10 ms a step). The states of a game that is
over never change (no move after its end; an abort ends a game at the version it had, and a game
is cached only once over); the key holds the game's deck as well as its id and version, so that
another database's game with the same id and version (the tests', in one process) is never
served another's states.
"""
from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import engine
from flask import Blueprint, abort, render_template, request, url_for
from sqlmodel import Session

from pbem import i18n
from pbem.appctx import db
from pbem.db import read_scope
from pbem.games import errors, records
from pbem.games.analysis import replay_analysis, step_analyses
from pbem.games.analysis import step_analysis as analysis_of_step
from pbem.games.finish import is_over
from pbem.games.seated import SeatedGame
from pbem.games.service import seats_of
from pbem.i18n import lazy
from pbem.models import Game, GameStatus, MoveRecord, Seat
from pbem.present.replay import Reader, replay_states, replay_step
from pbem.refusals import declare_refusals
from pbem.web import admin
from pbem.web import seat as seat_entry
from pbem.web.error_page import error_page

seat_bp = Blueprint("replay", __name__)  # nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(seat_bp)
admin_bp = Blueprint("replay", __name__, url_prefix="/games/<id:game_id>/replay")  # in /admin
admin.bp.register_blueprint(admin_bp)

declare_refusals({
    "replay_bad_step": (lazy("A step of this replay is a whole number from 0 to %(last)s."), 400),
    "replay_no_step": (lazy("This game has no step %(step)s: its replay goes from step 0 to "
                            "step %(last)s."), 404),
})

STEP_RE = re.compile(r"[0-9]{1,30}")
# The states of the games that are over, by (game id, moves, deck): a few hundred kilobytes a game.
_FINISHED: OrderedDict[tuple[int, int, str], list[engine.GameState]] = OrderedDict()
_FINISHED_SIZE = 32
_lock = threading.Lock()


def analysis_for(session: Session, game: Game, seats: list[Seat], reader: Reader,
                 step: int, states: Sequence[engine.GameState]) -> dict[str, Any]:
    """The expert's analysis of the step's move and the reader's chart, for
    `replay/_analysis.html`: a player's, once the game is finished and analysed (the admin: the
    step's mark only); read from the replay's `states` (nothing replayed twice)."""
    if reader.speaking_to is None:  # the admin: each step's mark, nobody's chart
        if game.status != GameStatus.FINISHED or game.id is None:
            return {"analysis": None, "analysis_chart": None}
        return {"analysis": analysis_of_step(step_analyses(session, game.id, seats, states, reader=None), step - 1),
                "analysis_chart": None}
    seated = SeatedGame(game, seats, seats[reader.speaking_to])
    step_analysis, chart = replay_analysis(session, seated, step, states)
    return {"analysis": step_analysis, "analysis_chart": chart}


def _states(session: Session, game: Game, over: bool) -> list[engine.GameState]:
    """The state at every step: a game that is over from the process's cache."""
    assert game.id is not None
    key = (game.id, game.version, game.deck_json)
    if over:
        with _lock:
            if key in _FINISHED:
                _FINISHED.move_to_end(key)
                return _FINISHED[key]
    states = replay_states(records.export_record(session, game.id, live=not over))
    if over:
        with _lock:
            _FINISHED[key] = states
            while len(_FINISHED) > _FINISHED_SIZE:
                _FINISHED.popitem(last=False)
    return states


def _step_asked(step: int | str | None, last: int) -> int | errors.GameError:
    """The step of the URL (/replay/<step>, or ?step=, the slider's form without JavaScript; the
    deal, step 0, if none): a number or the refusal to show."""
    if step is None:
        step = request.args.get("step")
        if step is None:
            return 0
    if isinstance(step, str):
        if not STEP_RE.fullmatch(step):
            return errors.GameError("replay_bad_step", {"last": last})
        step = int(step)
    number = step
    if number > last:
        return errors.NotFound("replay_no_step", {"step": number, "last": last})
    return number


def _context(session: Session, game: Game, seats: list[Seat], step: int, reader: Reader,
             stored: list[MoveRecord], replay_url: str) -> dict[str, Any]:
    """What the step page shows; `replay_url` is the replay's own URL (a step's is /<step> below)."""
    states = _states(session, game, is_over(game))
    return {"game": game, "over": is_over(game), "replay_url": replay_url,
            "step_url": lambda n: f"{replay_url}/{n}", "seat_only": reader.seat is not None,
            **analysis_for(session, game, seats, reader, step, states),
            **replay_step(states, stored, step, seats, reader)}


@seat_bp.route("/replay", methods=["GET"])
def seat_replay() -> Any:
    """The seat's replay at the deal (or at ?step=)."""
    return seat_replay_step(None)


@seat_bp.route("/replay/<step>", methods=["GET"])
def seat_replay_step(step: str | None) -> Any:
    """The seat's replay: every hand once the game is over, only its own (and its partner's)
    before."""
    with seat_entry.reading() as (session, seated):
        game, seat = seated.game, seated.seat
        assert game.id is not None
        stored = records.moves_of(session, game.id)
        asked = _step_asked(step, len(stored))
        game_url = seat_entry.page_url()
        if isinstance(asked, errors.GameError):
            return error_page("http", asked.text(), asked.status, game_url=game_url)
        reader = Reader.everything(seat.position) if is_over(game) else Reader.at_seat(seat.position)
        context = _context(session, game, seated.seats, asked, reader, stored, f"{game_url}/replay")
        return render_template("replay/step.html", layout="base.html", game_url=game_url, **context)


@admin_bp.route("", methods=["GET"])
def admin_replay(game_id: int) -> Any:
    """The admin's replay at the deal (or at ?step=)."""
    return admin_replay_step(game_id, None)


@admin_bp.route("/<id(min=0):step>", methods=["GET"])
def admin_replay_step(game_id: int, step: int | None) -> Any:
    """The admin's replay of any game: every hand at every step, in English."""
    i18n.set_language(i18n.DEFAULT)  # the dashboard stays English
    with read_scope(db()) as session:
        game = session.get(Game, game_id)
        if game is None:
            abort(404, description=f"There is no game {game_id}.")
        stored = records.moves_of(session, game_id)
        asked = _step_asked(step, len(stored))
        if isinstance(asked, errors.GameError):
            abort(asked.status, description=asked.text(i18n.DEFAULT))
        context = _context(session, game, seats_of(session, game_id), asked, Reader.everything(),
                           stored, url_for("admin.replay.admin_replay", game_id=game_id))
        return render_template("replay/step.html", layout="admin/base.html",
                               game_url=url_for("admin.game_detail", game_id=game_id), **context)
