"""A game moves its players' ratings once, however many workers finish it at the same moment,
and two games of one mailbox finishing together both count (no lost update): the `rated_game`
claim and the ratings' lock serialize them. Runs on SQLite and PostgreSQL (`-m db --db postgresql`)."""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import engine
import pytest
from game_helpers import make_cfg
from openskill.models import PlackettLuce
from sqlmodel import select

from pbem.db import make_engine, read_scope, session_scope
from pbem.games import bots, finish, ratings, service
from pbem.models import Game, GameStatus
from pbem.models_ratings import RatedGame, Rating, RatingChange
from pbem.store import load_state

RACERS = 4
ANN, BOB, CAT = "Ann <ann@korsar.test>", "Bob <bob@korsar.test>", "Cat <cat@korsar.test>"


def _finished_game(url: str, players: list[str], seed: int) -> int:
    """A game played to its end with no finish hook: nobody rated it yet."""
    db = make_engine(url)
    cfg = make_cfg(url)
    with session_scope(db) as session:
        game_id = service.create_game(session, cfg, players, seed=seed).id
    assert game_id is not None
    while True:
        with session_scope(db) as session:
            game, seats = service.lock_game_with_seats(session, game_id)
            if game.status != GameStatus.RUNNING:
                break
            mover = seats[game.to_move or 0]
            move = bots.bot_move(game, mover, load_state(game), cfg=cfg)
        with session_scope(db) as session:
            service.apply_game_move(session, cfg, game_id, mover.position, move, expected_version=game.version)
    db.dispose()
    return game_id


def _finish_hook(url: str, game_id: int) -> str:
    """What a second worker finishing the game would do: the ratings' hook, in its own transaction."""
    db = make_engine(url)
    try:
        with session_scope(db) as session:
            game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
            assert game is not None
            ratings.rate_finished_game(session, make_cfg(url), game, seats, load_state(game), "played")
        return "ok"
    except Exception as exc:  # noqa: BLE001  (any error fails the test)
        return repr(exc)
    finally:
        db.dispose()


@pytest.fixture
def unhooked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(finish, "HOOKS", [])


def test_two_workers_finishing_one_game_rate_it_once(database_url, unhooked):
    game_id = _finished_game(database_url, [ANN, BOB], seed=5)
    with ProcessPoolExecutor(RACERS, mp_context=multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(_finish_hook, [database_url] * RACERS, [game_id] * RACERS))
    assert results == ["ok"] * RACERS
    db = make_engine(database_url)
    with read_scope(db) as session:
        assert len(session.exec(select(RatedGame)).all()) == 1
        assert sorted(c.key for c in session.exec(select(RatingChange)).all()) == ["ann@korsar.test", "bob@korsar.test"]
        assert {r.key: r.games for r in session.exec(select(Rating)).all()} == {"ann@korsar.test": 1,
                                                                               "bob@korsar.test": 1}
    db.dispose()


def test_two_games_of_one_mailbox_finishing_together_both_count(database_url, unhooked):
    first = _finished_game(database_url, [ANN, BOB], seed=5)
    second = _finished_game(database_url, [ANN, CAT], seed=6)
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        results = list(pool.map(_finish_hook, [database_url] * 2, [first, second]))
    assert results == ["ok", "ok"]
    db = make_engine(database_url)
    with read_scope(db) as session:
        ann = session.get(Rating, ("ann@korsar.test", "individual"))
        assert ann is not None and ann.games == 2
        # Whichever went first, Ann's rating is both games applied in that order (openskill's own).
        order = [c.game_id for c in session.exec(select(RatingChange).where(RatingChange.key == "ann@korsar.test")
                                                  .order_by(RatingChange.id)).all()]
        model = PlackettLuce()
        mine = model.rating()
        for game_id in order:
            state = load_state(session.get(Game, game_id))
            scores = engine.scores(state)
            ranks = [1 + sum(o > v for o in scores) for v in scores]
            [[mine], _other] = model.rate([[mine], [model.rating()]], ranks=ranks)
        assert (ann.mu, ann.sigma) == pytest.approx((mine.mu, mine.sigma))
    db.dispose()
