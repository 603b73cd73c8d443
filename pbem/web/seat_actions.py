"""Blueprint 'seat_actions': what a player does to their seat from its game page, each a
confirmation page (GET, inert: mail scanners open links) whose form POSTs.

GET/POST /g/<seat token>/rematch  a finished game: play again with the same players and
                                  options (pbem/games/proposals.py rematch); 303 to the new
                                  game's page for its creator (names, no address); 409 while
                                  the game is not over or another player's rematch of it is
                                  being set up (asked again, the same rematch)
GET/POST /g/<seat token>/leave    a bot plays the seat for the rest of the game, the table is
                                  told, no more mail (pbem/games/lifecycle.py leave_game);
                                  409 if already left or the game is over

The signed seat token is the credential. The pages speak the seat's language.
"""
from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, redirect, render_template
from sqlmodel import Session

from pbem import links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import errors, lifecycle, proposals, service
from pbem.games.limits import LimitReached
from pbem.games.seat_links import link_message, load_seat, use_seat_language
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.logging import log_context
from pbem.models import Game, Seat, utcnow
from pbem.web.limited import limit_page
from pbem.games.finish import is_over

bp = Blueprint("seat_actions", __name__)

STATUS_TITLES = {
    400: lazy("This link does not work"),
    403: lazy("This link is no longer yours"),
    404: lazy("No such game"),
    409: lazy("This cannot be done now"),
    410: lazy("This link has expired"),
}
NOT_OVER = lazy("This game is not over yet: you can play again with the same players once it has ended.")
ALREADY_LEFT = lazy("You have already left this game: a bot plays your seat.")
LEAVE_OVER = lazy("This game is over: there is no seat to leave.")


def register(app: Flask, csrf: Any) -> None:
    """Register the blueprint; its forms carry no authority a session would add (signed links
    or anonymous requests), so no session CSRF token."""
    csrf.exempt(bp)
    app.register_blueprint(bp)


def _refusal(message: str, status: int, game_url: str | None = None) -> tuple[str, int]:
    title = _(STATUS_TITLES.get(status, lazy("This did not work")))
    return render_template("player/error.html", title=title, message=message, status=status,
                           game_url=game_url), status


def _game_url(seat: Seat) -> str:
    return "/g/" + links.sign_seat(config(), seat.game_id, seat.position, seat.link_nonce)


def _open_seat(session: Session, token: str) -> tuple[links.SeatToken, Game, Seat]:
    """The verified token, its game and seat; the rest of the request in the seat's language."""
    parsed = links.read_seat(config(), token)
    log_context(game_id=parsed.game_id)
    game, seat = load_seat(session, parsed)
    use_seat_language(seat)
    return parsed, game, seat


def _players(session: Session, game: Game) -> list[Seat]:
    return service.seats_of(session, game.id)  # type: ignore[arg-type]  # stored: its id is set


@bp.route("/g/<token>/rematch", methods=["GET"])
def rematch_page(token: str) -> Any:
    """Play again with the same players? One button. Changes nothing."""
    try:
        with read_scope(db()) as session:
            _parsed, game, seat = _open_seat(session, token)
            if not is_over(game):
                return _refusal(_(NOT_OVER), 409, _game_url(seat))
            return render_template("seat/rematch.html", game=game, seat=seat, token=token,
                                   players=_players(session, game), game_url=_game_url(seat))
    except links.LinkError as exc:
        return _refusal(link_message(exc), exc.status)


@bp.route("/g/<token>/rematch", methods=["POST"])
def rematch(token: str) -> Any:
    """The same players and options again: new invitations for the humans; to the new game's page."""
    game_url = None
    try:
        with session_scope(db()) as session:
            parsed, _game, seat = _open_seat(session, token)
            game_url = _game_url(seat)
            view = proposals.rematch(session, config(), parsed, now=utcnow())
            manage_url = view.manage_url
    except links.LinkError as exc:
        return _refusal(link_message(exc), exc.status)
    except LimitReached as exc:
        return limit_page(exc)
    except errors.GameError as exc:
        return _refusal(exc.message, exc.status, game_url)
    return redirect(manage_url, 303)


@bp.route("/g/<token>/leave", methods=["GET"])
def leave_page(token: str) -> Any:
    """Leave this game? What it means, and one button. Changes nothing."""
    try:
        with read_scope(db()) as session:
            _parsed, game, seat = _open_seat(session, token)
            if seat.left_game:
                return _refusal(_(ALREADY_LEFT), 409, _game_url(seat))
            if is_over(game):
                return _refusal(_(LEAVE_OVER), 409, _game_url(seat))
            partner = next((s for s in _players(session, game) if seat.team is not None
                            and s.team == seat.team and s.position != seat.position), None)
            return render_template("seat/leave.html", game=game, seat=seat, token=token,
                                   partner=partner, game_url=_game_url(seat))
    except links.LinkError as exc:
        return _refusal(link_message(exc), exc.status)


@bp.route("/g/<token>/leave", methods=["POST"])
def leave(token: str) -> Any:
    """The seat goes to a bot for the rest of the game; the table is told; no more mail."""
    game_url = None
    try:
        with session_scope(db()) as session:
            parsed, game, seat = _open_seat(session, token)
            game_url = _game_url(seat)
            left = lifecycle.leave_game(session, config(), parsed, now=utcnow())
            game_name = game.name
            # The game page stays readable unless leaving retired the seat's links.
            still_url = _game_url(left) if left.link_nonce == parsed.nonce else None
    except links.LinkError as exc:
        return _refusal(link_message(exc), exc.status)
    except errors.GameError as exc:
        return _refusal(exc.message, exc.status, game_url)
    # Rendered after the commit: the page does not hold the database's write lock.
    return render_template("seat/left.html", game_name=game_name, game_url=still_url)
