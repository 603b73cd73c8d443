"""Replay page benchmark: the render time of one step of a game's replay (pbem/web/replay.py).

    python -m benchmarks.replay_bench                    # SQLite (temp file), 3 and 5 players
    python -m benchmarks.replay_bench --db postgresql    # a scratch database on 127.0.0.1
    python -m benchmarks.replay_bench --players 2 3 4 5 --rounds 2

For each player count, one game is played to its end by the greedy bot's choice for every seat
(its seats people's, so that their links open the replay), then every step of its replay is
requested in-process (Flask test client) `--rounds` times through the seat's link, after one
warm-up round: "over" is a finished game (its states replayed once per process, then cached),
"over, cold cache" every step with the cache emptied first (the whole game replayed), "live" a
game played to about half the first one's length (a seat's replay: the game replayed to its last
move on each request). Printed: moves, the median and 95th percentile per step, wall-clock and
the process's CPU time (the machine is shared), and the engine replay alone.
Target: a step renders in under 100 ms median on a 2-core machine.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

from benchmarks.common import percentile, scratch_database
from pbem import create_app, links, store
from pbem.db import create_all, session_scope
from pbem.games import bots, records, service
from pbem.models import Game, GameStatus, Seat
from pbem.present.replay import replay_states
from pbem.web import replay as replay_web

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]


def play(app: object, players: int, *, stop_after: int | None = None) -> int:
    """A game of `players` people played by the greedy bot's choices, to its end or `stop_after` moves."""
    cfg = app.config["KORSAR"]  # type: ignore[attr-defined]
    engine = app.extensions["korsar_db"]  # type: ignore[attr-defined]
    with session_scope(engine) as s:
        game_id = service.create_game(s, cfg, [f"{n} <{n.lower()}@example.com>" for n in NAMES[:players]],
                                      seed=17 + players).id
    assert game_id is not None
    played = 0
    while stop_after is None or played < stop_after:
        with session_scope(engine) as s:
            game = s.get(Game, game_id)
            assert game is not None
            if game.status != GameStatus.RUNNING:
                break
            seats = service.seats_of(s, game_id)
            mover = seats[game.to_move or 0]
            move = bots.bot_move(game, mover, store.load_state(game), cfg=cfg)
            service.apply_game_move(s, cfg, game_id, mover.position, move, expected_version=game.version)
        played += 1
    return game_id


def seat_link(app: object, game_id: int) -> str:
    cfg = app.config["KORSAR"]  # type: ignore[attr-defined]
    with session_scope(app.extensions["korsar_db"]) as s:  # type: ignore[attr-defined]
        seat = s.get(Seat, service.seats_of(s, game_id)[0].id)
        assert seat is not None
        return "/g/" + links.sign_seat(cfg, game_id, 0, seat.link_nonce) + "/replay"


def moves_of(app: object, game_id: int) -> int:
    with session_scope(app.extensions["korsar_db"]) as s:  # type: ignore[attr-defined]
        return len(records.moves_of(s, game_id))


Timed = tuple[list[float], list[float]]  # wall-clock ms, CPU ms (the process's: the machine is shared)


def time_steps(client: object, path: str, last: int, rounds: int, *, cold: bool) -> Timed:
    """Per-step render times in ms; `cold`: the states' cache emptied before each request."""
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(rounds):
        for step in range(last + 1):
            if cold:
                replay_web._FINISHED.clear()
            start, start_cpu = time.perf_counter(), time.process_time()
            response = client.get(f"{path}/{step}")  # type: ignore[attr-defined]
            cpu.append((time.process_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
            assert response.status_code == 200, (step, response.status_code)
    return wall, cpu


def line(label: str, timed: Timed) -> str:
    wall, cpu = timed
    return (f"  {label:<24} n={len(wall):<4} wall median {statistics.median(wall):6.1f} ms, "
            f"p95 {percentile(wall, 95):6.1f} ms; CPU median {statistics.median(cpu):6.1f} ms, "
            f"p95 {percentile(cpu, 95):6.1f} ms")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--players", nargs="+", type=int, default=[3, 5])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    for kind in args.db:
        with scratch_database(kind) as url:
            app = create_app({"DATABASE_URL": url, "KORSAR_ENV": "testing", "BOT_DELAY_SECONDS": 0.0})
            create_all(app.extensions["korsar_db"])
            client = app.test_client()
            for players in args.players:
                over = play(app, players)
                last = moves_of(app, over)
                live = play(app, players, stop_after=last // 2)
                with session_scope(app.extensions["korsar_db"]) as s:
                    record = records.export_record(s, over)
                start = time.perf_counter()
                replay_states(record)
                engine_ms = (time.perf_counter() - start) * 1000
                print(f"{kind}, {players} players: {last} moves; the engine replays the whole game in "
                      f"{engine_ms:.1f} ms")
                time_steps(client, seat_link(app, over), last, 1, cold=False)  # warm-up: templates, caches
                warm = time_steps(client, seat_link(app, over), last, args.rounds, cold=False)
                cold = time_steps(client, seat_link(app, over), last, 1, cold=True)
                live_last = moves_of(app, live)
                running = time_steps(client, seat_link(app, live), live_last, args.rounds, cold=False)
                print(line("over (cached states)", warm))
                print(line("over, cold cache", cold))
                print(line(f"live ({live_last} moves)", running))
            app.extensions["korsar_db"].dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
