"""The beginner's bot: the greedy rules, but it overlooks moves, as a first-time player does.

Each turn it notices each legal move with probability ``NOTICE`` (drawing a card it always
sees) and plays the one the greedy rules (greedy.py) rate best among those it noticed: it plays
sensibly, yet often misses the capture or the merchant ship a greedy player would take. It sees
only its view; deterministic given the view and the rng. Its strength against a greedy table is
measured by ``python -m engine duel --bot beginner --against greedy`` (about a third of the
greedy bot's win share is the aim).
"""
from __future__ import annotations

from collections.abc import Sequence

import random
from typing import Any

from engine.bots.base import Bot, Observation
from engine.bots.greedy import greedy_choices
from engine.core import DRAW, legal_moves
from engine.moves import decode
from engine.view import state_from_view
from engine.view_types import PlayerView

NOTICE = 0.33  # the chance of seeing each move that is not a draw, each turn


class BeginnerBot(Bot):
    name = "beginner"

    def __init__(self, notice: float = NOTICE) -> None:
        self.notice = notice

    def choose(self, view: PlayerView, rng: random.Random,
               history: Sequence[Observation] | None = None) -> dict[str, Any]:
        if not view["legal_moves"]:
            raise ValueError("There is no legal move in this view: it is not this seat's turn.")
        st = state_from_view(view)
        legal = legal_moves(st)
        seen = [m for m in legal if m == DRAW or rng.random() < self.notice]
        return decode(rng.choice(greedy_choices(st, seen or legal)))
