"""Ratings benchmark: the time a finished game's rating update takes (pbem/games/ratings.py's
finish hook, in the finishing transaction), 2 to 5 players and a team game, and an admin's
exclusion replaying a chain of games.

    python -m benchmarks.ratings_bench                    # SQLite (temp file)
    python -m benchmarks.ratings_bench --db postgresql    # a scratch database on 127.0.0.1
    python -m benchmarks.ratings_bench --games 300 --repeat 200

One finished game per table size is played to its end (its humans' moves by the greedy bot),
then cloned `--games` times with other addresses from a pool of 40 (every clone is rated, so
the ratings table holds a history). Then the hook is timed `--repeat` times on a fresh clone
of each size, each run rolled back (nothing kept; the commit's own cost is not counted), and
the exclusion of the oldest game (which replays every later game sharing a mailbox with it)
is timed the same way. Printed: median and 95th percentile in milliseconds, and openskill's
own `rate` call alone for comparison. Target: the update < 5 ms median (a move costs ~10 ms).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time

from sqlmodel import Session, select

from benchmarks.common import percentile, scratch_database
from pbem.config import Config
from pbem.db import create_all, make_engine, session_scope
from pbem.games import bots, finish, ratings, service
from pbem.games.settings import GameSettings
from pbem.models import Game, GameStatus, Seat, SeatKind, utcnow
from pbem.models_ratings import RatedGame
from pbem.store import load_state

POOL = 40  # distinct mailboxes the clones are dealt from
TABLES = {"2 players": (2, False), "3 players": (3, False), "4 players": (4, False),
          "5 players": (5, False), "4 in teams": (4, True)}


def _play(url: str, cfg: Config, size: int, teams: bool, seed: int) -> int:
    """A game of `size` humans played to its end, not rated (no hook)."""
    engine = make_engine(url)
    players = [f"P{i} <p{i}@bench.test>" for i in range(size)]
    with session_scope(engine) as s:
        game_id = service.create_game(s, cfg, players, GameSettings(teams=teams), seed=seed).id
    assert game_id is not None
    while True:
        with session_scope(engine) as s:
            game, seats = service.lock_game_with_seats(s, game_id)
            if game.status != GameStatus.RUNNING:
                break
            mover = seats[game.to_move or 0]
            move = bots.bot_move(game, mover, load_state(game), cfg=cfg)  # the seat's default bot
        with session_scope(engine) as s:
            service.apply_game_move(s, cfg, game_id, mover.position, move, expected_version=game.version)
    engine.dispose()
    return game_id


def _clone(session: Session, model: Game, seats: list[Seat], rng: random.Random) -> tuple[Game, list[Seat]]:
    """A copy of the finished `model` with addresses drawn from the pool (distinct in a game)."""
    fields = {c.name: getattr(model, c.name) for c in Game.__table__.columns if c.name != "id"}
    game = Game(**{**fields, "finished_at": utcnow()})
    session.add(game)
    session.flush()
    chosen = rng.sample(range(POOL), len(seats))
    copies = []
    for seat, n in zip(seats, chosen):
        copy = Seat(game_id=game.id, position=seat.position, name=f"P{n}", email=f"p{n}@bench.test",
                    kind=SeatKind.HUMAN, team=seat.team, link_nonce=seat.link_nonce)
        session.add(copy)
        copies.append(copy)
    session.flush()
    return game, copies


def _timed(fn) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def run(url: str, games: int, repeat: int) -> dict[str, dict[str, float]]:
    engine = make_engine(url)
    create_all(engine)
    cfg = Config(DATABASE_URL=url, SECRET_KEY="bench", BASE_URL="http://korsar.test",
                 MAIL_FROM="Korsar <korsar@korsar.test>", KORSAR_ENV="testing", BOT_DELAY_SECONDS=0.0)
    hooks = list(finish.HOOKS)
    finish.HOOKS[:] = []  # the models are played unrated; the hook is called by hand below
    try:
        models = {label: _play(url, cfg, size, teams, seed=7 + size) for label, (size, teams) in TABLES.items()}
    finally:
        finish.HOOKS[:] = hooks
    rng = random.Random(1)
    with session_scope(engine) as s:  # a history: `games` rated clones, oldest first
        loaded = {label: (s.get(Game, gid), service.seats_of(s, gid)) for label, gid in models.items()}
        labels = list(TABLES)
        for i in range(games):
            model, seats = loaded[labels[i % len(labels)]]
            assert model is not None
            game, copies = _clone(s, model, seats, rng)
            ratings.rate_finished_game(s, cfg, game, copies, load_state(game), "played")
    results: dict[str, dict[str, float]] = {}
    for label, gid in models.items():
        times = []
        for _ in range(repeat):
            with Session(engine) as s:
                model = s.get(Game, gid)
                assert model is not None
                game, copies = _clone(s, model, service.seats_of(s, gid), rng)
                state = load_state(game)
                times.append(_timed(lambda s=s, game=game, copies=copies, state=state: (  # type: ignore[misc]
                    ratings.rate_finished_game(s, cfg, game, copies, state, "played"), s.flush())))
                s.rollback()
        results[f"update, {label}"] = _summary(times)
    with Session(engine) as s:
        oldest = s.exec(select(RatedGame.game_id).order_by(RatedGame.rated_at)).first()
    times = []
    for _ in range(max(3, repeat // 20)):
        with Session(engine) as s:
            times.append(_timed(lambda: ratings.set_excluded(s, oldest or 0, True, actor="bench")))
            s.rollback()
    results[f"exclusion replay ({games} games, {POOL} mailboxes)"] = _summary(times)
    lineup = ratings.Lineup("individual", tuple(ratings.Side((ratings.Player(i, key=f"k{i}"),), i + 1, i == 0)
                                                for i in range(5)))
    current = {f"k{i}": ratings.new_standing() for i in range(5)}
    results["openskill rate alone, 5 players"] = _summary([_timed(lambda: ratings.rate(lineup, current))
                                                           for _ in range(repeat)])
    engine.dispose()
    return results


def _summary(times: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(times), 3), "p95_ms": round(percentile(times, 95), 3),
            "runs": len(times)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    with scratch_database(args.db) as url:
        results = run(url, args.games, args.repeat)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"ratings ({args.db}):")
        for name, r in results.items():
            print(f"  {name:<48} median {r['median_ms']:8.3f} ms   p95 {r['p95_ms']:8.3f} ms   ({r['runs']} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
