"""Inference: the hidden cards dealt in proportion to how well they explain what the others did.

A uniform deal (``Sampler``) treats every hand the view allows as equally likely. But a seat
that drew while it could have put a merchant ship on the table probably holds none, and one that
let a rich ship go probably lacks the pirates to take it. ``InferenceSampler(view, history)``
weighs each deal by the likelihood of the other sides' recent moves under a model of their play,
and deals by Markov chain Monte Carlo: a chain over the hidden hands of the seats whose moves it
reads, started by sampling-importance-resampling seat by seat (``CANDIDATES`` uniform hands, one
kept by its likelihood), then moved by Metropolis swaps of two cards (``STEPS`` between two
deals, ``BURN_IN`` before the first), so that its deals come in proportion to the likelihood;
the other hands and the draw pile are dealt at random from the cards left.

The model (``MODEL``) is a mixture of kinds of player, each with its prior share: the greedy
policy softened by an epsilon (the move greedy rates best with probability 1 - epsilon, shared
among its ties, and any legal move with probability epsilon). By default a seat is, as likely
as not, one that plays like the greedy bot (epsilon 0.02) or one that plays any legal move
(epsilon 1); its moves weigh the two, per hand. So the chain reads a greedy player sharply, and
a player whose moves greedy would seldom make (one that searches) about as well as uniform
dealing does, never much worse. With epsilon 1 alone (a model that reads nothing into the
moves) it deals uniformly.

The likelihood of a deal reads each hidden seat's last ``WINDOW`` moves, walking back from its
hand in the deal: before a card it played, the hand held that card too; before a draw, the hand
lacked the card drawn (one of the hand's cards, chosen at random: the draw itself is secret).
Each move is rated on the position as the observing seat saw it then (``Observation``: its view
just before the move), with the mover's hand as reconstructed (``_Rated``: once per move, for
every hand at once).

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

# (prior share, epsilon) of each kind of player a seat may be. The hidden cards' log-likelihood
# over uniform dealing (python -m benchmarks.bot_inference_bench, seed 97000, and seed 98000 with
# --players-bot expert_flat): +2.57 in games of greedy bots and -0.02 in games of expert_flat
# bots; the model of 2026-12-05 (--model 1:0.25 --window 6 --steps 6) +2.13 and -1.83. Epsilon
# 0.02 alone reads greedy bots a little better and searching ones far worse (+3.07 and -4.14,
# seeds 95000 and 94000).
Model = tuple[tuple[float, float], ...]
MODEL: Model = ((0.5, 0.02), (0.5, 1.0))
CANDIDATES = 8  # uniform hands weighed for each seat's first hand in the chain
WINDOW = 10  # moves of each hidden seat read back from now (30: a draw's noisy estimate sticks)
# Swaps the chain tries between two deals: 6, 10 and 15 read greedy bots +2.30, +2.60 and +2.89
# (seed 95000); 15 makes a deal cost about 0.3 ms.
STEPS = 15
BURN_IN = 40  # swaps it tries before its first deal


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
    """One observed move, rated once for every hand the mover might have held: the position as
    the observer saw it, the mover and its move. Which moves a hand may make, and how the greedy
    policy rates each, depend on the hand only through the kinds it holds (a kind's moves are
    its own; the rating reads the table, never the hand), so the position is rated once with
    every kind in hand: per kind (the draw as a kind any hand holds while the pile lasts) its
    number of legal moves, the greedy rank of its best moves (0: best) and how many tie there.
    A hand's chance of the move is then a sum over the kinds it holds (``chances``), and under
    each kind of player of the model (its ``eps``) it is remembered by those kinds."""

    __slots__ = ("eps", "zeros", "move", "card", "groups", "relevant", "best_rank", "in_best",
                 "memo")

    def __init__(self, obs: Observation, eps: Sequence[float] = ()) -> None:
        self.eps = tuple(eps)
        self.zeros = (0.0,) * len(self.eps)
        self.move = obs.move
        self.card = -1 if obs.move == DRAW else obs.move & KIND_MASK  # the card it showed
        st = Sampler(obs.view).template.clone()
        st.pile = [0] * obs.view["draw_pile"]  # its size is what legality and rating read
        seat = st.seat = obs.seat
        st.hands[seat] = [1] * N_KINDS
        st.hand_size[seat] = N_KINDS
        st.kinds_mask[seat] = (1 << N_KINDS) - 1
        by_kind: dict[int, list[int]] = {}
        for m in legal_moves(st):
            by_kind.setdefault(-1 if m == DRAW else m & KIND_MASK, []).append(m)
        best = {k: greedy_choices(st, moves) for k, moves in by_kind.items()}
        rank: dict[int, int] = {}
        left = {best[k][0]: k for k in by_kind}  # each kind's best move stands for the kind
        while left:
            level = len(set(rank.values()))
            for m in greedy_choices(st, list(left)):
                rank[left.pop(m)] = level
        # Per kind: (its bit in a hand's kinds mask, 0 for the draw, which every hand may make
        # while the pile lasts; its legal moves; the rank of its best; the moves tied there),
        # best ranks first.
        self.groups = sorted(((0 if k < 0 else 1 << k, len(by_kind[k]), rank[k], len(best[k]))
                              for k in by_kind), key=lambda g: g[2])
        self.relevant = sum(bit for bit, *_ in self.groups)
        self.best_rank = rank.get(self.card, -1)
        self.in_best = self.card in best and obs.move in best[self.card]
        self.memo: dict[int, tuple[float, ...]] = {}  # relevant kinds -> probabilities

    def chances(self, mask: int) -> tuple[int, float]:
        """For a hand with the kinds of ``mask``: its number of legal moves, and the chance that
        the greedy policy plays this move (one of its best at random; 0 if this move is not
        among them)."""
        legal = ties = 0
        top = -1
        for bit, count, rank, tied in self.groups:
            if bit and not mask & bit:
                continue
            legal += count
            if top < 0:
                top = rank
            if rank == top:
                ties += tied
        return legal, 1.0 / ties if legal and self.in_best and self.best_rank == top else 0.0

    def probability(self, mask: int, eps: float) -> float:
        """P(this move | the mover held the kinds of ``mask``) under the greedy policy softened
        by ``eps``: any of the hand's legal moves with chance ``eps``, else greedy's."""
        if self.card >= 0 and not mask >> self.card & 1:
            return 0.0
        legal, greedy = self.chances(mask)
        return eps / legal + (1.0 - eps) * greedy if legal else 0.0

    def probabilities(self, mask: int) -> tuple[float, ...]:
        """``probability`` for each of ``eps``, for a hand that holds the card played (if any):
        hands differ only by their kinds with moves here, so it is remembered by those."""
        key = mask & self.relevant
        ps = self.memo.get(key)
        if ps is None:
            legal, greedy = self.chances(key)
            ps = tuple(e / legal + (1.0 - e) * greedy for e in self.eps) if legal else self.zeros
            self.memo[key] = ps
        return ps


class InferenceSampler:
    """Deals like ``Sampler`` (same ``sample(rng)``), each deal weighed by the other seats'
    moves in ``history`` (see the module's docstring) under ``model``."""

    def __init__(self, view: PlayerView, history: Sequence[Observation] | None,
                 model: Model = MODEL, candidates: int = CANDIDATES,
                 window: int = WINDOW, steps: int = STEPS, burn_in: int = BURN_IN) -> None:
        self.base = Sampler(view)
        self.template = self.base.template
        self.unseen = self.base.unseen
        self.log_shares = [math.log(share) if share > 0.0 else -math.inf for share, _ in model]
        self.candidates = candidates
        # Per hidden seat, its observed moves newest first (the walk back from its hand now).
        by_seat: dict[int, list[_Rated]] = {}
        if history and any(eps < 1.0 for _, eps in model):
            eps = [e for _, e in model]
            for obs in reversed(history):
                if obs.seat in self.base.hidden_seats and len(by_seat.get(obs.seat, [])) < window:
                    by_seat.setdefault(obs.seat, []).append(_Rated(obs, eps))
        self.walks = [(s, walk) for s, walk in by_seat.items() if walk]
        # Per hidden seat in deal order (``Sampler.deal``): its hand size and the index of its
        # hand in the chain (None for a seat with no move to read: dealt uniformly from the rest).
        walked = [s for s, _ in self.walks]
        self.slots = [(size, walked.index(s) if s in walked else None)
                      for s, size in zip(self.base.hidden_seats, self.base.hidden_sizes)]
        self.hands: list[list[int]] = []  # the chain: each walked seat's hand, as cards
        self.log_likelihoods: list[float] = []  # and the log-likelihood of its moves
        self.rest: list[int] = []  # the other unseen cards (other hands and the draw pile)
        self.steps = steps
        self.burn_in = burn_in

    def deal(self, cards: list[int]) -> GameState:
        return self.base.deal(cards)

    def sample(self, rng: random.Random) -> GameState:
        """A deal drawn by the likelihood of the seats' moves: the chain's hands after ``steps``
        more swaps (``burn_in`` at first), the other hands and the draw pile dealt at random
        from the cards left."""
        if not self.walks:
            return self.base.sample(rng)
        if not self.hands:
            self._start(rng)
            steps = self.burn_in
        else:
            steps = self.steps
        for _ in range(steps):
            self._swap(rng)
        rest = self.rest[:]
        rng.shuffle(rest)
        cards: list[int] = []
        at = 0
        for size, chained in self.slots:
            if chained is None:
                cards += rest[at:at + size]
                at += size
            else:
                cards += self.hands[chained]
        return self.base.deal(cards + rest[at:])

    def _start(self, rng: random.Random) -> None:
        """The chain's first state: each walked seat's hand kept among ``candidates`` uniform
        ones by its likelihood, seat after seat (the likelihood is a product over seats)."""
        left = self.unseen[:]
        size_of = dict(zip(self.base.hidden_seats, self.base.hidden_sizes))
        for seat, walk in self.walks:
            size = size_of[seat]
            picks = self._weighed_hand(left, size, walk, rng)
            hand = [left[i] for i in picks]
            taken = set(picks)
            left = [k for i, k in enumerate(left) if i not in taken]
            self.hands.append(hand)
            self.log_likelihoods.append(_walk_log_likelihood(walk, *_hand_of(hand), self.log_shares, rng))
        self.rest = left

    def _swap(self, rng: random.Random) -> None:
        """One Metropolis step: a card of a walked hand (the hand, then the card, at random)
        swapped with any card outside that hand (in another walked hand or the rest), kept with
        probability min(1, likelihood ratio). The proposal is symmetric and uniform
        dealing gives every deal the same weight, so the chain's deals come in proportion to
        the likelihood (Metropolis-Hastings; the draws' estimated likelihood is kept with the
        state, as pseudo-marginal MCMC requires)."""
        hands, lls = self.hands, self.log_likelihoods
        a = int(rng.random() * len(hands))
        mine = hands[a]
        if not mine:
            return
        i = int(rng.random() * len(mine))
        j = int(rng.random() * (len(self.unseen) - len(mine)))
        b = None
        for other in range(len(hands)):
            if other != a:
                if j < len(hands[other]):
                    b = other
                    break
                j -= len(hands[other])
        theirs = self.rest if b is None else hands[b]
        if mine[i] == theirs[j]:
            return
        walk_a = self.walks[a][1]
        new_mine = mine[:]
        new_theirs = theirs[:]
        new_mine[i], new_theirs[j] = theirs[j], mine[i]
        new_a = _walk_log_likelihood(walk_a, *_hand_of(new_mine), self.log_shares, rng)
        if new_a == -math.inf:
            return
        new_b = 0.0 if b is None else _walk_log_likelihood(self.walks[b][1],
                                                           *_hand_of(new_theirs), self.log_shares, rng)
        gain = new_a + new_b - lls[a] - (0.0 if b is None else lls[b])
        if gain >= 0.0 or rng.random() < math.exp(gain):
            hands[a], lls[a] = new_mine, new_a
            if b is None:
                self.rest = new_theirs
            else:
                hands[b], lls[b] = new_theirs, new_b

    def _weighed_hand(self, pool: list[int], size: int, walk: list[_Rated],
                      rng: random.Random) -> list[int]:
        """Indices in ``pool`` of a hand of ``size`` cards, kept among ``candidates`` uniform
        ones in proportion to its likelihood (Gumbel-max); if every one is impossible (a strict
        model, epsilon 0), more are drawn, then a uniform one is kept."""
        every = range(len(pool))
        for tries in (self.candidates, 50 * self.candidates):
            best, best_key = None, -math.inf
            for _ in range(tries):
                picks = rng.sample(every, size)
                logw = _walk_log_likelihood(walk, *_hand_of([pool[i] for i in picks]),
                                            self.log_shares, rng)
                if logw == -math.inf:
                    continue
                key = logw - math.log(-math.log(rng.random() or 1e-300))  # by weight
                if key > best_key:
                    best, best_key = picks, key
                    if tries > self.candidates:
                        return best
            if best is not None:
                return best
        return rng.sample(every, size)

    def log_likelihood(self, deal: GameState, rng: random.Random) -> float:
        """log P(the observed moves | the hidden hands of ``deal``) under the model (see
        ``_walk_log_likelihood``)."""
        total = 0.0
        for seat, walk in self.walks:
            total += _walk_log_likelihood(walk, deal.hands[seat][:], deal.kinds_mask[seat],
                                          deal.hand_size[seat], self.log_shares, rng)
        return total


def _hand_of(cards: list[int]) -> tuple[list[int], int, int]:
    """A hand's counts per kind, its kinds mask and its size."""
    hand = [0] * N_KINDS
    mask = 0
    for kind in cards:
        hand[kind] += 1
        mask |= 1 << kind
    return hand, mask, len(cards)


def _walk_log_likelihood(walk: list[_Rated], hand: list[int], mask: int, size: int,
                         log_shares: Sequence[float], rng: random.Random) -> float:
    """log P(a seat's observed moves, ``walk`` newest first | its hand now: ``hand``, the kinds
    in ``mask``, ``size`` cards; walked back in place) under a mixture of kinds of player, the
    log of each one's prior share in ``log_shares`` and its epsilon in the walk's ratings: the log
    of the sum of share x likelihood. Which card each secret draw brought is drawn, for that draw,
    in proportion to its mean share of the draw's chance over the kinds of player still possible
    (each card of the hand by its count, times the chance of the draw without it), and each
    kind's likelihood is divided by that proposal's chance (importance sampling): an unbiased
    estimate for every kind, exact for a single kind and one draw in the window."""
    logs = list(log_shares)
    alive = [c for c, v in enumerate(logs) if v > -math.inf]
    for r in walk:
        if r.card >= 0:  # before it played the card, the hand held it
            hand[r.card] += 1
            mask |= 1 << r.card
            size += 1
            ps = r.probabilities(mask)
            for c in alive[:]:
                if ps[c] > 0.0:
                    logs[c] += math.log(ps[c])
                else:
                    alive.remove(c)
        else:  # before the draw, the hand lacked the card drawn
            if size == 0:
                return -math.inf
            options = []  # (kind, its count, the draw's chances had the hand lacked one)
            mass = [0.0] * len(logs)
            left = mask
            while left:
                low = left & -left
                left ^= low
                k = low.bit_length() - 1
                n = hand[k]
                ps = r.probabilities(mask ^ low if n == 1 else mask)
                options.append((k, n, ps))
                for c in alive:
                    mass[c] += n * ps[c]
            alive = [c for c in alive if mass[c] > 0.0]
            if not alive:
                return -math.inf
            # A card's chance under the proposal: the mean over the kinds of player of its
            # share of their mass (so the shares sum to 1 over the cards).
            inverse = [1.0 / mass[c] / len(alive) if mass[c] else 0.0 for c in range(len(mass))]
            pick = rng.random()
            for option in options:
                _, n, ps = option
                q = 0.0
                for c in alive:
                    q += ps[c] * inverse[c]
                q *= n
                pick -= q
                if pick < 0.0:
                    break
            k = option[0]
            size -= 1
            for c in alive[:]:
                if ps[c] > 0.0:
                    logs[c] += math.log(n * ps[c] / (q * (size + 1)))
                else:
                    alive.remove(c)
            hand[k] -= 1
            if not hand[k]:
                mask ^= 1 << k
        if not alive:
            return -math.inf
    top = max(logs[c] for c in alive)
    return top + math.log(sum(math.exp(logs[c] - top) for c in alive))
