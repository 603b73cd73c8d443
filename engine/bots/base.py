"""The bot interface: a bot sees one player's view and an rng, never the state."""
from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.view_types import PlayerView


@dataclass(frozen=True)
class Observation:
    """One move of another seat as the observing seat saw it: its view just before, the mover
    and the move (a core int: a draw shows no card). engine/bots/inference.py reads them."""

    view: PlayerView
    seat: int
    move: int


class Bot:
    """Chooses one of ``view["legal_moves"]``; deterministic given the view and rng (a search
    bot with a time budget excepted: engine/bots/expert.py). ``history``: the other seats' recent
    moves as this seat saw them (``engine.bots.inference.observations``); the bots that read
    nothing into them ignore it."""

    name = "bot"

    def choose(self, view: PlayerView, rng: random.Random,
               history: Sequence[Observation] | None = None) -> dict[str, Any]:
        raise NotImplementedError
