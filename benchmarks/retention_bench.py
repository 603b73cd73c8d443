"""Retention benchmark: how fast the worker's retention job forgets sent emails' bodies, and how
long each of its transactions holds the database, on a big outbox.

    nice -n 10 python -m benchmarks.retention_bench                      # SQLite (temp file)
    nice -n 10 python -m benchmarks.retention_bench --db sqlite postgresql --rows 1000000

`--rows` sent emails (a turn email's size: a 600-byte text and a 1,500-byte HTML body) are bulk
inserted, `--due` of them older than RETENTION_OUTBOX_BODY_DAYS; then `retention.forget_due` runs
once with no budget (a first run over years of mail) in batches of `--batch` rows. Printed: rows
blanked per second, the number of write transactions, and their median and longest time (what
any other writer may wait for: SQLite has one writer at a time; the walks to the next due row are
reads, which block nobody). A second run, with nothing
due, shows what an idle hourly run costs.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from datetime import timedelta

from sqlalchemy import event, func, insert
from sqlmodel import select

from benchmarks.common import percentile, scratch_database
from pbem.config import Config
from pbem.db import create_all, make_engine, session_scope
from pbem.games import retention
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.sqlite import READ_ONLY_OPTION

TEXT = ("It is your turn in Saturday's game. " * 17)[:600]
HTML = ("<p style=\"margin:0\">It is your turn in <b>Saturday's game</b>.</p>" * 25)[:1500]
CHUNK = 10_000


def populate(url: str, rows: int, due: int) -> None:
    engine = make_engine(url)
    create_all(engine)
    now = utcnow()
    old, recent = now - timedelta(days=400), now - timedelta(days=10)
    with engine.begin() as conn:
        for start in range(0, rows, CHUNK):
            batch = []
            for n in range(start, min(rows, start + CHUNK)):
                created = old + timedelta(seconds=n) if n < due else recent + timedelta(seconds=n)
                batch.append({"kind": "turn", "to_addr": f"player{n % 5000}@example.com", "subject": "Your turn",
                              "text_body": TEXT, "html_body": HTML, "headers_json": '{"List-Unsubscribe": "<x>"}',
                              "message_id": f"<{n}@korsar.bench>", "status": OutboxStatus.SENT, "attempts": 1,
                              "next_attempt_at": created, "created_at": created, "sent_at": created})
            conn.execute(insert(OutboxMessage), batch)
    engine.dispose()


def measure(url: str, batch: int) -> tuple[float, int, list[float], float]:
    """(seconds, rows blanked, each write transaction's seconds, an idle run's seconds)."""
    engine = make_engine(url)
    begun: dict[int, float] = {}
    spans: list[float] = []

    def on_begin(conn) -> None:  # type: ignore[no-untyped-def]
        if not conn.get_execution_options().get(READ_ONLY_OPTION):  # the walks to the next due row block nobody
            begun[id(conn)] = time.perf_counter()

    def on_commit(conn) -> None:  # type: ignore[no-untyped-def]
        started = begun.pop(id(conn), None)
        if started is not None:
            spans.append(time.perf_counter() - started)

    event.listen(engine, "begin", on_begin)
    event.listen(engine, "commit", on_commit)
    cfg = Config(DATABASE_URL=url, KORSAR_ENV="testing")
    t = time.perf_counter()
    counts = retention.forget_due(engine, cfg, batch_size=batch)
    seconds = time.perf_counter() - t
    event.remove(engine, "commit", on_commit)
    t = time.perf_counter()
    again = retention.forget_due(engine, cfg, batch_size=batch)
    idle = time.perf_counter() - t
    assert again == {}, again
    with session_scope(engine) as session:
        left = session.exec(select(func.count()).select_from(OutboxMessage)
                            .where(OutboxMessage.text_body != "")).one()
    engine.dispose()
    print(f"  bodies left: {left}")
    return seconds, counts.get("outbox_bodies", 0), spans, idle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--due", type=int, default=None, help="rows past 90 days (default: half)")
    parser.add_argument("--batch", type=int, default=retention.BATCH_SIZE)
    args = parser.parse_args(argv)
    due = args.rows // 2 if args.due is None else args.due
    for kind in args.db:
        with scratch_database(kind) as url:
            t = time.perf_counter()
            populate(url, args.rows, due)
            print(f"{kind}: {args.rows} sent emails ({due} past 90 days) stored in {time.perf_counter() - t:.1f} s")
            seconds, blanked, spans, idle = measure(url, args.batch)
            print(f"  {blanked} bodies forgotten in {seconds:.1f} s: {blanked / seconds:,.0f} rows/s, "
                  f"{len(spans)} write transactions of at most {args.batch} rows, "
                  f"median {statistics.median(spans) * 1000:.1f} ms, "
                  f"p95 {percentile(spans, 95) * 1000:.1f} ms, longest {max(spans) * 1000:.1f} ms; "
                  f"an idle run (nothing due) {idle * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
