"""The expert bots: searches over determinizations of the hidden cards.

Both see only the view (``Sampler`` deals the unseen cards anew for every
sample) and play samples out with the greedy policy on the core state
(playout.py). The objective is the bot's side's final score margin over the best
other side, in team scores in team play, so a bot plays for its partner too; the
game's options (waiting time, end settlement) travel in the sampled states.

- ``ExpertBot`` (``expert``), determinized flat Monte Carlo (PIMC), its deals drawn by
  inference from the other seats' recent moves when it is given them (``history``:
  engine/bots/inference.py), uniformly otherwise (``FlatExpertBot``, ``expert_flat``,
  always uniformly: the baseline measurements compare with): every legal move
  is played out on the same samples (common random numbers, so moves are
  compared on equal deals); a move whose paired loss to the best is clearly
  beyond noise stops being sampled, and the search stops early once one
  move is left.
- ``IsmctsBot`` (``expert_ismcts``), single-observer Information Set MCTS (Cowling,
  Powley and Whitehouse 2012): one tree over every seat's moves, each
  iteration restricted to the moves legal in its sample, UCB1 counted over the
  iterations in which a move was available.

Budget: ``budget_ms`` of this thread's CPU time (``time.thread_time``), capped by
``wall_ms`` of wall-clock time (default ``WALL_FACTOR`` times the CPU budget), whichever
runs out first: a loaded machine gives the search less CPU a second, and the cap keeps the
wait a player sees bounded. Or ``iterations`` playouts (no clock at all unless ``wall_ms``
is given), which makes the choice a function of the view and the rng alone: only that
budget is deterministic; with a time budget the number of playouts, hence sometimes the
move, depends on the machine. A move with one legal option is returned at once.
"""
from __future__ import annotations

import math
import random
import time
from typing import Any

from collections.abc import Sequence

from engine.bots.base import Bot, Observation
from engine.bots.inference import InferenceSampler
from engine.bots.greedy import greedy_choices
from engine.bots.playout import margin, play_out
from engine.view import Sampler
from engine.view_types import PlayerView
from engine.core import legal_moves, side_scores, step
from engine.moves import encode
from engine.state import GameState

# CPU ms a move. Against three greedy bots (python -m engine duel, 320 games a figure, each
# +-0.05 at 95%) the expert wins 0.605 at 100 ms and 0.683 at 150 (seeds 101000, 103000); the
# model before it won 0.595 to 0.645 at 100 over three seeds, 0.633 at 150 and 0.635 at 250.
# So 150: more buys little, and it leaves room for slower machines (the expert of 2026-12-01
# needed 450 ms for 0.653).
DEFAULT_BUDGET_MS = 150.0
WALL_FACTOR = 2.0  # a time budget's wall-clock cap: this many times its CPU milliseconds
_MIN_SAMPLES = 6  # samples every move gets before it may be dropped
_PRUNE_Z = 2.5  # a move is dropped when its paired loss exceeds this many standard errors
_UCB_C = 0.7  # exploration constant, rewards in units of _REWARD_SCALE gold
_REWARD_SCALE = 20.0


class _Budget:
    """Playouts, or CPU milliseconds and wall-clock milliseconds, left to this search."""

    def __init__(self, budget_ms: float | None, iterations: int | None,
                 wall_ms: float | None = None) -> None:
        self.iterations = iterations
        self.deadline: float | None = None
        if iterations is None and budget_ms is not None:
            self.deadline = time.thread_time() + budget_ms / 1000.0
            if wall_ms is None:
                wall_ms = WALL_FACTOR * budget_ms
        self.wall_deadline = time.perf_counter() + wall_ms / 1000.0 if wall_ms is not None else None
        self.used = 0

    def spend(self) -> bool:
        """Count one playout; False once the budget is used up (the first limit reached)."""
        self.used += 1
        if self.wall_deadline is not None and time.perf_counter() >= self.wall_deadline:
            return False
        if self.iterations is not None:
            return self.used < self.iterations
        return self.deadline is None or time.thread_time() < self.deadline


class _SearchBot(Bot):
    def __init__(self, budget_ms: float | None = DEFAULT_BUDGET_MS,
                 iterations: int | None = None, wall_ms: float | None = None) -> None:
        if iterations is None and budget_ms is None:
            raise ValueError("A search bot needs a budget: milliseconds or iterations.")
        self.budget_ms = budget_ms
        self.iterations = iterations
        self.wall_ms = wall_ms  # None: WALL_FACTOR x budget_ms for a time budget, none for iterations
        self.last_playouts = 0  # playouts the last choice used (for benchmarks)

    infer = False  # deal the hidden cards by what the others did (InferenceSampler)

    def choose(self, view: PlayerView, rng: random.Random,
               history: Sequence[Observation] | None = None) -> dict[str, Any]:
        moves = view["legal_moves"]
        if not moves:
            raise ValueError("There is no legal move in this view: it is not this seat's turn.")
        self.last_playouts = 0
        if len(moves) == 1:
            return dict(moves[0])  # nothing to think about
        budget = _Budget(self.budget_ms, self.iterations, self.wall_ms)
        seat = view["seat"]
        team_of = view["team_of"]  # a list in team play only
        side = team_of[seat] if team_of is not None else seat
        sampler = InferenceSampler(view, history) if self.infer and history else Sampler(view)
        best = self._search(sampler, [encode(m) for m in moves], side, rng, budget)
        self.last_playouts = budget.used
        return dict(moves[best])

    def _search(self, sampler: Sampler | InferenceSampler, moves: list[int], side: int,
                rng: random.Random, budget: _Budget) -> int:
        raise NotImplementedError


class ExpertBot(_SearchBot):
    """Determinized flat Monte Carlo with greedy playouts and paired pruning, the hidden cards
    dealt by inference from the others' moves when it is given them (``history``)."""

    name = "expert"
    infer = True
    min_samples = _MIN_SAMPLES  # benchmarks/bot_pruning_bench.py measures other settings
    prune_z = _PRUNE_Z

    def _search(self, sampler: Sampler | InferenceSampler, moves: list[int], side: int,
                rng: random.Random, budget: _Budget) -> int:
        stats = _PairedStats(len(moves))
        active = list(range(len(moves)))
        going = True
        while going and len(active) > 1:
            deal = sampler.sample(rng)
            seed = rng.getrandbits(32)
            for i in active:
                st = deal.clone()
                step(st, moves[i])
                play_out(st, random.Random(seed))  # the same tie-breaks for every move
                stats.add(i, margin(st, side))
                if not budget.spend():
                    going = False
                    break
            if going:
                stats.close_round(active)
                if stats.rounds >= self.min_samples:
                    active = stats.survivors(active, self.prune_z)
        if not stats.rounds:  # the clock ran out in the first round: no fair comparison yet
            return moves.index(greedy_choices(sampler.deal(sampler.unseen))[0])
        return stats.best(active)


class FlatExpertBot(ExpertBot):
    """The expert as it was: the hidden cards dealt uniformly (the baseline of measurements)."""

    name = "expert_flat"
    infer = False


class _PairedStats:
    """The search's statistics, kept as it goes (no pass over the samples): per move the sum and
    count of its margins, and over the complete rounds (every active move played out on the
    same deal) the sums of squares and of cross products, so the paired difference of any two
    active moves has its mean and variance at once. Margins are whole gold, so the sums are
    exact and the test reads what a pass over the paired differences would."""

    def __init__(self, n: int) -> None:
        self.total = [0.0] * n
        self.count = [0] * n
        self.squares = [0.0] * n
        self.cross = [[0.0] * n for _ in range(n)]
        self.last = [0.0] * n  # each move's margin in the round being played
        self.rounds = 0

    def add(self, i: int, value: float) -> None:
        self.total[i] += value
        self.count[i] += 1
        self.last[i] = value

    def close_round(self, active: list[int]) -> None:
        """Every active move has played this round's deal: fold it into the paired sums."""
        self.rounds += 1
        last, squares, cross = self.last, self.squares, self.cross
        for i in active:
            x = last[i]
            squares[i] += x * x
            row = cross[i]
            for j in active:
                row[j] += x * last[j]

    def mean(self, i: int) -> float:
        return self.total[i] / self.count[i] if self.count[i] else -math.inf

    def best(self, active: list[int]) -> int:
        return max(active, key=lambda i: (self.mean(i), -i))

    def survivors(self, active: list[int], z: float = _PRUNE_Z) -> list[int]:
        """The moves not clearly worse than the best: paired differences on shared samples."""
        lead = self.best(active)
        n = self.rounds
        keep = []
        for i in active:
            if i != lead:
                mu = (self.total[lead] - self.total[i]) / n
                sq = self.squares[lead] + self.squares[i] - 2.0 * self.cross[lead][i]
                var = max(0.0, sq - n * mu * mu) / (n - 1)
                if mu > z * math.sqrt(var / n) + 1e-9:
                    continue
            keep.append(i)
        return keep


class _Node:
    __slots__ = ("children", "visits", "total", "avail", "side")

    def __init__(self, side: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.total = 0.0  # reward of the side that made the move into this node
        self.avail = 0
        self.side = side


class IsmctsBot(_SearchBot):
    """Single-observer ISMCTS with greedy playouts."""

    name = "expert_ismcts"

    def _search(self, sampler: Sampler | InferenceSampler, moves: list[int], side: int,
                rng: random.Random, budget: _Budget) -> int:
        root = _Node(-1)
        going = True
        while going:
            st = sampler.sample(rng)
            path = [root]
            node = root
            while not st.finished:
                legal = moves if node is root else legal_moves(st)
                untried = [m for m in legal if m not in node.children]
                mover = st.side_of[st.seat]
                if untried:
                    m = untried[int(rng.random() * len(untried))]
                    for c in legal:
                        if c in node.children:
                            node.children[c].avail += 1
                    child = node.children[m] = _Node(mover)
                    child.avail = 1
                    step(st, m)
                    path.append(child)
                    break
                m = _ucb(node, legal)
                node = node.children[m]
                step(st, m)
                path.append(node)
            play_out(st, rng)
            rewards = _side_rewards(st)
            for n in path[1:]:
                n.visits += 1
                n.total += rewards[n.side]
            going = budget.spend()
        return max(range(len(moves)),
                   key=lambda i: (root.children[moves[i]].visits
                                  if moves[i] in root.children else -1, -i))


def _ucb(node: _Node, legal: list[int]) -> int:
    best, best_m = -math.inf, legal[0]
    children = node.children
    for m in legal:
        c = children[m]
        c.avail += 1
        u = c.total / c.visits + _UCB_C * math.sqrt(math.log(c.avail) / c.visits)
        if u > best:
            best, best_m = u, m
    return best_m


def _side_rewards(st: GameState) -> list[float]:
    """Per side: its margin over the best other side, scaled for UCB1."""
    scores = side_scores(st)
    out = []
    for s, v in enumerate(scores):
        out.append((v - max(x for t, x in enumerate(scores) if t != s)) / _REWARD_SCALE)
    return out
