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

from flask import Blueprint, redirect, render_template

from pbem.present.names import reader_names, seat_name
from pbem.appctx import config
from pbem.games import lifecycle, proposals
from pbem.games.finish import is_over
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import utcnow
from pbem.web import seat as seat_entry
from pbem.web.error_page import error_page

bp = Blueprint("seat_actions", __name__)  # nested in pbem.web.seat at /g/<token>
seat_entry.bp.register_blueprint(bp)

NOT_OVER = lazy("This game is not over yet: you can play again with the same players once it has ended.")
ALREADY_LEFT = lazy("You have already left this game: a bot plays your seat.")
LEAVE_OVER = lazy("This game is over: there is no seat to leave.")


def _refusal(message: str) -> tuple[str, int]:
    return error_page("seat", message, 409, game_url=seat_entry.page_url())


@bp.route("/rematch", methods=["GET"])
def rematch_page() -> Any:
    """Play again with the same players? One button. Changes nothing."""
    with seat_entry.reading() as (_session, seated):
        game, seat = seated.game, seated.seat
        if not is_over(game):
            return _refusal(_(NOT_OVER))
        return render_template("seat/rematch.html", game=game, seat=seat, token=seat_entry.token(),
                               players=[{"position": s.position, "name": name} for s, name in
                                        zip(seated.seats, reader_names(seated.seats))],
                               game_url=seat_entry.page_url())


@bp.route("/rematch", methods=["POST"])
def rematch() -> Any:
    """The same players and options again: new invitations for the humans; to the new game's page."""
    with seat_entry.changing() as (session, seated):
        view = proposals.rematch(session, config(), seated, now=utcnow())
        manage_url = view.manage_url
    return redirect(manage_url, 303)


@bp.route("/leave", methods=["GET"])
def leave_page() -> Any:
    """Leave this game? What it means, and one button. Changes nothing."""
    with seat_entry.reading() as (_session, seated):
        game, seat = seated.game, seated.seat
        if seat.left_game:
            return _refusal(_(ALREADY_LEFT))
        if is_over(game):
            return _refusal(_(LEAVE_OVER))
        partner = next(iter(seated.partners()), None) if seat.team is not None else None
        return render_template("seat/leave.html", game=game, seat=seat, token=seat_entry.token(),
                               partner=None if partner is None else {"name": seat_name(partner, seated.seats)},
                               game_url=seat_entry.page_url())


@bp.route("/leave", methods=["POST"])
def leave() -> Any:
    """The seat goes to a bot for the rest of the game; the table is told; no more mail."""
    nonce = seat_entry.token_nonce()
    with seat_entry.changing() as (session, seated):
        left = lifecycle.leave_game(session, config(), seated, now=utcnow())
        game_name = seated.game.name
        # The game page stays readable unless leaving retired the seat's links.
        still_url = seat_entry.page_url() if left.link_nonce == nonce else None
    # Rendered after the commit: the page does not hold the database's write lock.
    return render_template("seat/left.html", game_name=game_name, game_url=still_url)
