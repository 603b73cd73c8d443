"""A game as one seat sits at it (`SeatedGame`): the game row, every seat, this seat.

The entry that verified a seat's credential (a page's signed token, a reply's address) loads
or locks the rows once and hands this value down; the domain decides on rows, never on tokens.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import engine

from sqlmodel import Session

from pbem.games.service import lock_game_with_seats
from pbem.games.errors import NotFound
from pbem.models import Game, GameStatus, Seat
from pbem.store import load_state



@dataclass(frozen=True)
class SeatedGame:
    """The game, its seats in order and the seat at hand, as read or locked by the caller."""

    game: Game
    seats: list[Seat]
    seat: Seat

    @cached_property
    def state(self) -> engine.GameState:
        """The engine's state, parsed once and only when asked for."""
        return load_state(self.game)

    @property
    def language(self) -> str:
        return self.seat.language

    @property
    def to_move(self) -> Seat | None:
        """The seat whose turn it is, if any."""
        return next((s for s in self.seats if s.position == self.game.to_move), None)

    @property
    def may_play(self) -> bool:
        """Whether the seat's player moves now by link: the game runs and no bot plays the seat."""
        return self.game.status == GameStatus.RUNNING and not self.seat.handed_to_bot

    def partners(self) -> list[Seat]:
        """The other seats of this seat's team (none in a game without teams)."""
        if not self.game.teams or self.seat.team is None:
            return []
        return [s for s in self.seats if s.team == self.seat.team and s.position != self.seat.position]


def lock_seated(session: Session, game_id: int, position: int) -> SeatedGame:
    """The game locked with every seat, at `position`: for a caller whose credential is not a
    seat link (the CLI, a reply's address, an address's "my games"). NotFound if there is none."""
    game, seats = lock_game_with_seats(session, game_id)
    seat = next((s for s in seats if s.position == position), None)
    if seat is None:
        raise NotFound("game_gone")
    return SeatedGame(game, seats, seat)
