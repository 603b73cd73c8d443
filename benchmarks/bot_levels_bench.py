"""The levels are ordered: each level against three greedy bots, beginner < greedy < expert.

    python -m benchmarks.bot_levels_bench [--games 200] [--seed 7100000] [--budget-ms 100]
                                          [--levels beginner greedy expert]

For each level, ``engine.bench.duel`` of one seat of that level (rotating) against greedy seats,
on the same deals; prints each win share with its 95% interval and the mean CPU seconds of the
level's moves a game, then whether the shares are in the levels' order (exit 1 if not).
"""
from __future__ import annotations

import argparse
import sys

from engine.bench import duel
from engine.bots import LEVELS


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=7100000)
    p.add_argument("--budget-ms", type=float, default=100.0)
    p.add_argument("--levels", nargs="+", default=[n for n in LEVELS if n != "random"])
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    shares = []
    for level in args.levels:
        r = duel(args.games, players=args.players, bot=level, against="greedy", seed=args.seed,
                 budget_ms=args.budget_ms, jobs=args.jobs)
        lo, hi = r.win_rate_interval()
        shares.append(r.win_rate)
        print(f"{level}: win_rate {r.win_rate:.3f} [{lo:.3f}, {hi:.3f}] over {r.games} games, "
              f"cpu_s_per_game {sum(r.think_ms) / 1000 / r.games:.2f}", flush=True)
    ordered = all(a < b for a, b in zip(shares, shares[1:]))
    print(f"ordered: {ordered}")
    return 0 if ordered else 1


if __name__ == "__main__":
    sys.exit(main())
