"""Command line: ``python -m engine replay FILE|-``, ``bench``, ``duel``."""
from __future__ import annotations

import argparse
import json
import math
import sys

from engine.bench import NAMES, duel, playout_rate, random_games
from engine.bots import BOTS, LEVELS, REGISTRY
from engine.errors import ConfigError
from engine.replay import RecordError, replay


def _cmd_replay(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except OSError as exc:
        print(f"error: cannot read {args.file}: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError:
        print(f"error: {args.file} is not UTF-8 text", file=sys.stderr)
        return 2
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        print(f"error: the record is not valid JSON: {exc}", file=sys.stderr)
        return 2
    try:
        report = replay(record)
    except RecordError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    print(json.dumps(report))
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    r = random_games(args.players, args.games, seed=args.seed, teams=args.teams)
    print(f"games: {r.games}")
    print(f"players: {args.players}{' (teams)' if args.teams else ''}")
    print(f"actions: {r.actions} ({r.actions / max(r.games, 1):.1f} per game)")
    print(f"seconds: {r.seconds:.3f} (cpu: {r.cpu_seconds:.3f})")
    print(f"actions_per_second: {r.actions / r.seconds:.0f}")
    print(f"games_per_cpu_second: {r.games_per_cpu_second:.0f}")
    print(f"games_per_second: {r.games_per_second:.0f}")
    return 0


def _cmd_duel(args: argparse.Namespace) -> int:
    def progress(done: int, outcomes: list) -> None:
        wins = sum(o[0] for o in outcomes)
        margin = sum(o[2] for o in outcomes) / done
        think = sorted(t for o in outcomes for t in o[3])
        p50 = think[len(think) // 2] if think else 0.0
        print(f"progress: {done} games, win_rate {wins / done:.3f}, margin {margin:.2f}, "
              f"think_ms_p50 {p50:.1f}", file=sys.stderr, flush=True)

    r = duel(args.games, players=args.players, bot=args.bot, against=args.against,
             seed=args.seed, teams=args.teams, budget_ms=args.budget_ms,
             iterations=args.iterations, jobs=args.jobs,
             wall_ms=math.inf if args.wall_ms is None else args.wall_ms,
             progress=progress if args.progress else None)
    who = "pair" if args.teams else "seat"
    print(f"games: {r.games} ({args.bot} in one {who}, rotating; {args.against} in the others)")
    print(f"wins: {r.wins:g} (alone: {r.sole_wins}); a fair share would be {1 / r.sides:.3f}")
    print(f"{args.bot}_moves: {len(r.think_ms)}")
    lo, hi = r.win_rate_interval()
    print(f"win_rate_95: [{lo:.3f}, {hi:.3f}]")
    print(f"cpu_s_per_game: {sum(r.think_ms) / 1000 / max(r.games, 1):.2f} ({args.bot}'s moves)")
    print(f"decisions: {len(r.decision_ms)} (moves with more than one legal move)")
    print(f"decision_ms_p50: {r.think_percentile(50, decisions=True):.1f}")
    print(f"decision_ms_p95: {r.think_percentile(95, decisions=True):.1f}")
    # The last four lines, in this order, are what scripts read (docs/engine-api.md).
    print(f"win_rate: {r.win_rate:.3f}")
    print(f"mean_score_margin: {r.score_margin:.2f}")
    print(f"think_ms_p50: {r.think_percentile(50):.1f}")
    print(f"think_ms_p95: {r.think_percentile(95):.1f}")
    return 0


def _cmd_playouts(args: argparse.Namespace) -> int:
    r = playout_rate(args.players, teams=args.teams, seconds=args.seconds, moves=args.moves,
                     seed=args.seed)
    print(f"position: {args.players} players{' (teams)' if args.teams else ''}, "
          f"after {args.moves} moves")
    print(f"playouts: {r.playouts} in {r.cpu_seconds:.2f} cpu seconds "
          f"({r.actions / max(r.playouts, 1):.1f} actions each)")
    print(f"playouts_per_second: {r.per_second:.0f}")
    return 0


def _bots_help() -> str:
    """The bots for ``duel --help``: the levels players choose from, then the experiments'."""
    levels = "; ".join(f"{n} ({REGISTRY[n].about})" for n in LEVELS)
    others = "; ".join(f"{n} ({REGISTRY[n].about})" for n in BOTS if n not in LEVELS)
    return f"levels, easiest first: {levels}" + (f". For experiments: {others}" if others else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="replay a game record and print the state as JSON")
    p.add_argument("file", help="record file, or - for standard input")
    p.set_defaults(func=_cmd_replay)
    p = sub.add_parser("bench", help="random self-play speed")
    p.add_argument("--players", type=int, default=4, choices=range(2, len(NAMES) + 1))
    p.add_argument("--games", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--teams", action="store_true")
    p.set_defaults(func=_cmd_bench)
    p = sub.add_parser("duel", help="one bot side against other bots",
                       description="One bot side against other bots. Bots: " + _bots_help() + ".")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--players", type=int, default=4, choices=range(2, len(NAMES) + 1))
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--bot", default="greedy", choices=BOTS, help="the bot measured (see above)")
    p.add_argument("--against", default="random", choices=BOTS, help="the bot in the other seats")
    p.add_argument("--teams", action="store_true", help="a pair of bots against pairs")
    p.add_argument("--budget-ms", type=float, default=None,
                   help="CPU milliseconds a move for search bots (default: theirs)")
    p.add_argument("--iterations", type=int, default=None,
                   help="playouts a move for search bots, instead of milliseconds")
    p.add_argument("--wall-ms", type=float, default=None,
                   help="wall-clock cap a move for search bots (default: none, so that the load "
                        "of the machine does not change the measurement)")
    p.add_argument("--jobs", type=int, default=1, help="games in this many processes")
    p.add_argument("--progress", action="store_true", help="a line per game on stderr")
    p.set_defaults(func=_cmd_duel)
    p = sub.add_parser("playouts", help="greedy playouts per CPU second from mid-game")
    p.add_argument("--players", type=int, default=4, choices=range(2, len(NAMES) + 1))
    p.add_argument("--teams", action="store_true")
    p.add_argument("--moves", type=int, default=30, help="greedy moves before measuring")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--seed", type=int, default=0)
    p.set_defaults(func=_cmd_playouts)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except ConfigError as exc:  # e.g. 7 players alone: a usage error, not a traceback
        parser.error(str(exc))


if __name__ == "__main__":
    sys.exit(main())
