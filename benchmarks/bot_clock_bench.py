"""The bots' clock: each expert move's wall time stays under its cap with both cores busy.

    python -m benchmarks.bot_clock_bench [--moves 40] [--budget-ms DEFAULT_BUDGET_MS] [--busy 2]

Starts ``--busy`` processes that spin (every core busy, as on a loaded server), then times
expert decisions (positions with more than one legal move from greedy games, each with the
history its inference reads) in this process:
the wall time of each ``choose`` against the cap (engine.bots.expert.WALL_FACTOR x the CPU
budget), and the CPU it got. Prints p50/p95/max and how many moves overran the cap; exits 1 if
one overran it by more than ``--slack-ms`` (one playout, the sampler's set-up).
"""
from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time

from benchmarks.common import percentile
from engine import apply_move, new_game, player_view
from engine.bots import DEFAULT_BUDGET_MS, get_bot
from engine.bots.base import Observation
from engine.bots.expert import WALL_FACTOR
from engine.bots.inference import observations
from engine.view_types import PlayerView


def _spin(stop_at: float) -> None:
    x = 0
    while time.time() < stop_at:
        x += 1


def _positions(count: int, seed: int) -> list[tuple[PlayerView, list[Observation]]]:
    """Decisions of greedy games, each with the history the expert reads (inference)."""
    greedy = get_bot("greedy")
    views: list[tuple[PlayerView, list[Observation]]] = []
    game = 0
    while len(views) < count:
        st = new_game(["A", "B", "C", "D"], seed=seed + game)
        rng = random.Random(seed + game)
        k = 0
        while not st.finished and len(views) < count:
            view = player_view(st, st.seat)
            if len(view["legal_moves"]) > 1 and k % 5 == 0:
                views.append((view, observations(st, st.seat)))
            k += 1
            st, _ = apply_move(st, st.seat, greedy.choose(view, rng))
        game += 1
    return views


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=40)
    p.add_argument("--budget-ms", type=float, default=DEFAULT_BUDGET_MS)
    p.add_argument("--busy", type=int, default=2, help="spinning processes (cores kept busy)")
    p.add_argument("--slack-ms", type=float, default=60.0)
    p.add_argument("--seed", type=int, default=61000)
    args = p.parse_args(argv)
    views = _positions(args.moves, args.seed)
    cap = WALL_FACTOR * args.budget_ms
    stop_at = time.time() + 3600
    spinners = [multiprocessing.get_context("spawn").Process(target=_spin, args=(stop_at,), daemon=True)
                for _ in range(args.busy)]
    for s in spinners:
        s.start()
    time.sleep(0.5)
    walls, cpus, playouts = [], [], []
    try:
        for i, (view, history) in enumerate(views):
            bot = get_bot("expert", budget_ms=args.budget_ms)
            w0, c0 = time.perf_counter(), time.thread_time()
            bot.choose(view, random.Random(i), history)
            walls.append((time.perf_counter() - w0) * 1000)
            cpus.append((time.thread_time() - c0) * 1000)
            playouts.append(bot.last_playouts)
    finally:
        for s in spinners:
            s.terminate()
    over = [w for w in walls if w > cap]
    print(f"moves: {len(walls)} (budget {args.budget_ms:g} ms CPU, wall cap {cap:g} ms, "
          f"{args.busy} busy processes)")
    print(f"wall_ms p50 {percentile(walls, 50):.0f} p95 {percentile(walls, 95):.0f} max {max(walls):.0f}")
    print(f"cpu_ms p50 {percentile(cpus, 50):.0f} p95 {percentile(cpus, 95):.0f} max {max(cpus):.0f}")
    print(f"playouts p50 {percentile([float(x) for x in playouts], 50):.0f}")
    print(f"over_cap: {len(over)} (worst {max(over) - cap if over else 0:.0f} ms over)")
    return 1 if any(w > cap + args.slack_ms for w in walls) else 0


if __name__ == "__main__":
    sys.exit(main())
