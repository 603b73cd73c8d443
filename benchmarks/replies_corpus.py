"""The replies corpus's figures: how well the product reads replies as real mail clients write
them (tests/pbem/replies_corpus/, README.md there), on a scratch database.

    python -m benchmarks.replies_corpus [--db sqlite|postgresql] [--language en fr vi] [--list]

Prints the corpus size and how many rows expect each outcome, then per language, client (its
name without `:language` or `+html`), layout, situation and trap: rows, the understood rate of
the unambiguous replies (`play` rows played as written), the rate of all rows understood as
their row says, and the wrong moves (any move but the row's). `--list` adds every row that was
not understood, with what happened instead. The test (tests/pbem/test_replies_corpus.py) fails
under 97% or on any wrong move; this is where the figures are read.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable

from benchmarks.common import ROOT, scratch_database

sys.path.insert(0, str(ROOT / "tests" / "pbem"))  # the corpus and its builders live with the tests

from corpus_mail import LANGUAGES, Verdict, corpus, run_row  # noqa: E402
from game_helpers import make_cfg  # noqa: E402

from pbem.db import create_all, make_engine  # noqa: E402
from pbem.letters.deferred import register_writers  # noqa: E402
from pbem.migrations import SchemaMismatch, upgrade_database  # noqa: E402


def _rate(part: int, whole: int) -> str:
    return f"{part / whole:6.1%}" if whole else "     -"


def table(title: str, verdicts: list[Verdict], key: Callable[[Verdict], str]) -> list[str]:
    groups: dict[str, list[Verdict]] = defaultdict(list)
    for verdict in verdicts:
        groups[key(verdict)].append(verdict)
    lines = [f"{title:<22} {'rows':>5} {'play':>5} {'played':>7} {'all ok':>7} {'wrong':>6}"]
    for name in sorted(groups):
        group = groups[name]
        plays = [v for v in group if v.row.expect == "play"]
        lines.append(f"{name:<22} {len(group):>5} {len(plays):>5} "
                     f"{_rate(sum(v.played_as_expected for v in plays), len(plays)):>7} "
                     f"{_rate(sum(v.understood for v in group), len(group)):>7} "
                     f"{sum(v.wrong_move for v in group):>6}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--language", nargs="+", choices=LANGUAGES, default=list(LANGUAGES))
    parser.add_argument("--list", action="store_true", help="list every row not understood")
    args = parser.parse_args(argv)
    register_writers()
    with scratch_database(args.db) as url:
        try:
            upgrade_database(url)
            db = make_engine(url)
        except SchemaMismatch as exc:  # as tests/conftest.py does: models ahead of the migrations
            print(f"(schema built by create_all: {str(exc)[:80]}...)")
            db = make_engine(url)
            create_all(db)
        cfg = make_cfg(url)
        started = time.perf_counter()
        verdicts = [run_row(db, cfg, row, serial)
                    for serial, row in enumerate(r for language in args.language for r in corpus(language))]
        elapsed = time.perf_counter() - started
        db.dispose()
    plays = [v for v in verdicts if v.row.expect == "play"]
    wrong = [v for v in verdicts if v.wrong_move]
    hard = [v for v in verdicts if v.hard]
    kinds = Counter(v.row.expect for v in verdicts)
    print(f"replies corpus on {args.db}: {len(verdicts)} replies "
          f"({', '.join(f'{k} {kinds[k]}' for k in ('play', 'choices', 'nomove', 'refused', 'silent'))}), "
          f"{sum(1 for v in verdicts if v.row.trap)} traps; {elapsed / len(verdicts) * 1000:.0f} ms a reply")
    print(f"unambiguous replies played: {sum(v.played_as_expected for v in plays)}/{len(plays)} "
          f"({_rate(sum(v.played_as_expected for v in plays), len(plays)).strip()}); "
          f"all replies understood: {sum(v.understood for v in verdicts)}/{len(verdicts)} "
          f"({_rate(sum(v.understood for v in verdicts), len(verdicts)).strip()}); "
          f"wrong moves: {len(wrong)}; other hard failures: {len(hard)}")
    for title, key in (("language", lambda v: v.row.language),
                       ("client", lambda v: v.row.client.split(":")[0].removesuffix("+html")),
                       ("layout", lambda v: v.row.layout),
                       ("situation", lambda v: v.row.situation),
                       ("trap", lambda v: v.row.trap or "(none)")):
        print()
        print("\n".join(table(title, verdicts, key)))
    shown = [v for v in verdicts if not v.understood] if args.list else wrong + [v for v in hard if not v.wrong_move]
    if shown:
        print()
        print("not understood:" if args.list else "wrong moves and hard failures:")
        for verdict in shown:
            print("  " + verdict.describe())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
