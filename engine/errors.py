"""The two exceptions the engine raises on purpose."""
from __future__ import annotations


class IllegalMove(ValueError):
    """A move the rules refuse; ``str(exc)`` is a sentence a player understands."""


class ConfigError(ValueError):
    """A game that cannot be set up: player count, options, deck or seed."""
