"""The greedy heuristic: one-move lookahead with a few plain rules, in one place.

``greedy_choices(state)`` rates every legal move of the seat to move and keeps the best
(in legal-move order); ``GreedyBot`` plays ``rng.choice`` of them on the state rebuilt from
its view (``state_from_view``: the rating reads only what the view shows), and the search
bots' playouts (playout.py) call it on their samples: no views and no dicts in the hot loop.
- get merchant ships out of the hand (a ship in hand counts against you at
  the end, a ship on the table usually comes home), urgently once the draw
  pile is empty;
- play a pirate, captain or admiral where it makes our side strictly
  strongest, the more gold at stake the better, with the cheapest card that
  does it; defending our own ships counts like capturing, taking a rival's
  ship a little more (the rival loses it);
- never waste cards on ships we already win or cannot win with pirates;
- draw when nothing useful is left; discard the least useful card.
"""
from __future__ import annotations

from collections.abc import Sequence

import random
from typing import Any

from engine.bots.base import Bot, Observation
from engine.cards import ADMIRAL, KIND_IS_CAPTAIN, KIND_STRENGTH, KIND_VALUE, N_KINDS, \
    N_MERCHANT_KINDS
from engine.core import DRAW, KIND_MASK, SHIP_SHIFT, legal_moves
from engine.moves import decode
from engine.state import GameState
from engine.view import state_from_view
from engine.view_types import PlayerView

_ATTACK_BONUS = 2.0  # taking a rival's ship also takes that gold from a rival
_LEADERS = tuple(k == ADMIRAL or KIND_IS_CAPTAIN[k] for k in range(N_KINDS))
# Keep captains and the admiral longest, then strong pirates.
_DISCARD_SCORE = tuple(-10.0 - (6 if _LEADERS[k] else KIND_STRENGTH[k]) for k in range(N_KINDS))
_PIRATE_COST = tuple(0.3 * KIND_STRENGTH[k] for k in range(N_KINDS))


def greedy_choices(st: GameState, moves: list[int] | None = None) -> list[int]:
    """The core moves the greedy heuristic rates best for the seat to move, in legal-move order;
    among ``moves`` (some of the legal moves) if given, else among all of them."""
    seat = st.seat
    side = st.side_of[seat]
    partner = seat ^ 1 if st.teams else -1
    endgame = not st.pile
    ships = st.ships
    best = -1e9
    choices: list[int] = []
    for m in legal_moves(st) if moves is None else moves:
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
                        # A captain or the admiral takes the lead outright: spend it on big ships.
                        score = value - 3.5 + swing
                    elif sh.leader_side >= 0 and sh.leader_side != side:
                        score = -4.0  # pirates cannot beat a captain or the admiral
                    else:
                        # Here no side but possibly a tie holds the best strength alone
                        # against us (our own lead is `already`), so the strongest other
                        # side's strength is the ship's stored best (strengths only grow).
                        if sh.strength[side] + KIND_STRENGTH[kind] > sh.best_strength:
                            score = value + (0.5 if ours else swing) - _PIRATE_COST[kind]
                        else:
                            score = -3.0 + 0.1 * value
        if score > best:
            best = score
            choices = [m]
        elif score == best:
            choices.append(m)
    return choices


class GreedyBot(Bot):
    name = "greedy"

    def choose(self, view: PlayerView, rng: random.Random,
               history: Sequence[Observation] | None = None) -> dict[str, Any]:
        if not view["legal_moves"]:
            raise ValueError("There is no legal move in this view: it is not this seat's turn.")
        return decode(rng.choice(greedy_choices(state_from_view(view))))
