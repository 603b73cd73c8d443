"""One entry for the pages reached by a seat's token: the blueprint 'seat' at /g/<token>.

The flaskr pattern (`login_required` + `get_post`): the blueprints of the seat's pages
(`player`, `talk`, `prefs`, `seat_actions`) are nested in this one, so every request under
/g/<token> first goes through `_verify` (the signed token read, the log tagged with the game;
the blueprint's `before_request`, after the app's);
its view then opens the seat with `reading()` (a GET) or `changing()` (a POST: the game row
locked with every seat, the token checked against the seat as it is when the change is made),
which set the seat's language and put the `SeatedGame` in `g.seat`. A refusal raised anywhere
below (a link that does not work, the domain's `GameError`, a limit: each a `pbem.refusals.Refusal`) is turned
into the one error page by `_refused`, its title from `pbem.web.error_page.TITLES`.

The move links (/m/<token>, `pbem.web.player`: a move token, not a seat's, so not nested here)
carry a seat token inside: they open the seat with the same loaders (`load_seat`, `lock_seat`)
through `opened_by_move_link`, and their blueprint has the same error handler (`handle_refusals`).
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, g, request
from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from pbem import i18n, links
from pbem.appctx import config, db
from pbem.db import read_scope, session_scope
from pbem.games import errors, service
from pbem.games.limits import LimitReached
from pbem.games.seated import SeatedGame
from pbem.logging import log_context
from pbem.models import Game, Seat
from pbem.web.error_page import error_page
from pbem.web.i18n_web import hide_language_switch
from pbem.web.limited import limit_page

bp = Blueprint("seat", __name__, url_prefix="/g/<token>")

# The error page's area (`pbem.web.error_page.TITLES`) of each nested blueprint (and the move links').
AREAS = {"player": "move", "seat.player": "move", "seat.talk": "talk", "seat.prefs": "prefs",
         "seat.seat_actions": "seat"}


def link_message(exc: links.LinkError) -> str:
    """A refused link's sentence in the reader's language (the request's, now)."""
    return exc.text()


def use_seat_language(seat: Seat) -> None:
    """Pages reached with a seat's token speak the seat's language, for the rest of the request,
    and show no language switch (the seat's preferences page changes it)."""
    hide_language_switch()
    code = getattr(seat, "language", None)
    if code:
        i18n.set_language(code)


# ---------------------------------------------------------------- the loaders
# Built once: a page load is one round trip for the game and its seats.
_GAME_AND_SEATS = (select(Game, Seat).join(Seat, col(Seat.game_id) == col(Game.id))
                   .where(col(Game.id) == bindparam("game_id")).order_by(col(Seat.position)))


def _current(game: Game, seats: list[Seat], token: links.SeatToken) -> SeatedGame:
    seat = next((s for s in seats if s.position == token.position), None)
    if seat is None:
        raise links.LinkError("link_not_a_seat")
    if seat.link_nonce != token.nonce:
        # No link to the current page here: the nonce changed precisely to revoke this one.
        raise links.LinkError("link_revoked")
    return SeatedGame(game, seats, seat)


def load_seat(session: Session, token: links.SeatToken) -> SeatedGame:
    """The game and seats a verified token names, read (one query); LinkError if gone or revoked."""
    rows = session.exec(_GAME_AND_SEATS, params={"game_id": token.game_id}).all()
    if not rows:
        raise links.LinkError("game_gone")
    return _current(rows[0][0], [seat for _game, seat in rows], token)


def lock_seat(session: Session, token: links.SeatToken) -> SeatedGame:
    """Like `load_seat`, for a write: the game row locked with every seat (one query), so the
    token is checked against the seat as it is when the change is made."""
    try:
        game, seats = service.lock_game_with_seats(session, token.game_id)
    except errors.NotFound:
        raise links.LinkError("game_gone") from None
    return _current(game, seats, token)


# ---------------------------------------------------------------- the entry
@bp.url_value_preprocessor
def _take_token(_endpoint: str | None, values: dict[str, Any] | None) -> None:
    """The token leaves the view's arguments: the entry holds it (`token()`)."""
    g.seat_token = (values or {}).pop("token", "")


@bp.before_request
def _verify() -> None:
    """Every request under /g/<token>: the token verified (LinkError otherwise), the log tagged.
    After the app's own before_request (the reader's language for a refusal of a bad link)."""
    g.seat_link = links.read_seat(config(), g.seat_token)
    log_context(game_id=g.seat_link.game_id)


def _opened(seated: SeatedGame, game_url: str) -> SeatedGame:
    """The seat speaks its language for the rest of the request; a refusal from now on offers
    its game page (`game_url`)."""
    use_seat_language(seated.seat)
    g.seat = seated
    g.game_url = game_url
    return seated


def opened_by_move_link(seated: SeatedGame) -> SeatedGame:
    """The seat of a move link (/m/<token>), opened like a seat's page: its language, and its game
    page (signed anew: a move link holds no seat token) as the way on from a refusal."""
    return _opened(seated, signed_page_url(seated.seat))


def signed_page_url(seat: Seat) -> str:
    """The seat's current game page, signed for its nonce now."""
    return "/g/" + links.sign_seat(config(), seat.game_id, seat.position, seat.link_nonce)


@contextmanager
def reading() -> Iterator[tuple[Session, SeatedGame]]:
    """The seat of the request's token, read, in a read-only transaction."""
    with read_scope(db()) as session:
        yield session, _opened(load_seat(session, g.seat_link), page_url())


@contextmanager
def changing() -> Iterator[tuple[Session, SeatedGame]]:
    """The seat of the request's token, locked with its game, in the transaction of a change."""
    with session_scope(db()) as session:
        yield session, _opened(lock_seat(session, g.seat_link), page_url())


def token() -> str:
    """The request's verified token, as in its URL."""
    return str(g.seat_token)


def token_nonce() -> str:
    """The link nonce the request's token was signed for."""
    return str(g.seat_link.nonce)


def page_url() -> str:
    """The seat's game page, by the token this request came with (verified, current: no need to
    sign another)."""
    return f"/g/{token()}"


def _refused(exc: Exception) -> Any:
    """The one error page of a request under /g/<token> or /m/<token>: a link that does not work
    (no way on: it proved nothing, unless an expired move link's signature proved whose seat it
    was), or a refusal of the domain (on to the game page, once the seat was opened and when the
    seat's page shows one)."""
    if isinstance(exc, LimitReached):
        return limit_page(exc)
    area = AREAS.get(request.blueprint or "", "seat")
    if isinstance(exc, links.LinkError):
        return error_page(area, exc.text(), exc.status, game_url=_proven_page(exc))
    assert isinstance(exc, errors.GameError)
    opened = "game_url" in g and area != "prefs"
    return error_page(area, exc.text(), exc.status, game_url=g.game_url if opened else None)


def _proven_page(exc: links.LinkError) -> str | None:
    """The current game page of the seat a refused link's signature proved (an expired move
    link), in the seat's language; None when it proved none, or the seat is gone or revoked."""
    if exc.seat is None:
        return None
    with read_scope(db()) as session:
        try:
            seated = load_seat(session, exc.seat)
        except links.LinkError:
            return None
        use_seat_language(seated.seat)
        return signed_page_url(seated.seat)


def handle_refusals(blueprint: Blueprint) -> None:
    """`blueprint`'s refusals (a link's, the domain's, a limit) shown by the one error page."""
    for kind in (links.LinkError, errors.GameError, LimitReached):
        blueprint.register_error_handler(kind, _refused)


handle_refusals(bp)
