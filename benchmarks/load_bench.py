"""Load benchmark: the Procfile's web process (gunicorn, several workers) and simulated players
on 127.0.0.1 playing many games at once, then, in the same run, the bare ceiling of the stack
(one small insert per request, benchmarks/bare_app.py) under the same load.

    python -m benchmarks.load_bench [--db sqlite postgresql] [--players 16] [--seconds 20]

A player follows the real protocol: it opens the move link of its email (GET, the confirmation
page), reads the form and POSTs it. Each player plays its own games (16 players, 8 games each),
so players rarely contend on one game. It reports moves per second, p50/p99 latency of the
move (the POST) and of the whole click (GET + POST), and the ratio to the bare ceiling, also
as server CPU per move against per insert (which other work on the machine does not skew).
By default players click as fast as they can (the server saturated: the ratio is meaningful);
`--think-ms 200` makes them pause like readers (latency at a realistic load).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import engine
import httpx
from sqlmodel import select

from benchmarks.common import gunicorn, percentile, process_tree_cpu, procfile_web_command, scratch_database
from pbem import links
from pbem.config import Config
from pbem.db import make_engine, session_scope
from pbem.games.service import create_game, load_state
from pbem.migrations import upgrade_database
from pbem.models import Game, Seat

SECRET = "bench-secret-key-not-for-production"
FORM_ACTION = re.compile(r'<form method="post"[^>]*action="([^"]+)"')
NAMES = ["Ann", "Bob", "Cid", "Dee"]


@dataclass
class BenchGame:
    """A game as its players know it: their link nonces, and the state their moves lead to."""

    id: int
    nonces: list[str]
    state: Any
    rng: random.Random


@dataclass
class Samples:
    """What the players measured while recording."""

    move_ms: list[float] = field(default_factory=list)   # the POST that plays the move
    click_ms: list[float] = field(default_factory=list)  # GET confirmation + POST
    errors: dict[str, int] = field(default_factory=dict)
    moves: int = 0
    generator_cpu: float = 0.0  # share of one core the load generator used
    server_cpu: float | None = None  # CPU seconds the web processes used while recording

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def make_games(url: str, cfg: Config, count: int) -> list[BenchGame]:
    db = make_engine(url)
    games: list[BenchGame] = []
    with session_scope(db) as session:
        ids = [create_game(session, cfg, [f"{n} <{n.lower()}{i}@bench.test>" for n in NAMES[: 2 + i % 3]],
                           seed=i).id for i in range(count)]
    with session_scope(db) as session:
        for game_id in ids:
            game = session.get(Game, game_id)
            seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).all()
            games.append(BenchGame(game_id, [s.link_nonce for s in seats], load_state(game),
                                   random.Random(game_id)))
    db.dispose()
    return games


async def play(client: httpx.AsyncClient, cfg: Config, games: list[BenchGame], until: float,
               record_after: float, samples: Samples, think_ms: float = 0.0) -> None:
    """One player clicking the move links of its games' emails, one game after the other
    (pausing 0..2 x think_ms between two clicks, as a reader would; 0 = as fast as it can)."""
    turn = 0
    pause = random.Random(id(games))
    while time.perf_counter() < until:
        if think_ms:
            await asyncio.sleep(pause.uniform(0, 2 * think_ms) / 1000)
        live = [g for g in games if not g.state.finished]
        if not live:
            return
        game = live[turn % len(live)]
        turn += 1
        seat = game.state.to_move
        move = game.rng.choice(engine.legal_moves(game.state))
        token = links.sign_move(cfg, game.id, seat, game.nonces[seat], game.state.version, move)
        started = time.perf_counter()
        page = await client.get(f"/m/{token}")
        action = FORM_ACTION.search(page.text) if page.status_code == 200 else None
        if action is None:
            samples.error(f"GET {page.status_code}")
            continue
        posted = time.perf_counter()
        response = await client.post(action.group(1))
        done = time.perf_counter()
        if response.status_code != 303:
            samples.error(f"POST {response.status_code}")
            continue
        game.state, _ = engine.apply_move(game.state, seat, move)
        if started >= record_after:
            samples.moves += 1
            samples.move_ms.append((done - posted) * 1000)
            samples.click_ms.append((done - started) * 1000)


async def ping(client: httpx.AsyncClient, until: float, record_after: float, samples: Samples) -> None:
    while time.perf_counter() < until:
        started = time.perf_counter()
        response = await client.post("/ping")
        done = time.perf_counter()
        if response.status_code != 201:
            samples.error(f"POST {response.status_code}")
        elif started >= record_after:
            samples.moves += 1
            samples.move_ms.append((done - started) * 1000)


async def drive(base: str, players: int, seconds: float, warmup: float, worker) -> tuple[Samples, float]:  # type: ignore[no-untyped-def]
    samples = Samples()
    limits = httpx.Limits(max_connections=players, max_keepalive_connections=players)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:
        start = time.perf_counter()
        until, record_after = start + warmup + seconds, start + warmup
        cpu = time.process_time()
        pid = getattr(base, "pid", None)
        server_cpu = None

        async def measure_server() -> None:
            nonlocal server_cpu
            await asyncio.sleep(max(0.0, record_after - time.perf_counter()))
            before = process_tree_cpu(pid)
            await asyncio.sleep(max(0.0, until - time.perf_counter()))
            server_cpu = process_tree_cpu(pid) - before

        await asyncio.gather(*(worker(i, client, until, record_after, samples) for i in range(players)),
                             *([measure_server()] if pid else []))
        elapsed = time.perf_counter() - record_after
        samples.generator_cpu = (time.process_time() - cpu) / (time.perf_counter() - start)
        samples.server_cpu = server_cpu
    return samples, elapsed


def summary(samples: Samples, elapsed: float) -> dict[str, Any]:
    return {
        "per_second": round(samples.moves / elapsed, 1),
        "count": samples.moves,
        "p50_ms": round(percentile(samples.move_ms, 50), 1),
        "p99_ms": round(percentile(samples.move_ms, 99), 1),
        "click_p50_ms": round(percentile(samples.click_ms, 50), 1) if samples.click_ms else None,
        "click_p99_ms": round(percentile(samples.click_ms, 99), 1) if samples.click_ms else None,
        "errors": samples.errors,
        "load_generator_cpu": round(samples.generator_cpu, 2),
        # Server CPU per completed move (or insert): unlike rates, not inflated by other load.
        "server_cpu_ms_each": (round(samples.server_cpu * 1000 / samples.moves, 2)
                               if samples.server_cpu is not None and samples.moves else None),
    }


def run(kind: str, players: int, seconds: float, games_per_player: int, warmup: float,
        think_ms: float = 0.0, web: str | None = None) -> dict[str, Any]:
    with scratch_database(kind) as url:
        upgrade_database(url)
        env = {"DATABASE_URL": url, "SECRET_KEY": SECRET, "KORSAR_ENV": "production",
               "BASE_URL": "http://127.0.0.1", "DEV_INBOX": "0"}
        cfg = Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1")
        games = make_games(url, cfg, players * games_per_player)
        shares = [games[i::players] for i in range(players)]
        command = web or procfile_web_command()
        with gunicorn(command, env) as base:
            moves, elapsed = asyncio.run(drive(
                base, players, seconds, warmup,
                lambda i, client, until, after, samples: play(client, cfg, shares[i], until, after, samples,
                                                              think_ms)))
        db = make_engine(url)
        from benchmarks.bare_app import metadata
        metadata.create_all(db)
        db.dispose()
        with gunicorn(command.replace("pbem:create_app()", "benchmarks.bare_app:create_app()"), env) as base:
            pings, ping_elapsed = asyncio.run(drive(
                base, players, seconds, warmup,
                lambda i, client, until, after, samples: ping(client, until, after, samples)))
    result = {"db": kind, "players": players, "think_ms": think_ms, "web": command, "moves": summary(moves, elapsed),
              "bare_ceiling": summary(pings, ping_elapsed),
              "load_average": [round(x, 1) for x in os.getloadavg()],  # other work on the machine
              "cpus": os.cpu_count()}
    ceiling = result["bare_ceiling"]["per_second"]
    result["moves_to_ceiling"] = round(result["moves"]["per_second"] / ceiling, 3) if ceiling else None
    move_cpu, ping_cpu = result["moves"]["server_cpu_ms_each"], result["bare_ceiling"]["server_cpu_ms_each"]
    # The same ratio from server CPU per move vs per insert: what it would be on an idle machine.
    result["cpu_moves_to_ceiling"] = round(ping_cpu / move_cpu, 3) if move_cpu and ping_cpu else None
    # A move is two requests (GET the confirmation page, POST it): the request-rate ratio too.
    result["requests_to_ceiling"] = round(2 * result["moves"]["per_second"] / ceiling, 3) if ceiling else None
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--games-per-player", type=int, default=8)
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean pause of a player between two clicks (0: saturate the server)")
    parser.add_argument("--web", help="web command to try instead of the Procfile's (with $PORT)")
    args = parser.parse_args(argv)
    for kind in args.db:
        result = run(kind, args.players, args.seconds, args.games_per_player, args.warmup, args.think_ms,
                     args.web)
        print(json.dumps(result, indent=2))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
