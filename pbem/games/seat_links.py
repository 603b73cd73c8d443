"""The game and seat behind a verified seat token, for every page and service reached by a seat link
(player pages, preferences): gone games are 404, foreign or revoked links 403."""
from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from pbem import i18n, links
from pbem.games import errors, service
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import Game, Seat

REVOKED = lazy("This link has been replaced by a newer one (for example after an email address "
              "change). Use the links in your latest email.")
NOT_A_SEAT = lazy("This link does not belong to any player of this game.")
GONE = lazy("This game does not exist any more.")
# The sentences of pbem.links' LinkError (a base module, English): written in the reader's
# language where a page shows them (`link_message`).
LINK_SENTENCES = (
    lazy("This move link has expired. Open your game page to see your moves now."),
    lazy("This link is damaged or was not made by us. Copy the whole link from your email, or open your game page."),
    lazy("This link is damaged. Open your game page from your latest email."),
    lazy("This game page link is damaged or was not made by us. Copy the whole link from your email."),
    lazy("This game page link is damaged. Copy the whole link from your email."),
)


def link_message(exc: links.LinkError) -> str:
    """A refused link's sentence in the reader's language (its English is the msgid)."""
    return _(exc.message)


def use_seat_language(seat: Seat) -> None:
    """Pages reached with a seat's token speak the seat's language, for the rest of the request."""
    code = getattr(seat, "language", None)
    if code:
        i18n.set_language(code)

# Built once: a page load is one round trip for the game and the seat its token names.
_GAME_AND_SEAT = (select(Game, Seat).join(Seat, col(Seat.game_id) == col(Game.id))
                  .where(col(Game.id) == bindparam("game_id"), col(Seat.position) == bindparam("position")))
_GAME_EXISTS = select(Game.id).where(col(Game.id) == bindparam("game_id"))


def _current(seat: Seat | None, token: links.SeatToken) -> Seat:
    if seat is None:
        raise links.LinkError(NOT_A_SEAT, 403)
    if seat.link_nonce != token.nonce:
        # No link to the current page here: the nonce changed precisely to revoke this one.
        raise links.LinkError(REVOKED, 403)
    return seat


def load_seat(session: Session, token: links.SeatToken) -> tuple[Game, Seat]:
    """The game and seat a verified token names, read (one query); LinkError if gone or revoked."""
    row = session.exec(_GAME_AND_SEAT, params={"game_id": token.game_id, "position": token.position}).first()
    if row is None:
        if session.exec(_GAME_EXISTS, params={"game_id": token.game_id}).first() is None:
            raise links.LinkError(GONE, 404)
        raise links.LinkError(NOT_A_SEAT, 403)
    game, seat = row
    return game, _current(seat, token)


def lock_seat(session: Session, token: links.SeatToken) -> tuple[Game, list[Seat], Seat]:
    """Like `load_seat`, for a write: the game row locked and every seat loaded (one query), so
    the token is checked against the seat as it is when the change is made."""
    try:
        game, seats = service.lock_game_with_seats(session, token.game_id)
    except errors.NotFound:
        raise links.LinkError(GONE, 404) from None
    seat = next((s for s in seats if s.position == token.position), None)
    return game, seats, _current(seat, token)
