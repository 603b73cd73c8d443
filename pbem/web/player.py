"""Blueprint 'player': the pages behind the links in the emails. No account, no cookie.

GET /m/<token>   confirmation page of one move (changes nothing; mail scanners open links)
POST /m/<token>  applies that move once, then 303 to the game page
GET /g/<token>   the seat's private game page; its moves link to their confirmation pages

The signed token is the credential and the CSRF defence. Every refusal is an HTML page with
a fitting 4xx status, the reason in words, and (when the token proves whose it is) a link to
the player's current game page.
"""
from __future__ import annotations

import json
from typing import Any

import engine
from flask import Blueprint, redirect, render_template, request
from sqlmodel import select

from pbem import links
from pbem.db import read_scope, session_scope
from pbem.games import service
from pbem.letters import notify
from pbem.present.board import board, move_log
from pbem.present.final import final_result
from pbem.present.phrases import describe_move
from pbem.logging import log_context
from pbem.models import Game, GameStatus, Seat, utcnow
from pbem.schedule import local_time_text, time_left_text
from pbem.appctx import config, db
from pbem.games.move_refusals import move_refusal
from pbem.games.seat_links import link_message, load_seat, lock_seat, use_seat_language
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.web import talk as talk_web

bp = Blueprint("player", __name__)

STATUS_TITLES = {
    400: lazy("This link does not work"),
    403: lazy("This link is no longer yours"),
    404: lazy("No such game"),
    409: lazy("This move cannot be played now"),
    410: lazy("This game is over"),
    422: lazy("This move is not allowed"),
}


def _error_page(message: str, status: int, game_url: str | None = None) -> tuple[str, int]:
    title = _(STATUS_TITLES.get(status, lazy("This did not work")))
    return render_template("player/error.html", title=title, message=message,
                           game_url=game_url, status=status), status


def _seat_url(game_id: int, position: int, nonce: str) -> str:
    """The seat's game page, signed for its current link nonce."""
    return "/g/" + links.sign_seat(config(), game_id, position, nonce)


def _page_context(game: Game, seat: Seat, state: engine.GameState, game_url: str) -> dict[str, Any]:
    view = engine.player_view(state, seat.position)
    return {"game": game, "seat": seat, "view": view, "board": board(view), "game_url": game_url}


def _deadline(game: Game, seat: Seat, to_move: Seat | None) -> str | None:
    """When the turn of the player to move ends, in the reader's time zone; None without one."""
    if game.status != GameStatus.RUNNING or game.deadline_at is None or to_move is None:
        return None
    when = local_time_text(game.deadline_at, seat)
    left = time_left_text(game.deadline_at, utcnow())
    if to_move.position == seat.position:
        return _("Your turn ends %(when)s, in %(left)s.", when=when, left=left)
    return _("%(player)s has until %(when)s to move, in %(left)s.", player=to_move.name, when=when, left=left)


@bp.route("/m/<token>", methods=["GET"])
def confirm_move(token: str) -> Any:
    """The move in words, the hand and the table, and one button. Changes nothing."""
    cfg = config()
    try:
        parsed = links.read_move(cfg, token)
    except links.LinkError as exc:
        return _link_error(exc)
    log_context(game_id=parsed.game_id)
    with read_scope(db()) as session:
        try:
            game, seat = load_seat(session, parsed.seat)
        except links.LinkError as exc:
            return _error_page(link_message(exc), exc.status)
        use_seat_language(seat)
        game_url = _seat_url(game.id, seat.position, seat.link_nonce)  # type: ignore[arg-type]  # stored: its id is set
        try:
            move = engine.normalize_move(parsed.move)
        except engine.IllegalMove as exc:
            return _error_page(move_refusal(exc), 422, game_url)
        state = service.load_state(game)  # parsed once: for the checks and for the page
        refusal = service.refusal(session, game, seat.position, move, parsed.version, player=seat,
                                  state=state)
        if refusal is not None:
            return _error_page(refusal.message, refusal.status, game_url)
        context = _page_context(game, seat, state, game_url)
        presented = next((mv for mv in context["board"]["moves"] if mv["move"] == move), None)
        return render_template("player/confirm.html", token=token, move=move,
                               move_text=describe_move(move, context["view"]),
                               move_number=presented["number"] if presented else None,
                               outcome=presented["outcome"] if presented else None, **context)


@bp.route("/m/<token>", methods=["POST"])
def play_move(token: str) -> Any:
    """Apply the move of a signed link once; a replay or an old link is refused, nothing changed."""
    cfg = config()
    try:
        parsed = links.read_move(cfg, token)
    except links.LinkError as exc:
        return _link_error(exc)
    log_context(game_id=parsed.game_id)
    page: tuple[int, int, str] | None = None  # whose game page to link to, signed after the commit
    try:
        with session_scope(db()) as session:
            game, seats, seat = lock_seat(session, parsed.seat)
            use_seat_language(seat)
            page = (game.id, seat.position, seat.link_nonce)  # type: ignore[assignment]  # stored: its id is set
            outcome = service.apply_game_move(session, cfg, parsed.game_id, parsed.position,
                                              parsed.move, expected_version=parsed.version,
                                              source="player", game=game, seats=seats)
    except links.LinkError as exc:
        return _error_page(link_message(exc), exc.status)
    except service.GameError as exc:
        return _error_page(exc.message, exc.status, _seat_url(*page) if page else None)
    assert page is not None  # set before the move was applied
    return redirect(f"{_seat_url(*page)}?played={outcome.number}", code=303)


@bp.route("/g/<token>", methods=["GET"])
def game_page(token: str) -> Any:
    """The seat's private view, its legal moves as buttons, the move log and the status."""
    cfg = config()
    try:
        parsed = links.read_seat(cfg, token)
    except links.LinkError as exc:
        return _error_page(link_message(exc), exc.status)
    log_context(game_id=parsed.game_id)
    with read_scope(db()) as session:
        try:
            game, seat = load_seat(session, parsed)
        except links.LinkError as exc:
            return _error_page(link_message(exc), exc.status)
        use_seat_language(seat)
        context = _page_context(game, seat, service.load_state(game),
                                _seat_url(game.id, seat.position, seat.link_nonce))  # type: ignore[arg-type]  # stored: its id is set
        view = context["view"]
        playable = game.status == GameStatus.RUNNING and not seat.handed_to_bot
        moves = notify.move_links(cfg, game, seat, view) if playable else []
        records = service.moves_of(session, game.id)  # type: ignore[arg-type]  # stored: its id is set
        log = move_log(records, view)
        final = final_result(view, [json.loads(r.events_json or "[]") for r in records]) \
            if view["finished"] else None
        to_move = session.exec(select(Seat).where(Seat.game_id == game.id,
                                                  Seat.position == game.to_move)).first() \
            if game.to_move is not None else None
        played = request.args.get("played", type=int)
        just_played = next((entry for entry, record in zip(log, records)
                            if record.number == played and record.seat == seat.position), None)
        return render_template("player/game.html", moves=moves, log=log, final=final,
                               deadline=_deadline(game, seat, to_move),
                               talk_box=talk_web.talk_box(session, game, seat, context["game_url"]),
                               just_played=just_played, **context)


def _link_error(exc: links.LinkError) -> tuple[str, int]:
    """A token that failed verification; an expired one still proves whose page to offer."""
    game_url = None
    if exc.seat is not None:
        with read_scope(db()) as session:
            try:
                game, seat = load_seat(session, exc.seat)
                use_seat_language(seat)
                game_url = _seat_url(game.id, seat.position, seat.link_nonce)  # type: ignore[arg-type]  # stored: its id is set
            except links.LinkError:
                game_url = None
    return _error_page(link_message(exc), exc.status, game_url)
