"""Speed and strength measurements: random self-play and duels of bots."""
from __future__ import annotations

import math
import multiprocessing
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from engine import core, rules
from engine.bots import get_bot
from engine.bots.inference import observations
from engine.bots.playout import play_out
from engine.view import Sampler, player_view

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")


@dataclass(frozen=True)
class BenchResult:
    games: int
    actions: int
    seconds: float  # wall clock
    cpu_seconds: float  # this process only: what one core did, whatever else runs

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    @property
    def games_per_cpu_second(self) -> float:
        return self.games / self.cpu_seconds if self.cpu_seconds else float("inf")


def random_games(players: int, games: int, seed: int = 0, teams: bool = False) -> BenchResult:
    """Play ``games`` full random games as a random bot would: per turn, the legal
    moves from the rules core and ``rng.choice`` of them. Game i uses seed+i."""
    names = list(NAMES[:players])
    actions = 0
    legal_moves, step = core.legal_moves, core.step
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(games):
        st = rules.new_game(names, teams=teams, seed=seed + i)
        choice = random.Random(seed + i).choice
        while not st.finished:
            step(st, choice(legal_moves(st)))
        actions += st.version
    return BenchResult(games, actions, time.perf_counter() - start,
                       time.process_time() - cpu_start)


# One duel game: (win share, sole win, score margin, think ms of each bot move, think ms of
# each bot move that had more than one legal move: a real decision).
Outcome = tuple[float, bool, float, list[float], list[float]]


@dataclass(frozen=True)
class DuelResult:
    games: int
    wins: float  # the bot's side's wins, a shared win counted as a share
    sole_wins: int
    score_margin: float  # mean of (bot side's score - mean of the other sides' scores)
    think_ms: tuple[float, ...] = ()  # CPU milliseconds of each of the bot's moves
    sides: int = 0  # sides in a game (a fair win share is 1 / sides)
    decision_ms: tuple[float, ...] = ()  # the think times of the moves with a choice to make

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def win_rate_interval(self, z: float = 1.96) -> tuple[float, float]:
        """A 95% interval (Wilson's) around the win share, shared wins counted as shares."""
        n = self.games
        if not n:
            return 0.0, 1.0
        p = self.win_rate
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, centre - half), min(1.0, centre + half)

    def think_percentile(self, q: float, decisions: bool = False) -> float:
        """The q-th percentile (0..100, nearest rank) of the bot's think times (``decisions``:
        of the moves with more than one legal move only)."""
        times = self.decision_ms if decisions else self.think_ms
        if not times:
            return 0.0
        ordered = sorted(times)
        return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


@dataclass(frozen=True)
class _DuelSpec:
    players: int
    bot: str
    against: str
    seed: int
    teams: bool
    budget_ms: float | None
    iterations: int | None
    wall_ms: float | None = math.inf  # no wall-clock cap: a shared machine's load changes nothing


def _duel_game(spec: _DuelSpec, i: int) -> Outcome:
    """Game i: (win share, sole win, score margin, think ms of each bot move)."""
    hero = get_bot(spec.bot, budget_ms=spec.budget_ms, iterations=spec.iterations,
                   wall_ms=spec.wall_ms)
    other = get_bot(spec.against, budget_ms=spec.budget_ms, iterations=spec.iterations,
                    wall_ms=spec.wall_ms)
    names = list(NAMES[:spec.players])
    sides = spec.players // 2 if spec.teams else spec.players
    hero_side = i % sides
    st = rules.new_game(names, teams=spec.teams, seed=spec.seed + i)
    side_of = st.side_of
    rng = random.Random(spec.seed + i)
    think: list[float] = []
    decisions: list[float] = []
    while not st.finished:
        seat = st.seat
        mine = side_of[seat] == hero_side
        player = hero if mine else other
        view = player_view(st, seat)
        t0 = time.thread_time()
        # A bot that reads the others' moves gets them as its seat saw them (a replay).
        history = observations(st, seat) if getattr(player, "infer", False) else None
        move = player.choose(view, rng, history)
        if mine:
            think.append((time.thread_time() - t0) * 1000.0)
            if len(view["legal_moves"]) > 1:
                decisions.append(think[-1])
        st, _ = rules.apply_move(st, seat, move)
    won = rules.winners(st)
    sc = core.side_scores(st)
    margin = sc[hero_side] - (sum(sc) - sc[hero_side]) / (sides - 1)
    share = 1.0 / len(won) if hero_side in won else 0.0
    return share, won == [hero_side], margin, think, decisions


def _duel_one(args: tuple[_DuelSpec, int]) -> Outcome:
    return _duel_game(*args)


def duel(games: int, players: int = 4, bot: str = "greedy", against: str = "random",
         seed: int = 0, *, teams: bool = False, budget_ms: float | None = None,
         iterations: int | None = None, jobs: int = 1, wall_ms: float | None = math.inf,
         progress: Callable[[int, list[Outcome]], None] | None
         = None) -> DuelResult:
    """The ``bot`` side against ``against`` sides, the bot's side rotating (game i: side
    i % sides; in team play a pair of bots against pairs). Bots only ever see their
    player_view. ``budget_ms``/``iterations`` set search bots' budgets (``wall_ms``: their
    wall-clock cap, none by default, so that a loaded machine measures the same bots; None: the
    bots' own cap, as in the service); ``jobs`` > 1 plays
    the games in that many processes (same games, same results for an iteration budget);
    ``progress(done, outcomes)`` is called after every game."""
    rules.check_config(players, teams, rules.DEFAULT_OPTIONS)
    spec = _DuelSpec(players, bot, against, seed, teams, budget_ms, iterations, wall_ms)
    tasks = [(spec, i) for i in range(games)]
    outcomes: list[Outcome] = []
    if jobs > 1:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            for o in pool.imap(_duel_one, tasks):  # in game order: the same sums as one job
                outcomes.append(o)
                if progress:
                    progress(len(outcomes), outcomes)
    else:
        for task in tasks:
            outcomes.append(_duel_one(task))
            if progress:
                progress(len(outcomes), outcomes)
    wins = sum(o[0] for o in outcomes)
    sole = sum(o[1] for o in outcomes)
    margin = sum(o[2] for o in outcomes)
    think = tuple(t for o in outcomes for t in o[3])
    decided = tuple(t for o in outcomes for t in o[4])
    sides = players // 2 if teams else players
    return DuelResult(games, wins, sole, margin / games if games else 0.0, think, sides, decided)


@dataclass(frozen=True)
class PlayoutRate:
    playouts: int
    cpu_seconds: float
    actions: int  # actions played in all playouts

    @property
    def per_second(self) -> float:
        return self.playouts / self.cpu_seconds if self.cpu_seconds else float("inf")


def playout_rate(players: int = 4, teams: bool = False, seconds: float = 2.0, moves: int = 30,
                 seed: int = 0) -> PlayoutRate:
    """Greedy playouts a CPU second from mid-game (after ``moves`` greedy moves), each on a
    fresh sample of the hidden cards, as the expert bot plays them (one core, this thread)."""
    greedy = get_bot("greedy")
    st = rules.new_game(list(NAMES[:players]), teams=teams, seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        st, _ = rules.apply_move(st, st.seat, greedy.choose(player_view(st, st.seat), rng))
    sampler = Sampler(player_view(st, st.seat))
    start = time.thread_time()
    n = actions = 0
    while time.thread_time() - start < seconds:
        sample = sampler.sample(rng)
        before = sample.version
        play_out(sample, rng)
        actions += sample.version - before
        n += 1
    return PlayoutRate(n, time.thread_time() - start, actions)
