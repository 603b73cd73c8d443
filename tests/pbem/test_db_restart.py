"""A PostgreSQL restart (every server connection killed, as pg_terminate_backend does) costs
no dead process, no lost move and no duplicate: the pool pre-pings, and a move whose commit
failed is retried with the same expected version, so it counts once."""
from __future__ import annotations

import json

import engine
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool
from game_helpers import make_cfg
from sqlmodel import create_engine, select

from pbem.db import is_sqlite, make_engine, read_scope, session_scope
from pbem.games.service import apply_game_move, create_game
from pbem.games.errors import StaleMove
from pbem.games.records import export_record, replay_record
from pbem.store import load_state
from pbem.models import Game, MoveRecord, utcnow


@pytest.fixture
def pg_url(database_url: str) -> str:
    if is_sqlite(database_url):
        pytest.skip("a database restart is a PostgreSQL event (run with --db postgresql)")
    return database_url


def restart_database(url: str) -> int:
    """Kill every other connection to the test database, as a server restart does."""
    admin = create_engine(url, poolclass=NullPool)
    with admin.connect() as conn:
        killed = conn.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar_one()
    admin.dispose()
    return int(killed)


def test_requests_after_a_restart_succeed(app, client, pg_url):
    assert [client.get("/healthz").status_code for _ in range(3)] == [200] * 3
    assert restart_database(pg_url) >= 1
    assert [client.get("/healthz").status_code for _ in range(5)] == [200] * 5


def _play(db, url: str, game_id: int, *, restart_before_commit: bool) -> None:
    """One click on the move link of whoever is to move, retried as a player would after an error."""
    with read_scope(db) as session:
        game = session.get(Game, game_id)
        state, version = load_state(game), game.version
    move = engine.legal_moves(state)[0]
    for attempt in range(3):
        try:
            with session_scope(db) as session:
                apply_game_move(session, make_cfg(url), game_id, state.to_move, move,
                                expected_version=version, now=utcnow())
                if restart_before_commit and attempt == 0:
                    restart_database(url)
            return
        except StaleMove as exc:
            assert exc.already_played
            return
        except DBAPIError as exc:
            assert exc.connection_invalidated
    raise AssertionError("the move never went through")


def test_moves_across_restarts_are_neither_lost_nor_duplicated(pg_url):
    db = make_engine(pg_url)
    with session_scope(db) as session:
        game_id = create_game(session, make_cfg(pg_url), ["Ann <ann@korsar.test>", "Bob <bob@korsar.test>"],
                              seed=11).id
    for click in range(12):
        if click % 4 == 1:
            restart_database(pg_url)  # between two moves: the pool's pre-ping notices
        _play(db, pg_url, game_id, restart_before_commit=click % 4 == 3)
    with read_scope(db) as session:
        game = session.get(Game, game_id)
        numbers = sorted(session.exec(select(MoveRecord.number).where(MoveRecord.game_id == game_id)))
        assert game.version == 12
        assert numbers == list(range(1, 13))
        replayed = replay_record(export_record(session, game_id, live=True))  # the game still runs
        assert engine.state_to_json(replayed) == json.loads(game.state_json)
    db.dispose()


@pytest.mark.parametrize("scheme", ["postgres://", "postgresql://"])
def test_a_paas_style_database_url_connects_with_psycopg(pg_url, scheme):
    url = scheme + pg_url.split("://", 1)[1]
    db = make_engine(url)
    with db.connect() as conn:
        assert conn.execute(text("SELECT 1")).scalar_one() == 1
    assert db.dialect.driver == "psycopg"
    db.dispose()


def test_the_worker_keeps_delivering_after_a_restart(app, smtp_server, pg_url):
    from pbem.worker import run_once

    db = app.extensions["korsar_db"]
    cfg = app.config["KORSAR"]
    for round_ in range(2):
        with session_scope(db) as session:
            create_game(session, cfg, [f"Ann <ann{round_}@korsar.test>", f"Bob <bob{round_}@korsar.test>"],
                        seed=round_)
        if round_:
            assert restart_database(pg_url) >= 1
        report = run_once(app)
        assert all("error" not in job for job in report.values()), report
        assert smtp_server.to(f"ann{round_}@korsar.test") and smtp_server.to(f"bob{round_}@korsar.test")
