"""The refusals of the game domain: every layer above catches them (`message` for the reader,
`status` for HTTP), so they live apart from what raises them."""
from __future__ import annotations


class GameError(Exception):
    """A refused request: `message` is shown to the user as is, `status` is the HTTP status."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class NotFound(GameError):
    status = 404


class StaleMove(GameError):
    status = 409
    already_played = False  # the same seat's same move was stored for this version


class IllegalMoveError(GameError):
    status = 422


class GameNotRunning(GameError):
    """Paused (409) or over (410)."""

    status = 409


class SeatHandedToBot(GameError):
    """A bot plays the seat now: its player's moves wait until an admin hands it back."""

    status = 409


class GameNotOver(GameError):
    """Refused until the game is finished or aborted (its deck would give away the deal)."""

    status = 409
