"""Erasure benchmark (pbem/games/privacy.py erase_address): one address erased from a database
whose outbox holds `--outbox` emails to other people (realistic bodies), which the erasure scans
(every text column of every table is searched for the address's forms). Figure: seconds for one
erasure, and outbox rows scanned per second; at the end the address must be nowhere.

    python -m benchmarks.privacy_bench [--db sqlite postgresql] [--outbox 30000]
"""
from __future__ import annotations

import argparse
import json
import time

from sqlalchemy import insert, text

from benchmarks.common import scratch_database
from pbem.config import Config
from pbem.db import make_engine, session_scope
from pbem.games import privacy, service
from pbem.games.settings import GameSettings
from pbem.mail import suppression
from pbem.migrations import upgrade_database
from pbem.models import OutboxMessage, OutboxStatus, utcnow

SECRET = "Bq7vK2pX9mR4tW8yZ3nL6hJ1cF5dG0sA-privacy-bench"
ADDRESS = "zebulon.quixote+korsar@bench.test"
TEXT = ("Hello Bob,\n\nIt is your turn in Club night. Ann played Red 3 on ship 2; the draw pile has 31 cards.\n"
        "Your hand: green captain, merchant 5, merchant 7, red pirate 4, black pirate 2.\n") * 6
HTML = "<html><body>" + "".join(f"<p class='m'>{line}</p>" for line in TEXT.splitlines()) + "</body></html>"


def run(kind: str, rows: int) -> dict[str, object]:
    with scratch_database(kind) as url:
        upgrade_database(url)
        engine = make_engine(url)
        cfg = Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://bench.test",
                     MAIL_FROM="Korsar <korsar@bench.test>", KORSAR_ENV="testing")
        suppression.use_secret(SECRET)
        with session_scope(engine) as s:
            game = service.create_game(s, cfg, [f"Zed <{ADDRESS}>", "Bob <bob@bench.test>"],
                                       GameSettings(name="Club night"), seed=3)
            game_id = game.id
        now = utcnow()
        batch = 5000
        with engine.begin() as conn:
            for start in range(0, rows, batch):
                conn.execute(insert(OutboxMessage), [
                    {"game_id": game_id, "kind": "turn", "to_addr": f"player{i % 500}@bench.test",
                     "subject": "[Korsar] Club night: your turn", "text_body": TEXT, "html_body": HTML,
                     "message_id": f"<bench-{i}@bench.test>", "headers_json": "{}", "status": OutboxStatus.SENT,
                     "attempts": 1, "next_attempt_at": now, "created_at": now, "sent_at": now}
                    for i in range(start, min(rows, start + batch))])
        if kind == "postgresql":
            with engine.begin() as conn:
                conn.execute(text("ANALYZE"))
        started = time.perf_counter()
        with session_scope(engine) as s:
            done = privacy.erase_address(s, cfg, ADDRESS, never=True, actor="bench")
        seconds = time.perf_counter() - started
        with engine.connect() as conn:
            left = conn.execute(text("SELECT count(*) FROM seat WHERE lower(email) LIKE '%zebulon%'")).scalar()
        engine.dispose()
        assert left == 0 and done.seats == 1
        return {"db": kind, "outbox_rows": rows, "erase_seconds": round(seconds, 3),
                "outbox_rows_scanned_per_second": round(rows / seconds)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--outbox", type=int, default=30_000)
    args = parser.parse_args(argv)
    for kind in args.db:
        print(json.dumps(run(kind, args.outbox)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
