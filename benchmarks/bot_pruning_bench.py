"""The expert's pruning against its CPU: each setting against three greedy bots on the same deals.

    python -m benchmarks.bot_pruning_bench [--games 320] [--seed 7000] [--budget-ms 100]
                                           [--settings 6:2.5 4:2.0] [--jobs 2]

A setting is ``MIN_SAMPLES:Z``: the samples every move gets before it may be dropped, and how
many standard errors of paired loss drop it (engine/bots/expert.py; the shipped 6:2.5 first).
Each is the expert dealing uniformly (``expert_flat``: the inference's cost kept out of the
comparison) in one rotating seat against greedy seats. Prints each setting's win share with its
95% interval and the mean CPU seconds of its moves a game: a setting that prunes harder stops
the search early more often, so it spends less of its budget.
"""
from __future__ import annotations

import argparse
import sys

from engine.bench import duel
from engine.bots import REGISTRY, BotKind, FlatExpertBot, _searcher

DEFAULT_SETTINGS = ("6:2.5", "4:2.0")


def _register(setting: str) -> str:
    """A bot name for the setting, in the registry that duel's worker processes read."""
    minimum, z = setting.split(":")
    name = f"expert_flat_prune_{minimum}_{z}"
    if name not in REGISTRY:
        variant = type(name, (FlatExpertBot,), {"min_samples": int(minimum), "prune_z": float(z)})
        REGISTRY[name] = BotKind(f"Expert bot (pruning {setting})", _searcher(variant), level=False)
    return name


# Spawned workers import this module anew (as __mp_main__): the default settings exist there
# too. Other settings are registered in the parent only, so they need --jobs 1.
for _setting in DEFAULT_SETTINGS:
    _register(_setting)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=320)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=7000)
    p.add_argument("--budget-ms", type=float, default=100.0)
    p.add_argument("--settings", nargs="+", default=list(DEFAULT_SETTINGS))
    p.add_argument("--jobs", type=int, default=1)
    args = p.parse_args(argv)
    if args.jobs > 1 and set(args.settings) - set(DEFAULT_SETTINGS):
        p.error(f"settings other than {', '.join(DEFAULT_SETTINGS)} run with --jobs 1 only")
    for setting in args.settings:
        r = duel(args.games, players=args.players, bot=_register(setting), against="greedy",
                 seed=args.seed, budget_ms=args.budget_ms, jobs=args.jobs)
        lo, hi = r.win_rate_interval()
        cpu = sum(r.think_ms) / 1000.0 / args.games
        print(f"pruning {setting}: win share {r.win_rate:.3f} [{lo:.3f}, {hi:.3f}] over {args.games} "
              f"games at {args.budget_ms:g} ms, {cpu:.2f} CPU s a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
