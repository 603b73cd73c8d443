"""The expert's analysis of a finished game: for every move of the seats asked, from that seat's
view only, the expected final margin of the move played and of the best move in that position.

How one position is valued (the expert bot's way, engine/bots/expert.py): the seat's view
(``player_view`` at that step) is rebuilt by ``Sampler``, which deals the cards the seat could
not see anew for every sample; each legal move is played out on the SAME samples with the same
tie-breaks (common random numbers: moves are compared on equal deals) by the greedy playouts
(``play_out``), and valued by ``margin`` (the seat's side's final score minus the best other
side's, team scores in team play): the objective the expert maximises. The hidden cards of the
real game are never read: a seat is judged on what it could know.

Deterministic: the random source of a step is seeded from the caller's ``key`` and the step,
and the budget is counted in samples and playouts, so the result is a function of the record,
the key and the budget. The CPU caps (``Budget.cpu_ms_per_move``, ``cpu_ms_per_game``; this
thread's CPU time) are safeguards only: a move cut short says so (``capped``), and a game cut
short says where it stopped (``stopped_at``).

Marks, by the gold a move lost against the best move (``best_margin - played_margin``, in
expected final margin): see ``THRESHOLDS``. Merchant ships carry 2 to 8 gold (4 on average), and
a ship that changes hands moves the margin by up to twice its value (you lose it, a rival gains
it), so:
- good: under 1 gold, within the noise of the default budget (the paired standard error of a
  difference is about half a gold to one gold at 64 samples);
- inaccurate: 1 to 3 gold, less than the smallest ship changing hands;
- mistake: 3 to 6 gold, about one average ship (4 gold) given away or not taken;
- blunder: 6 gold or more, a big ship (6 to 8 gold) or two average ones given away.
Only finished games are analysed (``AnalysisError`` otherwise): while a game runs, the record
holds every hand and the draw pile.
"""
from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from engine import core, rules
from engine.bots.playout import margin, play_out
from engine.errors import IllegalMove
from engine.moves import decode, encode
from engine.replay import RecordError, parse_record
from engine.view import Sampler, player_view

GOOD = "good"
INACCURATE = "inaccurate"
MISTAKE = "mistake"
BLUNDER = "blunder"
MARKS = (GOOD, INACCURATE, MISTAKE, BLUNDER)
# (gold lost at least, mark), the worst first; below the last: GOOD. See the module docstring.
THRESHOLDS: tuple[tuple[float, str], ...] = ((6.0, BLUNDER), (3.0, MISTAKE), (1.0, INACCURATE))

DEFAULT_SAMPLES = 64  # deals per position; every legal move is played out on each
DEFAULT_MAX_PLAYOUTS = 960  # playouts per position at most: fewer samples when moves are many
MIN_SAMPLES = 8  # a position with many moves still gets this many deals
DEFAULT_CPU_MS_PER_MOVE = 300.0  # the default: 300 ms of CPU per move at most
DEFAULT_CPU_MS_PER_GAME = 60_000.0  # a whole game's analysis stops after a minute of CPU


class AnalysisError(ValueError):
    """The record cannot be analysed (malformed, an illegal move, or not finished); ``code``
    names why: ``bad_record``, ``illegal_move``, ``not_finished``."""

    def __init__(self, message: str, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Budget:
    """What one analysis may spend: ``samples`` deals per position (at most ``max_playouts``
    playouts, at least ``MIN_SAMPLES`` deals), and CPU caps per move and per game (None: none)."""

    samples: int = DEFAULT_SAMPLES
    max_playouts: int = DEFAULT_MAX_PLAYOUTS
    cpu_ms_per_move: float | None = DEFAULT_CPU_MS_PER_MOVE
    cpu_ms_per_game: float | None = DEFAULT_CPU_MS_PER_GAME

    def samples_for(self, n_moves: int) -> int:
        """The deals a position with ``n_moves`` legal moves gets."""
        return max(min(self.samples, MIN_SAMPLES), min(self.samples, self.max_playouts // n_moves))


@dataclass(frozen=True)
class MoveAnalysis:
    """One analysed move: ``step`` its index in the record (0-based; the state before it is the
    state after ``step`` moves), the seat, the move played and the best one (move dicts), their
    expected final margins, the gold lost, the mark, the samples used, the number of legal
    moves, whether the move was forced (one legal move: nothing to judge) and whether the CPU
    cap cut its samples short."""

    step: int
    seat: int
    played: dict[str, Any]
    best: dict[str, Any]
    played_margin: float
    best_margin: float
    loss: float
    mark: str
    samples: int
    legal: int
    forced: bool = False
    capped: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "seat": self.seat, "played": dict(self.played),
                "best": dict(self.best), "played_margin": self.played_margin,
                "best_margin": self.best_margin, "loss": self.loss, "mark": self.mark,
                "samples": self.samples, "legal": self.legal, "forced": self.forced,
                "capped": self.capped}


@dataclass(frozen=True)
class GameAnalysis:
    """The analysed moves in record order; ``stopped_at`` the step where the per-game CPU cap
    stopped it (None: complete); ``cpu_ms`` the CPU it took; ``playouts`` how many it played."""

    moves: list[MoveAnalysis] = field(default_factory=list)
    stopped_at: int | None = None
    cpu_ms: float = 0.0
    playouts: int = 0

    @property
    def complete(self) -> bool:
        return self.stopped_at is None


def mark_of(loss: float) -> str:
    """The mark of a move that lost ``loss`` gold of expected margin against the best move."""
    for at_least, mark in THRESHOLDS:
        if loss >= at_least:
            return mark
    return GOOD


def step_rng(key: str, step: int) -> random.Random:
    """The random source of one step's analysis: a function of the key and the step only."""
    return random.Random(f"korsar-analysis:{key}:{step}")


def analyse_position(view: Any, played: dict[str, Any], rng: random.Random,
                     budget: Budget = Budget()) -> tuple[MoveAnalysis, int]:
    """One position from the view of its seat to move: ``played`` (a legal move) against the
    best move, and the playouts spent. ``step`` is left at -1 (``analyse_game`` sets it)."""
    legal = view["legal_moves"]
    seat = view["seat"]
    if played not in legal:
        raise AnalysisError(f"{played!r} is not a legal move here.", "illegal_move")
    if len(legal) == 1:
        return MoveAnalysis(-1, seat, dict(played), dict(played), 0.0, 0.0, 0.0, GOOD, 0, 1,
                            forced=True), 0
    team_of = view["team_of"]
    side = team_of[seat] if team_of is not None else seat
    moves = [encode(m) for m in legal]
    sampler = Sampler(view)
    wanted = budget.samples_for(len(moves))
    deadline = (time.thread_time() + budget.cpu_ms_per_move / 1000.0
                if budget.cpu_ms_per_move is not None else None)
    totals = [0.0] * len(moves)
    done = 0
    capped = False
    for _ in range(wanted):
        if deadline is not None and done and time.thread_time() >= deadline:
            capped = True
            break
        deal = sampler.sample(rng)
        seed = rng.getrandbits(32)
        for i, m in enumerate(moves):
            st = deal.clone()
            core.step(st, m)
            play_out(st, random.Random(seed))  # the same tie-breaks for every move
            totals[i] += margin(st, side)
        done += 1
    means = [t / done for t in totals]
    mine = legal.index(played)
    best = max(range(len(moves)), key=lambda i: (means[i], i == mine, -i))  # a tie: the one played
    loss = round(means[best] - means[mine], 3)
    return MoveAnalysis(-1, seat, dict(played), decode(moves[best]), round(means[mine], 3),
                        round(means[best], 3), loss, mark_of(loss), done, len(moves),
                        capped=capped), done * len(moves)


def analyse_game(record: object, seats: Iterable[int], key: str, budget: Budget = Budget(),
                 steps: Collection[int] | None = None) -> GameAnalysis:
    """Every move of ``seats`` in a FINISHED game's record (engine/replay.py), each from its
    seat's view at that step (only the ``steps`` given, if any: the moves a human played);
    AnalysisError if the record is malformed, holds an illegal move or does not end the game (a
    running game's record shows every hand)."""
    try:
        state, moves = parse_record(record)
    except RecordError as exc:
        raise AnalysisError(str(exc), "bad_record") from None
    wanted = set(seats)
    states = []
    for player, move in moves:  # the whole record first: a running game is refused before any work
        states.append(state)
        try:
            state, _ = rules.apply_move(state, player, move)
        except IllegalMove as exc:
            raise AnalysisError(str(exc), "illegal_move") from None
    if not state.finished:
        raise AnalysisError("Only a finished game is analysed.", "not_finished")
    started = time.thread_time()
    out: list[MoveAnalysis] = []
    playouts = 0
    stopped_at: int | None = None
    for step, ((player, move), before) in enumerate(zip(moves, states)):
        if player not in wanted or (steps is not None and step not in steps):
            continue
        if budget.cpu_ms_per_game is not None and \
                (time.thread_time() - started) * 1000.0 >= budget.cpu_ms_per_game:
            stopped_at = step
            break
        view = player_view(before, player)
        result, spent = analyse_position(view, move, step_rng(key, step), budget)
        playouts += spent
        out.append(_at_step(result, step))
    cpu_ms = round((time.thread_time() - started) * 1000.0, 1)
    return GameAnalysis(out, stopped_at, cpu_ms, playouts)


def _at_step(result: MoveAnalysis, step: int) -> MoveAnalysis:
    return MoveAnalysis(step, result.seat, result.played, result.best, result.played_margin,
                        result.best_margin, result.loss, result.mark, result.samples,
                        result.legal, result.forced, result.capped)
