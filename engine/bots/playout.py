"""The search bots' fast playouts: every seat plays the greedy heuristic (greedy.py) on the
core state to the end, and the margin the searches maximize.
"""
from __future__ import annotations

import random

from engine.bots.greedy import greedy_choices
from engine.core import side_scores, step
from engine.state import GameState


def play_out(st: GameState, rng: random.Random) -> None:
    """Play the game to its end in place, every seat with the greedy policy."""
    rand = rng.random
    while not st.finished:
        choices = greedy_choices(st)
        step(st, choices[int(rand() * len(choices))] if len(choices) > 1 else choices[0])


def margin(st: GameState, side: int) -> float:
    """The side's score minus the best other side's (team scores in team play)."""
    scores = side_scores(st)
    mine = scores[side]
    return mine - max(v for s, v in enumerate(scores) if s != side)
