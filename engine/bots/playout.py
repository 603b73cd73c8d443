"""The greedy policy on the core state: the search bots' fast playouts.

``greedy_choices`` scores the core's legal moves exactly as ``GreedyBot`` scores
the view's (same numbers, same float arithmetic, same order), so
``rng.choice(greedy_choices(st))`` is the move ``GreedyBot`` picks with that rng
(tests/engine/test_engine_expert.py checks it move for move). It reads
the core state directly: a playout costs no views and no dicts.
"""
from __future__ import annotations

import random

from engine.cards import ADMIRAL, KIND_IS_CAPTAIN, KIND_STRENGTH, KIND_VALUE, N_KINDS, \
    N_MERCHANT_KINDS
from engine.core import DRAW, KIND_MASK, SHIP_SHIFT, legal_moves, side_scores, step
from engine.state import GameState

_ATTACK_BONUS = 2.0  # greedy.py's bonus for taking a rival's ship
_LEADERS = tuple(k == ADMIRAL or KIND_IS_CAPTAIN[k] for k in range(N_KINDS))
# greedy.py: keep captains and the admiral longest, then strong pirates.
_DISCARD_SCORE = tuple(-10.0 - (6 if _LEADERS[k] else KIND_STRENGTH[k]) for k in range(N_KINDS))
_PIRATE_COST = tuple(0.3 * KIND_STRENGTH[k] for k in range(N_KINDS))


def greedy_choices(st: GameState) -> list[int]:
    """The core moves GreedyBot rates best for the seat to move, in legal-move order."""
    seat = st.seat
    side = st.side_of[seat]
    partner = seat ^ 1 if st.teams else -1
    endgame = not st.pile
    ships = st.ships
    best = -1e9
    choices: list[int] = []
    for m in legal_moves(st):
        if m == DRAW:
            score: float = 0.5
        else:
            kind = m & KIND_MASK
            ship_id = m >> SHIP_SHIFT
            if not ship_id:
                if kind < N_MERCHANT_KINDS:
                    score = KIND_VALUE[kind] + (10 if endgame else 0)
                else:
                    score = _DISCARD_SCORE[kind]
            else:
                sh = ships[ship_id]
                value = sh.value
                ours = sh.owner == seat or sh.owner == partner
                if sh.played:
                    w = sh.leader_side if sh.leader_side >= 0 else sh.best_side
                    already = w == side
                else:
                    already = ours
                if already:
                    score = -5.0  # already ours: keep the card
                else:
                    swing = 0.0 if ours else _ATTACK_BONUS
                    if _LEADERS[kind]:
                        score = value - 3.5 + swing
                    elif sh.leader_side >= 0 and sh.leader_side != side:
                        score = -4.0  # pirates cannot beat a captain or the admiral
                    else:
                        strength = sh.strength
                        others = max(x for s, x in enumerate(strength) if s != side)
                        if strength[side] + KIND_STRENGTH[kind] > others:
                            score = value + (0.5 if ours else swing) - _PIRATE_COST[kind]
                        else:
                            score = -3.0 + 0.1 * value
        if score > best:
            best = score
            choices = [m]
        elif score == best:
            choices.append(m)
    return choices


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
