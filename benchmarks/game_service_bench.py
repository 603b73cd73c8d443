"""What the game service itself costs, in process (no HTTP, no SMTP): creating a game, one move
through the service (lock, engine, snapshot, move record, turn email rendered and queued), one
turn email rendered, and one player click through the Flask app (GET confirmation + POST).

    python -m benchmarks.game_service_bench [--db sqlite postgresql] [--games 20]

Each game is two humans playing until the end, always the last legal move (deterministic).
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time

import engine

from benchmarks.common import percentile, scratch_database
from pbem import create_app, links
from pbem.config import Config
from pbem.db import create_all, make_engine, session_scope
from pbem.games import service
from pbem import store
from pbem.letters import notify
from pbem.mail.render import render_email
from pbem.models import Game

PLAYERS = ["Ann <ann@example.com>", "Bob <bob@example.com>"]


def _ms(values: list[float]) -> str:
    return (f"mean {statistics.mean(values) * 1000:.2f} ms, p50 {percentile(values, 50) * 1000:.2f} ms, "
            f"p99 {percentile(values, 99) * 1000:.2f} ms (n={len(values)})")


def bench(url: str, games: int) -> None:
    cfg = Config(DATABASE_URL=url, SECRET_KEY="bench", BASE_URL="http://korsar.test", KORSAR_ENV="testing")
    db = make_engine(url)
    create_all(db)
    creates, moves, renders = [], [], []
    for seed in range(games):
        t = time.perf_counter()
        with session_scope(db) as s:
            game_id = service.create_game(s, cfg, PLAYERS, seed=seed).id
        creates.append(time.perf_counter() - t)
        while True:
            with session_scope(db) as s:
                game = s.get(Game, game_id)
                if game.status != "running":
                    break
                state = store.load_state(game)
                move, position, version = engine.legal_moves(state)[-1], game.to_move, game.version
            t = time.perf_counter()
            with session_scope(db) as s:
                service.apply_game_move(s, cfg, game_id, position, move, expected_version=version)
            moves.append(time.perf_counter() - t)
        with session_scope(db) as s:  # one turn email of a finished game's last position
            game = s.get(Game, game_id)
            seat = service.seats_of(s, game_id)[0]
            t = time.perf_counter()
            context = notify.seat_context(s, cfg, game, seat, store.load_state(game))
            render_email("turn", "ann@example.com", context)
            renders.append(time.perf_counter() - t)
    print(f"   create_game (2 players, 3 emails queued): {_ms(creates)}")
    print(f"   apply_game_move (incl. turn email):       {_ms(moves)}")
    print(f"   turn email context + render:              {_ms(renders)}")

    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "bench", "BASE_URL": "http://korsar.test",
                      "KORSAR_ENV": "testing"})
    client = app.test_client()
    with session_scope(db) as s:
        game_id = service.create_game(s, cfg, PLAYERS, seed=999).id
    gets, posts = [], []
    while True:
        with session_scope(db) as s:
            game = s.get(Game, game_id)
            if game.status != "running":
                break
            seat = service.seats_of(s, game_id)[game.to_move]
            move = engine.legal_moves(store.load_state(game))[-1]
            token = links.sign_move(cfg, game_id, seat.position, seat.link_nonce, game.version, move)
        t = time.perf_counter()
        assert client.get(f"/m/{token}").status_code == 200
        gets.append(time.perf_counter() - t)
        t = time.perf_counter()
        assert client.post(f"/m/{token}").status_code == 303
        posts.append(time.perf_counter() - t)
    print(f"   GET /m/<token> confirmation page:         {_ms(gets)}")
    print(f"   POST /m/<token> (the move):               {_ms(posts)}")
    app.extensions["korsar_db"].dispose()
    db.dispose()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--games", type=int, default=20)
    args = parser.parse_args(argv)
    for kind in args.db:
        print(f"{kind}:")
        with scratch_database(kind) as url:
            bench(url, args.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
