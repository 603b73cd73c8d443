"""The greedy bot: one-move lookahead with a few plain heuristics.

It scores every legal move from the view alone and plays the best (ties
broken by the rng):
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

import random
from typing import Any

from engine.bots.base import Bot

_STRENGTH = {"1": 1, "2": 2, "3": 3, "4": 4}
_ATTACK_BONUS = 2.0


class GreedyBot(Bot):
    name = "greedy"

    def choose(self, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        moves = view["legal_moves"]
        if not moves:
            raise ValueError("There is no legal move in this view: it is not this seat's turn.")
        seat = view["seat"]
        my_side = view["team_of"][seat] if view["teams"] else seat
        friends = {seat, view.get("partner")}
        ships = {s["id"]: s for s in view["table"]}
        endgame = view["draw_pile"] == 0
        scored = [(self._score(m, ships, my_side, friends, endgame), i)
                  for i, m in enumerate(moves)]
        best = max(s for s, _ in scored)
        choices = [i for s, i in scored if s == best]
        return dict(moves[rng.choice(choices)])

    def _score(self, move: dict[str, Any], ships: dict[int, dict[str, Any]], my_side: int,
               friends: set, endgame: bool) -> float:
        action = move["action"]
        if action == "draw":
            return 0.5
        code = move["card"]
        if action == "discard":
            # Keep captains and the admiral longest, then strong pirates.
            return -10.0 - (6 if code[1] in "CD" else _STRENGTH[code[1]])
        if code[0] == "M":
            return int(code[1:]) + (10 if endgame else 0)
        ship = ships[move["target"]]
        value = ship["value"]
        sides = {s["side"]: s for s in ship["sides"]}
        winner = ship["strongest_side"]
        ours = ship["owner"] in friends
        if winner == my_side or (winner is None and not ship["sides"] and ours):
            return -5.0  # already ours: keep the card
        leader = ship["leader"]
        mine = sides.get(my_side, {}).get("strength", 0)
        others = max((s["strength"] for side, s in sides.items() if side != my_side), default=0)
        # Taking a rival's ship also takes that gold from a rival: worth a bonus.
        swing = 0.0 if ours else _ATTACK_BONUS
        if code == "AD" or code[1] == "C":
            # A captain or the admiral takes the lead outright: spend it on big ships.
            return value - 3.5 + swing
        if leader is not None and leader["side"] != my_side:
            return -4.0  # pirates cannot beat a captain or the admiral
        new = mine + _STRENGTH[code[1]]
        if new > others:
            return value + (0.5 if ours else swing) - 0.3 * _STRENGTH[code[1]]
        return -3.0 + 0.1 * value
