"""Blueprint 'player': the pages behind the links in the emails. No account, no cookie.

GET /m/<token>   confirmation page of one move (changes nothing; mail scanners open links)
POST /m/<token>  applies that move once, then 303 to the game page
GET /g/<token>   the seat's private game page; its moves link to their confirmation pages

The signed token is the credential and the CSRF defence. Every refusal is raised, and shown by
the seat entry's handler (`pbem.web.seat.handle_refusals`): the one error page with a fitting 4xx
status, the reason in words, and (when the token proves whose it is) a link to the player's
current game page.
"""
from __future__ import annotations

import json
from typing import Any

import engine
from flask import Blueprint, g, redirect, render_template, request
from pbem import links
from pbem.db import read_scope, session_scope
from pbem.games import bounced, errors, records, service
from pbem.games.finish import is_over
from pbem import store
from pbem.letters import notify
from pbem.present.board import board, move_log
from pbem.present.final import final_result
from pbem.present.ratings import change_lines
from pbem.models_ratings import changes_of_game
from pbem.present.names import named_view, reader_names, seat_name
from pbem.present.phrases import describe_move
from pbem.logging import log_context
from pbem.models import Game, GameStatus, Seat, utcnow
from pbem.schedule import local_time_text, time_left_text
from pbem.appctx import config, db
from pbem.i18n import gettext as _
from pbem.web import seat as seat_entry
from pbem.web import talk as talk_web
from pbem.web.seat import load_seat, lock_seat

bp = Blueprint("player", __name__)  # the move links, /m/<token>
seat_entry.handle_refusals(bp)  # the seat entry's one error page
seat_bp = Blueprint("player", __name__)  # the game page, nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(seat_bp)


def _page_context(game: Game, seat: Seat, seats: list[Seat], state: engine.GameState,
                  game_url: str) -> dict[str, Any]:
    view = named_view(engine.player_view(state, seat.position), seats)
    return {"game": game, "seat": seat, "view": view, "board": board(view), "game_url": game_url}


def _deadline(game: Game, seat: Seat, seats: list[Seat], to_move: Seat | None) -> str | None:
    """When the turn of the player to move ends, in the reader's time zone; None without one."""
    if game.status != GameStatus.RUNNING or game.deadline_at is None or to_move is None:
        return None
    when = local_time_text(game.deadline_at, seat)
    left = time_left_text(game.deadline_at, utcnow())
    if to_move.position == seat.position:
        return _("Your turn ends %(when)s, in %(left)s.", when=when, left=left)
    return _("%(player)s has until %(when)s to move, in %(left)s.", player=seat_name(to_move, seats),
             when=when, left=left)


@bp.route("/m/<token>", methods=["GET"])
def confirm_move(token: str) -> Any:
    """The move in words, the hand and the table, and one button. Changes nothing."""
    parsed = _verified(token)
    with read_scope(db()) as session:
        seated = seat_entry.opened_by_move_link(load_seat(session, parsed.seat))
        game, seat = seated.game, seated.seat
        try:
            move = engine.normalize_move(parsed.move)
        except engine.IllegalMove as exc:
            raise errors.IllegalMoveError.of(exc) from None
        state = store.load_state(game)  # parsed once: for the checks and for the page
        refusal = service.refusal(session, game, seat.position, move, parsed.version, player=seat,
                                  state=state)
        if refusal is not None:
            raise refusal
        context = _page_context(game, seat, seated.seats, state, g.game_url)
        presented = next((mv for mv in context["board"]["moves"] if mv["move"] == move), None)
        return render_template("player/confirm.html", token=token, move=move,
                               move_text=describe_move(move, context["view"]),
                               move_number=presented["number"] if presented else None,
                               outcome=presented["outcome"] if presented else None, **context)


@bp.route("/m/<token>", methods=["POST"])
def play_move(token: str) -> Any:
    """Apply the move of a signed link once; a replay or an old link is refused, nothing changed."""
    parsed = _verified(token)
    with session_scope(db()) as session:
        seated = seat_entry.opened_by_move_link(lock_seat(session, parsed.seat))
        outcome = service.apply_game_move(session, config(), parsed.game_id, parsed.position,
                                          parsed.move, expected_version=parsed.version,
                                          source="player", game=seated.game, seats=seated.seats)
    return redirect(f"{g.game_url}?played={outcome.number}", code=303)


def _verified(token: str) -> links.MoveToken:
    """The move link's content (LinkError otherwise, shown by the entry's handler), the log tagged."""
    parsed = links.read_move(config(), token)
    log_context(game_id=parsed.game_id)
    return parsed


@seat_bp.route("", methods=["GET"])
def game_page() -> Any:
    """The seat's private view, its legal moves as buttons, the move log and the status."""
    cfg = config()
    with seat_entry.reading() as (session, seated):
        game, seat = seated.game, seated.seat
        context = _page_context(game, seat, seated.seats, seated.state, seat_entry.page_url())
        view = context["view"]
        moves = notify.move_links(cfg, game, seat, view) if seated.may_play else []
        stored = records.moves_of(session, game.id)  # type: ignore[arg-type]  # stored: its id is set
        log = move_log(stored, view)
        final = final_result(view, [json.loads(r.events_json or "[]") for r in stored]) \
            if view["finished"] else None
        played = request.args.get("played", type=int)
        just_played = next((entry for entry, record in zip(log, stored)
                            if record.number == played and record.seat == seat.position), None)
        bouncing = bounced.bouncing_seats(session, seated.seats) if not is_over(game) else []
        return render_template("player/game.html", moves=moves, log=log, final=final,
                               deadline=_deadline(game, seat, seated.seats, seated.to_move),
                               bouncing=[s.name for s in bouncing if s.id != seat.id],
                               you_bounce=any(s.id == seat.id for s in bouncing),
                               talk_box=talk_web.talk_box(session, seated, context["game_url"]),
                               just_played=just_played, **context,
                               rating_changes=change_lines(changes_of_game(session, game.id or 0),
                                                           dict(enumerate(reader_names(seated.seats))),
                                                           you=seat.position))
