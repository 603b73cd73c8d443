"""Is the time of one move flat? (a) from the first moves of a game to its last ones, and
(b) from 10 games stored to 100,000 games stored (with their seats, moves and emails).

    python -m benchmarks.move_flatness [--db sqlite postgresql] [--stored 100000]

A move is timed as the player's POST of the confirmation form, in process through the Flask
test client (the whole pbem stack, no HTTP), so the figure is the server's own cost. Medians of
wall time, and of this process's CPU time, which other load on the machine does not inflate
(with SQLite it includes the database's work; with PostgreSQL the server's share is not in it).
A game of Korsar has at most about 140 moves (2 players), so (a) compares moves 1-10 with
the last ten moves of two-player games. For (b) two databases, one with 10 games and one with
100,000, take turns in rounds (`--rounds`), so a machine that speeds up or slows down during
the run (a shared host does, by a third within minutes) weighs on both alike.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

import engine
from sqlalchemy import text

from benchmarks.common import scratch_database
from benchmarks.load_bench import FORM_ACTION, SECRET, BenchGame, after_forced_moves, make_games
from pbem import create_app, links
from pbem.config import Config
from pbem.db import make_engine
from pbem.migrations import upgrade_database
from pbem.models import Game, MoveRecord, OutboxMessage, Seat


REFUSED: dict[str, int] = {}


def play_one(client, cfg: Config, game: BenchGame) -> tuple[float, float] | None:  # type: ignore[no-untyped-def]
    """GET the move link, POST the form; the POST's wall and CPU ms (None if refused, and counted)."""
    seat = game.state.to_move
    move = game.rng.choice(engine.legal_moves(game.state))
    token = links.sign_move(cfg, game.id, seat, game.nonces[seat], game.state.version, move)
    page = client.get(f"/m/{token}")
    action = FORM_ACTION.search(page.get_data(as_text=True))
    if action is None:
        REFUSED[f"GET {page.status_code}"] = REFUSED.get(f"GET {page.status_code}", 0) + 1
        return None
    started, cpu = time.perf_counter(), time.process_time()
    response = client.post(action.group(1))
    elapsed = ((time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000)
    if response.status_code != 303:
        REFUSED[f"POST {response.status_code}"] = REFUSED.get(f"POST {response.status_code}", 0) + 1
        return None
    game.state = after_forced_moves(engine.apply_move(game.state, seat, move)[0])
    return elapsed


def by_move_number(url: str, cfg: Config, client, games: int = 12,  # type: ignore[no-untyped-def]
                   rounds: int = 160) -> dict[str, Any]:
    """Median POST time per band of move numbers in two-player games. `games` games are in play
    at once, at phases spread over a whole game (the first is fast-forwarded, unrecorded, by no
    moves, each next one by about 12 more) and one that ends is replaced by a new one; each round
    plays one move in each. So the first and the last moves of games are played side by side,
    all along the run, and a machine that changes speed weighs on every band alike."""
    pool = iter([g for g in make_games(url, cfg, games * 9) if len(g.nonces) == 2])  # 3 a slot
    in_play: list[BenchGame | None] = [next(pool) for _ in range(games)]
    for index, game in enumerate(in_play):
        for _ in range(index * 140 // games):
            if game is not None and not game.state.finished:
                play_one(client, cfg, game)
    times: dict[int, list[tuple[float, float]]] = {}
    for _ in range(rounds):
        for index, game in enumerate(in_play):
            if game is not None and game.state.finished:
                game = in_play[index] = next(pool, None)
            if game is None:  # out of games: the other slots go on
                continue
            number = game.state.version + 1
            ms = play_one(client, cfg, game)
            if ms is not None:
                times.setdefault(number, []).append(ms)
    last = max(times)

    def band(lo: int, hi: int, which: int) -> float:
        return statistics.median(ms[which] for n in range(lo, hi + 1) for ms in times.get(n, []))

    result: dict[str, Any] = {"games": games, "last_move": last}
    for which, unit in ((0, "ms"), (1, "cpu_ms")):
        first, middle, end = band(1, 10, which), band(61, 70, which), band(last - 9, last, which)
        result.update({f"moves_1_10_{unit}": round(first, 2), f"moves_61_70_{unit}": round(middle, 2),
                       f"moves_{last - 9}_{last}_{unit}": round(end, 2),
                       f"last_to_first_{unit}": round(end / first, 3)})
    return result


def median_move_times(sides: dict[str, tuple[str, Any]], cfg: Config, games: int = 10,
                      moves_each: int = 30, rounds: int = 6) -> dict[str, tuple[float, float]]:
    """Median POST (wall ms, CPU ms) of moves in `games` new games on each side (name: (database
    URL, test client)); the sides take turns, `moves_each // rounds` moves a game at a time,
    after one move a game that warms each side up."""
    played = {name: make_games(url, cfg, games) for name, (url, _client) in sides.items()}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for round_ in range(rounds + 1):
        for name, (_url, client) in sides.items():
            for _ in range(1 if round_ == 0 else moves_each // rounds):
                for game in played[name]:
                    ms = None if game.state.finished else play_one(client, cfg, game)
                    if ms is not None and round_ > 0:
                        times[name].append(ms)
    return {name: (statistics.median(t[0] for t in ms), statistics.median(t[1] for t in ms))
            for name, ms in times.items()}


def _columns(model: Any, overrides: dict[str, str], prefix: str) -> tuple[str, str]:
    names = [c.name for c in model.__table__.columns if c.name != "id"]
    quoted = ", ".join(f'"{n}"' for n in names)
    return quoted, ", ".join(overrides.get(n, f'{prefix}."{n}"') for n in names)


def store_games(url: str, total: int) -> float:
    """Clone the first game (its seats, first ten moves, emails with short bodies) until `total` games."""
    db = make_engine(url)
    started = time.perf_counter()
    with db.begin() as conn:
        template, existing = conn.execute(text("SELECT min(id), count(*) FROM game")).one()
        last_real = conn.execute(text("SELECT max(id) FROM game")).scalar_one()
        count = total - existing
        cols, values = _columns(Game, {"status": "'finished'", "deadline_at": "NULL",
                                       "next_reminder_at": "NULL", "bot_due_at": "NULL"}, "t")
        conn.execute(text(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < :count) "
            f"INSERT INTO game ({cols}) SELECT {values} FROM game t, n WHERE t.id = :template"),
            {"count": count, "template": template})
        new = f"g.id > {int(last_real)}"
        cols, values = _columns(Seat, {"game_id": "g.id"}, "s")
        conn.execute(text(f"INSERT INTO seat ({cols}) SELECT {values} FROM game g, seat s "
                          f"WHERE {new} AND s.game_id = :template"), {"template": template})
        cols, values = _columns(MoveRecord, {"game_id": "g.id"}, "m")
        conn.execute(text(f"INSERT INTO move ({cols}) SELECT {values} FROM game g, move m "
                          f"WHERE {new} AND m.game_id = :template AND m.number <= 10"), {"template": template})
        cols, values = _columns(OutboxMessage, {
            "game_id": "g.id", "seat_id": "NULL", "status": "'sent'",
            "message_id": "o.message_id || '-' || CAST(g.id AS VARCHAR(12))",
            "text_body": "substr(o.text_body, 1, 200)", "html_body": "substr(o.html_body, 1, 200)"}, "o")
        conn.execute(text(f"INSERT INTO outbox ({cols}) SELECT {values} FROM game g, outbox o "
                          f"WHERE {new} AND o.game_id = :template"), {"template": template})
    # Then settle the bulk load (statistics, and its WAL written out) so the moves timed next
    # measure a database of that size, not the aftermath of writing it.
    if db.dialect.name == "postgresql":
        with db.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
            conn.execute(text("CHECKPOINT"))
    else:
        with db.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
        raw = db.raw_connection()  # outside any transaction: a checkpoint cannot run inside one
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()
    db.dispose()
    return time.perf_counter() - started


def _app(url: str) -> Any:
    return create_app({"DATABASE_URL": url, "SECRET_KEY": SECRET, "BASE_URL": "http://127.0.0.1",
                       "KORSAR_ENV": "testing"})


def run(kind: str, stored: int, rounds: int = 6) -> dict[str, Any]:
    with scratch_database(kind) as small_url, scratch_database(kind) as big_url:
        apps = {"few": _app(small_url), "many": _app(big_url)}
        cfg = Config(DATABASE_URL=small_url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1")
        for url in (small_url, big_url):
            upgrade_database(url)
        template = make_games(big_url, cfg, 1)[0]  # the game the others are cloned from
        for _ in range(10):
            play_one(apps["many"].test_client(), cfg, template)
        fill_seconds = store_games(big_url, stored)
        measured = median_move_times({"few": (small_url, apps["few"].test_client()),
                                      "many": (big_url, apps["many"].test_client())}, cfg, rounds=rounds)
        few, many = measured["few"], measured["many"]
        bands = by_move_number(small_url, cfg, apps["few"].test_client())
        for app in apps.values():
            app.extensions["korsar_db"].dispose()
    return {"db": kind, "refused_moves": dict(REFUSED), "by_move_number": bands,
            "by_games_stored": {"games_10_ms": round(few[0], 2), f"games_{stored}_ms": round(many[0], 2),
                                "many_to_few": round(many[0] / few[0], 3),
                                "games_10_cpu_ms": round(few[1], 2), f"games_{stored}_cpu_ms": round(many[1], 2),
                                "many_to_few_cpu": round(many[1] / few[1], 3),
                                "fill_seconds": round(fill_seconds, 1)},
            "load_average": [round(x, 1) for x in os.getloadavg()]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--stored", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=6,
                        help="turns the 10-game and the big database take (default 6)")
    args = parser.parse_args(argv)
    for kind in args.db:
        print(json.dumps(run(kind, args.stored, args.rounds), indent=2))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
