"""The two exceptions the engine raises on purpose."""
from __future__ import annotations

from typing import Any


class IllegalMove(ValueError):
    """A move the rules refuse; ``str(exc)`` is a sentence a player understands (English).

    ``code`` names the refusal and ``params`` holds what its sentence mentions (card codes,
    colour words of ``engine.colour_of``, ship numbers, seats), so a caller can write the
    refusal in another language without reading the English.
    """

    def __init__(self, message: str, code: str = "illegal", params: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.params: dict[str, Any] = dict(params or {})


class ConfigError(ValueError):
    """A game that cannot be set up: player count, options, deck or seed."""
