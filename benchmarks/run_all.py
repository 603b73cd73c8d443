"""`make bench`: every service benchmark in turn (each prints its own figures).

    python -m benchmarks.run_all
"""
from __future__ import annotations

import importlib
import sys

# Each entry: (module with main(argv) -> int, its arguments). Add new benchmarks here.
BENCHMARKS: list[tuple[str, list[str]]] = [
    ("benchmarks.load_bench", ["--db", "sqlite", "postgresql"]),
    # Players who read before they click: the latency players see at a realistic load.
    ("benchmarks.load_bench", ["--db", "sqlite", "postgresql", "--protocol", "post", "--think-ms", "200"]),
    ("benchmarks.move_flatness", ["--db", "sqlite", "postgresql"]),
    ("benchmarks.game_service_bench", ["--db", "sqlite", "postgresql"]),
    ("benchmarks.mail_bench", []),
    ("benchmarks.mail_bench", ["--db", "postgresql"]),
    ("benchmarks.clocks_bench", []),
    ("benchmarks.clocks_bench", ["--db", "postgresql"]),
    ("benchmarks.admin_bench", ["--db", "sqlite", "postgresql"]),
    # Replies by email: throughput and latency, hostile messages, HTML parsers, the replies corpus.
    ("benchmarks.inbound_bench", ["--db", "sqlite", "postgresql"]),
    ("benchmarks.inbound_hostile_bench", []),
    ("benchmarks.html_parsers_bench", []),
    ("benchmarks.replies_corpus", []),
    # A finished game's rating update, 2 to 5 players and teams, and an exclusion's replay.
    ("benchmarks.ratings_bench", []),
    ("benchmarks.ratings_bench", ["--db", "postgresql"]),
    # Erasing one address (issue 27): the scan of every text column, with 200 000 outbox emails.
    ("benchmarks.privacy_bench", ["--db", "sqlite", "postgresql", "--outbox", "200000"]),
]


def main() -> int:
    status = 0
    for module, args in BENCHMARKS:
        print(f"== python -m {module} {' '.join(args)}".rstrip(), flush=True)
        try:
            status |= importlib.import_module(module).main(args) or 0
        except Exception as exc:  # noqa: BLE001  (one failing bench must not hide the others)
            print(f"   failed: {exc.__class__.__name__}: {exc}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
