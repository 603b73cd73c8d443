"""The random bot: any legal move, uniformly."""
from __future__ import annotations

from collections.abc import Sequence

import random
from typing import Any

from engine.view_types import PlayerView

from engine.bots.base import Bot, Observation


class RandomBot(Bot):
    name = "random"

    def choose(self, view: PlayerView, rng: random.Random,
               history: Sequence[Observation] | None = None) -> dict[str, Any]:
        moves = view["legal_moves"]
        if not moves:
            raise ValueError("There is no legal move in this view: it is not this seat's turn.")
        return dict(rng.choice(moves))
