"""Inference: the hidden cards dealt in proportion to how well they explain what the others did.

A uniform deal (``Sampler``) treats every hand the view allows as equally likely. But a seat
that drew while it could have put a merchant ship on the table probably holds none, and one that
let a rich ship go probably lacks the pirates to take it. ``InferenceSampler(view, history)``
weighs each deal by the likelihood of the other sides' recent moves under a model of their play,
the greedy policy softened (``MODEL_EPSILON``: the move greedy rates best with probability
1 - epsilon, shared among its ties, and any legal move with probability epsilon), and deals by
sampling-importance-resampling: ``CANDIDATES`` uniform deals, one kept in proportion to its
weight. With epsilon = 1 (a model that reads nothing into the moves) it deals uniformly.

The likelihood of a deal reads each hidden seat's last ``WINDOW`` moves, walking back from its
hand in the deal: before a card it played, the hand held that card too; before a draw, the hand
lacked the card drawn (one of the hand's cards, chosen at random: the draw itself is secret).
Each move is rated on the position as the observing seat saw it then (``Observation``: its view
just before the move), with the mover's hand as reconstructed.

``observations(state, seat)`` builds that history from a game's state (its deck and moves):
only the views ``seat`` had and the moves everyone saw, so nothing hidden from ``seat`` is in it.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence

from engine import core, rules
from engine.bots.base import Observation
from engine.bots.greedy import greedy_choices
from engine.core import DRAW, KIND_MASK, legal_moves
from engine.cards import N_KINDS
from engine.state import GameState
from engine.view import Sampler, player_view
from engine.view_types import PlayerView

MODEL_EPSILON = 0.25  # the chance the model gives any legal move (people are not greedy bots)
CANDIDATES = 8  # uniform deals weighed for each deal kept
WINDOW = 6  # moves of each hidden seat read back from now


def observations(state: GameState, seat: int, window: int = WINDOW) -> list[Observation]:
    """The last ``window`` moves of every seat ``seat`` cannot see into (other sides), oldest
    first, each with ``seat``'s view before it: the game replayed from its deck."""
    partner = seat ^ 1 if state.teams else -1
    st = rules.new_game(list(state.players), teams=state.teams, options=state.options,
                        deck=list(state.deck))
    n, first = st.n_seats, st.seat
    left = {s: window for s in range(n) if s not in (seat, partner)}
    wanted: set[int] = set()
    for i in range(len(state.history) - 1, -1, -1):
        mover = (first + i) % n  # every move passes the turn to the next seat (core.step)
        if left.get(mover):
            left[mover] -= 1
            wanted.add(i)
    out = []
    for i, move in enumerate(state.history):
        if i in wanted:
            out.append(Observation(player_view(st, seat), st.seat, move))
        core.step(st, move)
    return out


class _Rated:
    """One observed move, ready to be rated against a reconstructed hand: the position as the
    observer saw it (hidden hands empty), the mover and its move."""

    __slots__ = ("state", "seat", "move", "card", "size")

    def __init__(self, obs: Observation) -> None:
        self.state = Sampler(obs.view).template.clone()
        self.state.pile = [0] * obs.view["draw_pile"]  # its size is what the rating reads
        self.seat = obs.seat
        self.move = obs.move
        self.card = -1 if obs.move == DRAW else obs.move & KIND_MASK  # the card it showed
        self.size = obs.view["hand_sizes"][obs.seat]


class InferenceSampler:
    """Deals like ``Sampler`` (same ``sample(rng)``), each deal weighed by the other seats'
    moves in ``history`` (see the module's docstring); ``epsilon`` is the model's softness."""

    def __init__(self, view: PlayerView, history: Sequence[Observation] | None,
                 epsilon: float = MODEL_EPSILON, candidates: int = CANDIDATES,
                 window: int = WINDOW) -> None:
        self.base = Sampler(view)
        self.template = self.base.template
        self.unseen = self.base.unseen
        self.epsilon = epsilon
        self.candidates = candidates
        # Per hidden seat, its observed moves newest first (the walk back from its hand now).
        by_seat: dict[int, list[_Rated]] = {}
        if history and epsilon < 1.0:
            for obs in reversed(history):
                if obs.seat in self.base.hidden_seats and len(by_seat.get(obs.seat, [])) < window:
                    by_seat.setdefault(obs.seat, []).append(_Rated(obs))
        self.walks = [(s, walk) for s, walk in by_seat.items() if walk]

    def deal(self, cards: list[int]) -> GameState:
        return self.base.deal(cards)

    def sample(self, rng: random.Random) -> GameState:
        """A deal drawn in proportion to its likelihood (sampling-importance-resampling)."""
        if not self.walks:
            return self.base.sample(rng)
        best, best_key = None, -math.inf
        for _ in range(self.candidates):
            deal = self.base.sample(rng)
            logw = self.log_likelihood(deal, rng)
            if logw == -math.inf:
                continue
            key = logw - math.log(-math.log(rng.random() or 1e-300))  # Gumbel-max: by weight
            if key > best_key:
                best, best_key = deal, key
        return best if best is not None else self._any_possible(rng)

    def _any_possible(self, rng: random.Random) -> GameState:
        """Every candidate impossible under the model (epsilon 0): look further, then give up."""
        for _ in range(50 * self.candidates):
            deal = self.base.sample(rng)
            if self.log_likelihood(deal, rng) > -math.inf:
                return deal
        return self.base.sample(rng)

    def log_likelihood(self, deal: GameState, rng: random.Random) -> float:
        """log P(the observed moves | the hidden hands of ``deal``) under the model. Which card
        each secret draw brought is summed over for that draw (each card of the hand, by its
        count, times the chance of the draw without it) and one is kept in proportion to its
        share: an unbiased estimate, exact for a seat whose window holds one draw."""
        eps = self.epsilon
        prob = self._move_probability
        total = 0.0
        for seat, walk in self.walks:
            hand = deal.hands[seat][:]
            size = deal.hand_size[seat]
            for r in walk:
                if r.card >= 0:  # before it played the card, the hand held it
                    hand[r.card] += 1
                    size += 1
                    p = prob(r, hand, size, eps)
                else:  # before the draw, the hand lacked the card drawn
                    if size == 0:
                        return -math.inf
                    shares = []
                    for k in range(N_KINDS):
                        if hand[k]:
                            hand[k] -= 1
                            shares.append((k, (hand[k] + 1) * prob(r, hand, size - 1, eps)))
                            hand[k] += 1
                    mass = sum(w for _, w in shares)
                    if mass <= 0.0:
                        return -math.inf
                    pick = rng.random() * mass
                    chosen = shares[-1][0]
                    for k, w in shares:
                        pick -= w
                        if pick < 0:
                            chosen = k
                            break
                    hand[chosen] -= 1
                    size -= 1
                    p = mass / (size + 1)
                if p <= 0.0:
                    return -math.inf
                total += math.log(p)
        return total

    @staticmethod
    def _move_probability(r: _Rated, hand: list[int], size: int, eps: float) -> float:
        st = r.state
        seat = r.seat
        st.hands[seat] = hand
        st.hand_size[seat] = size
        mask = 0
        for k in range(N_KINDS):
            if hand[k]:
                mask |= 1 << k
        st.kinds_mask[seat] = mask
        st.seat = seat
        legal = legal_moves(st)
        if r.move not in legal:
            return 0.0
        best = greedy_choices(st, legal)
        p = eps / len(legal)
        if r.move in best:
            p += (1.0 - eps) / len(best)
        return p
