"""Admin dashboard benchmark: page times and SQL statements per page on a big database.

    python -m benchmarks.admin_bench                      # SQLite (temp file)
    python -m benchmarks.admin_bench --db postgresql      # a scratch database on 127.0.0.1
    python -m benchmarks.admin_bench --games 20000 --requests 20

Games are cloned from one real game (bulk inserts): `--games` games of 3 seats, 10 moves each,
3 emails each spread over the last 30 days (every 50th failed). Each page is then requested
`--requests` times in-process (Flask test client, logged in) and its median and 95th percentile
time and its number of SQL statements are printed. Targets: the list, detail, outbox and audit
pages < 100 ms median, the stats page < 300 ms; a fixed statement count per page whatever the
page number or the number of rows.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import timedelta

from sqlalchemy import event, insert, select

from benchmarks.common import percentile, scratch_database
from pbem import create_app
from pbem.auth import create_admin
from pbem.db import create_all, make_engine, session_scope
from pbem.games.service import create_game
from pbem.models import Game, GameStatus, MoveRecord, OutboxMessage, OutboxStatus, Seat, utcnow

PASSWORD = "benchmark passphrase"


def populate(url: str, games: int) -> int:
    """Fill the database; returns the id of one game for the detail page."""
    engine = make_engine(url)
    create_all(engine)
    now = utcnow()
    app = create_app({"DATABASE_URL": url, "KORSAR_ENV": "testing"})
    cfg = app.config["KORSAR"]
    with session_scope(engine) as s:
        model = create_game(s, cfg, ["Ann <ann@example.com>", "Bob <bob@example.com>", "Cy <cy@example.com>"],
                            seed=1, now=now - timedelta(days=3))
        create_admin(s, "bench@korsar.test", PASSWORD)
        model_id = model.id
    with session_scope(engine) as s:
        template = {c.name: getattr(s.get(Game, model_id), c.name) for c in Game.__table__.columns if c.name != "id"}
        seat_rows = [{c.name: getattr(seat, c.name) for c in Seat.__table__.columns if c.name not in ("id", "game_id")}
                     for seat in s.exec(select(Seat).where(Seat.game_id == model_id)).scalars()]
    statuses = [GameStatus.RUNNING] * 6 + [GameStatus.FINISHED] * 3 + [GameStatus.PAUSED]
    batch = 1000
    with engine.begin() as conn:
        for start in range(0, games, batch):
            rows = []
            for i in range(start, min(games, start + batch)):
                at = now - timedelta(minutes=i % 40000)
                rows.append({**template, "status": statuses[i % len(statuses)], "created_at": at,
                             "updated_at": at, "turn_started_at": at, "deadline_at": at + timedelta(hours=72),
                             "thread_id": f"<bench-{i}@korsar.test>"})
            ids = [r[0] for r in conn.execute(insert(Game).returning(Game.id), rows)]
            conn.execute(insert(Seat), [{**seat, "game_id": gid, "timeouts": (gid + seat["position"]) % 4}
                                        for gid in ids for seat in seat_rows])
            conn.execute(insert(MoveRecord), [
                {"game_id": gid, "number": n, "seat": (n - 1) % 3, "move_json": json.dumps({"action": "draw"}),
                 "events_json": json.dumps([{"kind": "draw", "seat": (n - 1) % 3}]),
                 "source": "player", "created_at": now - timedelta(hours=30 - 2 * n)}
                for gid in ids for n in range(1, 11)])
            conn.execute(insert(OutboxMessage), [
                {"game_id": gid, "kind": "turn", "to_addr": "ann@example.com", "subject": "Your turn",
                 "text_body": "...", "html_body": "...", "message_id": f"<b-{gid}-{k}@korsar.test>",
                 "headers_json": "{}",
                 "status": OutboxStatus.FAILED if (gid + k) % 50 == 0 else OutboxStatus.SENT,
                 "attempts": 1, "last_error": "550 5.1.1 User unknown" if (gid + k) % 50 == 0 else None,
                 "next_attempt_at": now, "created_at": now - timedelta(days=(gid + k) % 30),
                 "sent_at": now - timedelta(days=(gid + k) % 30)}
                for gid in ids for k in range(3)])
    engine.dispose()
    app.extensions["korsar_db"].dispose()
    return model_id  # type: ignore[return-value]


def measure(url: str, game_id: int, games: int, requests: int) -> list[tuple[str, float, float, int]]:
    app = create_app({"DATABASE_URL": url, "KORSAR_ENV": "testing"})
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    assert client.post("/admin/login", data={"email": "bench@korsar.test", "password": PASSWORD}).status_code == 303
    last_page = max(1, games // 25)
    pages = ["/admin/", "/admin/?status=running&sort=waiting&dir=asc", f"/admin/?page={last_page}",
             "/admin/?status=paused&sort=deadline&page=50", f"/admin/games/{game_id}", "/admin/outbox",
             "/admin/outbox?show=sent&page=100", "/admin/stats", "/admin/audit"]
    statements: list[str] = []
    event.listen(app.extensions["korsar_db"], "before_cursor_execute",
                 lambda *args: statements.append(args[2]))
    results = []
    for path in pages:
        times = []
        for _ in range(requests):
            statements.clear()
            t = time.perf_counter()
            response = client.get(path)
            times.append(time.perf_counter() - t)
            assert response.status_code == 200, (path, response.status_code)
        results.append((path, statistics.median(times) * 1000, percentile(times, 95) * 1000, len(statements)))
    app.extensions["korsar_db"].dispose()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--requests", type=int, default=20)
    args = parser.parse_args(argv)
    for kind in args.db:
        with scratch_database(kind) as url:
            t = time.perf_counter()
            game_id = populate(url, args.games)
            print(f"{kind}: {args.games} games, {args.games * 10} moves, {args.games * 3} emails "
                  f"stored in {time.perf_counter() - t:.1f} s")
            for path, median, p95, n in measure(url, game_id, args.games, args.requests):
                print(f"  {path:48s} median {median:7.1f} ms  p95 {p95:7.1f} ms  {n} SQL statements")
    return 0


if __name__ == "__main__":
    sys.exit(main())
