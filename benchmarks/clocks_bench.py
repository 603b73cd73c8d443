"""Clock sweep benchmark: 100,000 stored games of which 1,000 are due, and none due.

    python -m benchmarks.clocks_bench                      # SQLite (temp file)
    python -m benchmarks.clocks_bench --db postgresql      # a scratch database on 127.0.0.1

Games are cloned from one real game (bulk inserts), then `run_sweep` is timed: once with 1,000
reminders due (claimed 200 games per transaction and queued to be rendered at delivery), once
with 1,000 timeouts due (greedy autoplay, planned and stored in chunks like a player's move),
and with nothing due.
Targets: < 0.5 s with 1,000 due, < 20 ms with none due. Wall and CPU (process_time) seconds are
printed: the machine may be shared. The cost moved to delivery (rendering one full reminder
with its links, as the worker does just before sending it) is measured too.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from datetime import datetime, timedelta

from sqlalchemy import insert, select, text, update

from benchmarks.common import scratch_database
from pbem.games.clocks.sweep import run_sweep
from pbem.config import Config
from pbem.db import create_all, make_engine, session_scope
from pbem.games.service import create_game
from pbem.logging import configure_logging
from pbem.models import Game, Seat
from pbem.runtime import tune_gc
from pbem.worker import SWEEP_BUDGET_SECONDS
from pbem.games.settings import GameSettings

T0 = datetime(2026, 1, 12, 10, 0)
BUDGET = SWEEP_BUDGET_SECONDS  # the budget the worker's periodic job gives one sweep


def reset_due_reminders(engine, due: int) -> None:
    """The first `due` games: the 50 % reminder due again at T0 + 5 h."""
    with engine.begin() as conn:
        ids = [r[0] for r in conn.execute(select(Game.__table__.c.id).order_by(Game.__table__.c.id).limit(due))]
        conn.execute(update(Game.__table__).where(Game.__table__.c.id.in_(ids))
                     .values(next_reminder_at=T0 + timedelta(hours=5), reminders_sent=0))


def populate(engine, cfg: Config, games: int, due: int) -> None:
    """`games` running games (2 seats each); the first `due` have a reminder due at T0 + 5 h."""
    with session_scope(engine) as session:
        model = create_game(session, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>"],
                            GameSettings(deadline_hours=10), seed=1, now=T0)
        template = {c.name: getattr(model, c.name) for c in Game.__table__.columns if c.name != "id"}
    far = T0 + timedelta(days=30)
    with engine.begin() as conn:
        conn.execute(update(Game.__table__).values(next_reminder_at=far, deadline_at=far + timedelta(days=1)))
        chunk = 10_000
        for start in range(1, games, chunk):
            n = min(chunk, games - start)
            rows = [dict(template, thread_id=f"<bench-{start + i}@bench>", next_reminder_at=far,
                         deadline_at=far + timedelta(days=1)) for i in range(n)]
            conn.execute(insert(Game.__table__), rows)
        ids = [r[0] for r in conn.execute(select(Game.__table__.c.id).order_by(Game.__table__.c.id))]
        for start in range(0, len(ids), chunk):
            seats = []
            for gid in ids[start:start + chunk]:
                for pos, (name, email) in enumerate([("Ann", "ann@example.com"), ("Bob", "bob@example.com")]):
                    seats.append({"game_id": gid, "position": pos, "name": name, "email": email,
                                  "kind": "human", "handed_to_bot": False, "link_nonce": f"n{gid}",
                                  "timezone": "UTC", "last_seen_version": 0, "unsubscribed": False,
                                  "digest": False, "vacation_days_used": 0.0, "timeouts": 0})
            if start == 0:
                seats = seats[2:]  # the model game already has its seats
            conn.execute(insert(Seat.__table__), seats)
        conn.execute(update(Game.__table__).where(Game.__table__.c.id.in_(ids[:due]))
                     .values(next_reminder_at=T0 + timedelta(hours=5), deadline_at=T0 + timedelta(hours=10)))
    if engine.dialect.name == "postgresql":
        with engine.connect() as conn:
            conn.execution_options(isolation_level="AUTOCOMMIT").execute(text("ANALYZE"))


def make_due_timeouts(engine, due: int) -> None:
    """The reminder games get their deadline back far away; the next `due` games time out."""
    with engine.begin() as conn:
        conn.execute(update(Game.__table__).where(Game.__table__.c.deadline_at <= T0 + timedelta(hours=10))
                     .values(deadline_at=T0 + timedelta(days=40), next_reminder_at=T0 + timedelta(days=39)))
        ids = [r[0] for r in conn.execute(select(Game.__table__.c.id).order_by(Game.__table__.c.id)
                                          .offset(due).limit(due))]
        conn.execute(update(Game.__table__).where(Game.__table__.c.id.in_(ids))
                     .values(deadline_at=T0 + timedelta(hours=20), next_reminder_at=None))


CPU: dict[str, float] = {}  # process_time of the last timed sweep of each kind


def timed(engine, cfg: Config, now: datetime, label: str = "") -> tuple[float, dict]:
    start, cpu = time.perf_counter(), time.process_time()
    report = run_sweep(engine, cfg, now)
    CPU[label] = time.process_time() - cpu
    return time.perf_counter() - start, report


def render_cost(engine, cfg: Config, count: int = 200) -> float:
    """Seconds per reminder rendered at delivery (board, signed move links, text + html)."""
    from sqlmodel import Session, col, select

    from pbem.letters.deferred import reminder_email
    from pbem.models import OutboxMessage

    with Session(engine) as session:
        rows = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "reminder")
                            .order_by(col(OutboxMessage.id)).limit(count)).all()
        start = time.perf_counter()
        for row in rows:
            reminder_email(session, cfg, session.get(Game, row.game_id), session.get(Seat, row.seat_id),
                           T0 + timedelta(hours=5))
        return (time.perf_counter() - start) / max(1, len(rows))


def bench(url: str, games: int, due: int) -> dict[str, float]:
    # As in the worker process: JSON log lines (written to nowhere here) and its GC settings.
    configure_logging(stream=open(os.devnull, "w"))  # open for the whole run
    tune_gc()
    engine = make_engine(url)
    create_all(engine)
    cfg = Config(DATABASE_URL=url, SECRET_KEY="bench", BASE_URL="http://korsar.test",
                 MAIL_FROM="Korsar <korsar@korsar.test>", KORSAR_ENV="testing")
    t = time.perf_counter()
    populate(engine, cfg, games, due)
    print(f"  populated {games:,} games in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    idle = []
    for _ in range(20):
        seconds, report = timed(engine, cfg, T0 + timedelta(hours=1))
        assert sum(report.values()) == 0, report
        idle.append(seconds)
    with engine.begin() as conn:  # scheduling overhead alone: claims that queue no email
        conn.execute(update(Seat.__table__).values(unsubscribed=True))
    claims, report = timed(engine, cfg, T0 + timedelta(hours=5), "claims")
    assert report["reminders"] == 0, report
    with engine.begin() as conn:
        conn.execute(update(Seat.__table__).values(unsubscribed=False))
    reset_due_reminders(engine, due)
    reminders, report = timed(engine, cfg, T0 + timedelta(hours=5), "reminders")
    assert report["reminders"] == due, report
    per_render = render_cost(engine, cfg)
    # The same 1,000 reminders with the periodic job's budget: each sweep stays short.
    reset_due_reminders(engine, due)
    bounded, sweeps, sent = [], 0, 0
    while sent < due:
        start = time.perf_counter()
        report = run_sweep(engine, cfg, T0 + timedelta(hours=5, seconds=sweeps), budget_seconds=BUDGET)
        bounded.append(time.perf_counter() - start)
        sent, sweeps = sent + report["reminders"], sweeps + 1
        if sweeps > 2 * due:
            raise RuntimeError(f"the bounded sweeps do not drain: {report}")
    make_due_timeouts(engine, due)
    timeouts, report = timed(engine, cfg, T0 + timedelta(hours=20), "timeouts")
    assert report["timeouts"] == due and report["reminders"] == 0, report
    engine.dispose()
    return {"none_due_median_ms": statistics.median(idle) * 1000, "none_due_max_ms": max(idle) * 1000,
            "bounded_max_s": max(bounded), "bounded_sweeps": sweeps, "bounded_total_s": sum(bounded),
            "claims_only_s": claims, "reminders_due_s": reminders, "timeouts_due_s": timeouts,
            "reminders_cpu_s": CPU["reminders"], "timeouts_cpu_s": CPU["timeouts"],
            "render_at_delivery_ms": per_render * 1000}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--due", type=int, default=1_000)
    args = parser.parse_args(argv)
    with scratch_database(args.db) as url:  # PostgreSQL: BENCH_PG_URL's server
        result = bench(url, args.games, args.due)
    print(f"clocks sweep ({args.db}, {args.games:,} games, {args.due:,} due): "
          f"none due {result['none_due_median_ms']:.1f} ms median / {result['none_due_max_ms']:.1f} ms max "
          f"(target < 20 ms); {args.due:,} due reminders claimed without email {result['claims_only_s']:.3f} s, "
          f"{args.due:,} reminders due {result['reminders_due_s']:.3f} s (cpu {result['reminders_cpu_s']:.3f} s), "
          f"{args.due:,} timeouts due {result['timeouts_due_s']:.3f} s (cpu {result['timeouts_cpu_s']:.3f} s) "
          f"(target < 0.5 s); rendering one reminder at delivery {result['render_at_delivery_ms']:.2f} ms; "
          f"with a {BUDGET} s budget: {result['bounded_sweeps']} sweeps of at most "
          f"{result['bounded_max_s']:.3f} s send the {args.due:,} reminders ({result['bounded_total_s']:.2f} s in all)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
