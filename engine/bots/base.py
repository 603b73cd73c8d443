"""The bot interface: a bot sees one player's view and an rng, never the state."""
from __future__ import annotations

import random
from typing import Any

from engine.view_types import PlayerView


class Bot:
    """Chooses one of ``view["legal_moves"]``; deterministic given the view and rng."""

    name = "bot"

    def choose(self, view: PlayerView, rng: random.Random) -> dict[str, Any]:
        raise NotImplementedError
