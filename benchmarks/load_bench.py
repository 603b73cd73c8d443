"""Load benchmark: the Procfile's web process (gunicorn, several workers) and simulated players
on 127.0.0.1 playing many games at once and, in the same run and taking turns with them in
slices (`--rounds`), the bare ceiling of the stack (one small insert per request,
benchmarks/bare_app.py, served by the same gunicorn command) under the same load.

    python -m benchmarks.load_bench [--db sqlite postgresql] [--protocol post click]
                                    [--players 16] [--seconds 20] [--rounds 4]

Each player plays its own games (16 players, 12 games each), so players rarely contend on one
game. Two protocols of a player, each run on its own games against the same server:
- "post": the player POSTs the signed move link of its email directly (one request a move:
  the load of "players posting moves");
- "click": what a person does: it opens the move link (GET, the confirmation page), reads the
  form and POSTs it (two requests a move).
For each it reports moves per second, p50/p99 latency of the move (the POST) and, for "click",
of the whole click (GET + POST), and the ratio to the bare ceiling, also as server CPU per move
against per insert (which other work on the machine does not skew).
The players run in this one process on aiohttp (about 0.3 ms of CPU a request; httpx took 1.1 ms
and made the generator, not the server, the bare ceiling's limit), on the same 2 cores.
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
from urllib.parse import urlsplit

import aiohttp
import engine
from sqlmodel import select

from benchmarks.common import gunicorn, percentile, process_tree_cpu, procfile_web_command, scratch_database
from pbem import links
from pbem.config import Config
from pbem.db import make_engine, session_scope
from pbem.games.service import create_game
from pbem.store import load_state
from pbem.migrations import upgrade_database
from pbem.models import Game, Seat

# Fixed (load generator and server sign alike) and strong enough for production mode.
SECRET = "bench-kU4pXw9RzT2mQe7LcV0nYh3JdA6sGb8F"
PROTOCOLS = ("post", "click")
# Requests a move takes under each protocol (for the request-rate ratio to the ceiling).
REQUESTS_PER_MOVE = {"post": 1, "click": 2}
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
    elapsed: float = 0.0  # seconds recorded, over every slice
    generator_seconds: tuple[float, float] = (0.0, 0.0)  # (CPU, wall) of the generator, every slice

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def make_games(url: str, cfg: Config, count: int, languages: tuple[str, ...] = ()) -> list[BenchGame]:
    """`count` games of 2 to 4 players; `languages`: the seats' languages, in turn (none: English)."""
    db = make_engine(url)
    games: list[BenchGame] = []

    def spec(n: str, i: int, position: int) -> str:
        tag = f" [{languages[(i + position) % len(languages)]}]" if languages else ""
        return f"{n} <{n.lower()}{i}@bench.test>{tag}"

    with session_scope(db) as session:
        ids = [create_game(session, cfg, [spec(n, i, p) for p, n in enumerate(NAMES[: 2 + i % 3])],
                           seed=i).id for i in range(count)]
    with session_scope(db) as session:
        for game_id in ids:
            game = session.get(Game, game_id)
            seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(Seat.position)).all()
            games.append(BenchGame(game_id, [s.link_nonce for s in seats], load_state(game),
                                   random.Random(game_id)))
    db.dispose()
    return games


def after_forced_moves(state: Any) -> Any:
    """The state the players see next: the service plays each seat's only legal move at once
    (`pbem.games.service.forced_move`, on by default), so the bench's copy does the same."""
    while not state.finished and len(moves := engine.legal_moves(state)) == 1:
        state, _ = engine.apply_move(state, state.to_move, moves[0])
    return state


async def play(client: aiohttp.ClientSession, cfg: Config, games: list[BenchGame], until: float,
               record_after: float, samples: Samples, think_ms: float = 0.0,
               protocol: str = "click") -> None:
    """One player playing the move links of its games' emails, one game after the other
    (pausing 0..2 x think_ms between two moves, as a reader would; 0 = as fast as it can).
    `protocol`: "click" opens the confirmation page and POSTs its form, "post" POSTs the link."""
    turn = 0
    pause = random.Random(id(games))
    while time.perf_counter() < until:
        if think_ms:
            await asyncio.sleep(pause.uniform(0, 2 * think_ms) / 1000)
        live = [g for g in games if not g.state.finished]
        if not live:  # the rate of this run would be too low: say so in its errors
            samples.error("a player ran out of games (use --games-per-player)")
            return
        game = live[turn % len(live)]
        turn += 1
        seat = game.state.to_move
        move = game.rng.choice(engine.legal_moves(game.state))
        token = links.sign_move(cfg, game.id, seat, game.nonces[seat], game.state.version, move)
        started = time.perf_counter()
        if protocol == "click":
            async with client.get(f"/m/{token}") as page:
                body = await page.text()
            action = FORM_ACTION.search(body) if page.status == 200 else None
            if action is None:
                samples.error(f"GET {page.status}")
                continue
            target = action.group(1)
        else:
            target = urlsplit(links.move_url(cfg, token)).path  # the link as the email carries it
        posted = time.perf_counter()
        async with client.post(target, allow_redirects=False) as response:
            await response.read()
        done = time.perf_counter()
        if response.status != 303:
            samples.error(f"POST {response.status}")
            continue
        game.state = after_forced_moves(engine.apply_move(game.state, seat, move)[0])
        if started >= record_after:
            samples.moves += 1
            samples.move_ms.append((done - posted) * 1000)
            if protocol == "click":
                samples.click_ms.append((done - started) * 1000)


async def ping(client: aiohttp.ClientSession, until: float, record_after: float, samples: Samples) -> None:
    while time.perf_counter() < until:
        started = time.perf_counter()
        async with client.post("/ping") as response:
            await response.read()
        done = time.perf_counter()
        if response.status != 201:
            samples.error(f"POST {response.status}")
        elif started >= record_after:
            samples.moves += 1
            samples.move_ms.append((done - started) * 1000)


async def drive(base: str, players: int, seconds: float, warmup: float, worker,  # type: ignore[no-untyped-def]
                samples: Samples) -> None:
    """One slice: `players` workers for `warmup` + `seconds`; adds what they record to `samples`."""
    # aiohttp: about 0.3 ms of client CPU a request against 1.1 ms for httpx, so the load
    # generator (on the same 2 cores) leaves the server its share and the bare ceiling is the
    # server's, not the generator's.
    connector = aiohttp.TCPConnector(limit=players)
    async with aiohttp.ClientSession(base_url=str(base), connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=30)) as client:
        start = time.perf_counter()
        until, record_after = start + warmup + seconds, start + warmup
        cpu = time.process_time()
        pid = getattr(base, "pid", None)

        async def measure_server() -> None:
            await asyncio.sleep(max(0.0, record_after - time.perf_counter()))
            before = process_tree_cpu(pid)  # type: ignore[arg-type]
            await asyncio.sleep(max(0.0, until - time.perf_counter()))
            samples.server_cpu = (samples.server_cpu or 0.0) + process_tree_cpu(pid) - before  # type: ignore[arg-type]

        await asyncio.gather(*(worker(i, client, until, record_after, samples) for i in range(players)),
                             *([measure_server()] if pid else []))
        samples.elapsed += time.perf_counter() - record_after
        gen_cpu, gen_wall = samples.generator_seconds
        samples.generator_seconds = (gen_cpu + time.process_time() - cpu, gen_wall + time.perf_counter() - start)
        samples.generator_cpu = samples.generator_seconds[0] / samples.generator_seconds[1]


def summary(samples: Samples, elapsed: float, *, clicks: bool = False) -> dict[str, Any]:
    """Rate, latency (and, with `clicks`, latency of GET + POST), errors and server CPU."""
    result: dict[str, Any] = {
        "per_second": round(samples.moves / elapsed, 1),
        "count": samples.moves,
        "p50_ms": round(percentile(samples.move_ms, 50), 1),
        "p90_ms": round(percentile(samples.move_ms, 90), 1),
        "p99_ms": round(percentile(samples.move_ms, 99), 1),
        "max_ms": round(max(samples.move_ms, default=0.0), 1),
    }
    if clicks:
        result["click_p50_ms"] = round(percentile(samples.click_ms, 50), 1)
        result["click_p99_ms"] = round(percentile(samples.click_ms, 99), 1)
    return {
        **result,
        "errors": samples.errors,
        "load_generator_cpu": round(samples.generator_cpu, 2),
        # Server CPU per completed move (or insert): unlike rates, not inflated by other load.
        "server_cpu_ms_each": (round(samples.server_cpu * 1000 / samples.moves, 2)
                               if samples.server_cpu is not None and samples.moves else None),
    }


def ratios(moves: dict[str, Any], ceiling: dict[str, Any], requests_per_move: int) -> dict[str, Any]:
    """A protocol's moves against the bare ceiling: throughput, server CPU, and request rate."""
    rate, move_cpu, ping_cpu = ceiling["per_second"], moves["server_cpu_ms_each"], ceiling["server_cpu_ms_each"]
    return {
        "moves_to_ceiling": round(moves["per_second"] / rate, 3) if rate else None,
        # The same ratio from server CPU per move vs per insert: what it would be on an idle machine.
        "cpu_moves_to_ceiling": round(ping_cpu / move_cpu, 3) if move_cpu and ping_cpu else None,
        "requests_to_ceiling": round(requests_per_move * moves["per_second"] / rate, 3) if rate else None,
    }


def run(kind: str, players: int, seconds: float, games_per_player: int, warmup: float,
        think_ms: float = 0.0, web: str | None = None,
        protocols: tuple[str, ...] | list[str] = PROTOCOLS, rounds: int = 4,
        languages: tuple[str, ...] = ()) -> dict[str, Any]:
    """Both servers run side by side; each protocol and the bare ceiling take turns in `rounds`
    slices of `seconds / rounds`, so a machine that speeds up or slows down during the run (a
    shared host does) weighs on both sides of the ratio alike."""
    with scratch_database(kind) as url:
        upgrade_database(url)
        env = {"DATABASE_URL": url, "SECRET_KEY": SECRET, "KORSAR_ENV": "production",
               "BASE_URL": "http://127.0.0.1", "DEV_INBOX": "0"}
        cfg = Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1")
        # Each protocol plays games of its own, all made before the servers start.
        shares: dict[str, list[list[BenchGame]]] = {}
        for protocol in protocols:
            games = make_games(url, cfg, players * games_per_player, languages)
            shares[protocol] = [games[i::players] for i in range(players)]
        db = make_engine(url)
        from benchmarks.bare_app import metadata
        metadata.create_all(db)
        db.dispose()
        command = web or procfile_web_command()
        measured = {protocol: Samples() for protocol in protocols}
        pings = Samples()
        if "pbem:create_app()" not in command:
            raise SystemExit("the web command must serve pbem:create_app() (the ceiling swaps it "
                             "for benchmarks.bare_app:create_app())")
        bare = command.replace("pbem:create_app()", "benchmarks.bare_app:create_app()")
        with gunicorn(command, env) as app_base, gunicorn(bare, env) as bare_base:
            for round_ in range(rounds):
                settle = warmup if round_ == 0 else min(warmup, 0.5)
                for protocol in protocols:
                    asyncio.run(drive(
                        app_base, players, seconds / rounds, settle,
                        lambda i, client, until, after, samples, p=protocol: play(
                            client, cfg, shares[p][i], until, after, samples, think_ms, p),
                        measured[protocol]))
                asyncio.run(drive(
                    bare_base, players, seconds / rounds, settle,
                    lambda i, client, until, after, samples: ping(client, until, after, samples), pings))
    ceiling = summary(pings, pings.elapsed)
    result: dict[str, Any] = {"db": kind, "languages": list(languages) or ["en"], "players": players,
                              "think_ms": think_ms, "web": command, "rounds": rounds}
    for protocol, samples in measured.items():
        moves = summary(samples, samples.elapsed, clicks=protocol == "click")
        result[protocol] = {"moves": moves, **ratios(moves, ceiling, REQUESTS_PER_MOVE[protocol])}
    result.update({"bare_ceiling": ceiling,
                   "load_average": [round(x, 1) for x in os.getloadavg()],  # other work on the machine
                   "cpus": os.cpu_count()})
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--protocol", nargs="+", default=list(PROTOCOLS), choices=PROTOCOLS,
                        help="post: POST the move link directly; click: GET the confirmation page, "
                             "then POST its form (default: both, in that order)")
    parser.add_argument("--players", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="seconds recorded for each protocol and for the ceiling, over every round")
    parser.add_argument("--rounds", type=int, default=4,
                        help="slices in which the protocols and the ceiling take turns")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--games-per-player", type=int, default=12)
    parser.add_argument("--think-ms", type=float, default=0.0,
                        help="mean pause of a player between two clicks (0: saturate the server)")
    parser.add_argument("--web", help="web command to try instead of the Procfile's (with $PORT)")
    parser.add_argument("--languages", nargs="+", default=[], choices=["en", "fr", "vi"],
                        help="the seats' languages, in turn (default: every seat in English)")
    args = parser.parse_args(argv)
    for kind in args.db:
        result = run(kind, args.players, args.seconds, args.games_per_player, args.warmup, args.think_ms,
                     args.web, args.protocol, args.rounds, tuple(args.languages))
        print(json.dumps(result, indent=2))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
