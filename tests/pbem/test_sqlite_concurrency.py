"""SQLite done right: WAL, a busy timeout, writes that begin immediately, readers that never
wait. Several processes (web workers and the mail worker) writing at once see no
"database is locked" and lose no update. Runs on PostgreSQL too (row locks do the work there)."""
from __future__ import annotations

import multiprocessing
import sqlite3
import threading
import uuid
from concurrent.futures import ProcessPoolExecutor

import pytest
from sqlalchemy import func, text
from sqlmodel import select

from pbem.db import create_all, make_engine, read_scope, session_scope
from pbem.models import Game, MoveRecord, OutboxMessage, OutboxStatus, utcnow

WEB_PROCESSES = 4
MOVES_PER_PROCESS = 60


def _new_game(url: str) -> int:
    engine = make_engine(url)
    create_all(engine)  # the fixture's databases have it already; a tmp_path file does not
    with session_scope(engine) as session:
        game = Game(name="race", deck_json="[]", state_json="{}")
        session.add(game)
        session.flush()
        game_id = game.id
    engine.dispose()
    return game_id


def _web_worker(url: str, game_id: int, moves: int) -> list[str]:
    """A gunicorn worker's write pattern: read the game, bump its version, log a move, queue mail."""
    engine = make_engine(url)
    errors: list[str] = []
    for _ in range(moves):
        try:
            with read_scope(engine) as session:  # the page view before the POST
                session.exec(select(Game.version).where(Game.id == game_id)).one()
            with session_scope(engine) as session:
                game = session.exec(select(Game).where(Game.id == game_id).with_for_update()).one()
                game.version += 1
                game.updated_at = utcnow()
                session.add(MoveRecord(game_id=game_id, number=game.version, seat=0, move_json="{}"))
                session.add(OutboxMessage(kind="turn", to_addr="p@example.test", subject="Your turn",
                                          text_body="-", html_body="-", game_id=game_id,
                                          message_id=f"<{uuid.uuid4().hex}@korsar.test>"))
        except Exception as exc:  # noqa: BLE001  (reported to the test, which fails on any)
            errors.append(repr(exc))
    engine.dispose()
    return errors


def _mail_worker(url: str, rounds: int) -> list[str]:
    """The worker process's write pattern: claim pending outbox rows and mark them sent."""
    engine = make_engine(url)
    errors: list[str] = []
    for _ in range(rounds):
        try:
            with session_scope(engine) as session:
                rows = session.exec(select(OutboxMessage)
                                    .where(OutboxMessage.status == OutboxStatus.PENDING)
                                    .limit(5).with_for_update(skip_locked=True)).all()
                for row in rows:
                    row.status = OutboxStatus.SENT
                    row.sent_at = utcnow()
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))
    engine.dispose()
    return errors


def test_writers_in_several_processes_never_see_a_locked_database_nor_lose_a_move(database_url):
    game_id = _new_game(database_url)
    with ProcessPoolExecutor(WEB_PROCESSES + 1, mp_context=multiprocessing.get_context("fork")) as pool:
        futures = [pool.submit(_web_worker, database_url, game_id, MOVES_PER_PROCESS)
                   for _ in range(WEB_PROCESSES)]
        futures.append(pool.submit(_mail_worker, database_url, MOVES_PER_PROCESS))
        errors = [error for future in futures for error in future.result()]
    assert errors == []
    total = WEB_PROCESSES * MOVES_PER_PROCESS
    engine = make_engine(database_url)
    with read_scope(engine) as session:
        assert session.get(Game, game_id).version == total
        numbers = session.exec(select(MoveRecord.number).where(MoveRecord.game_id == game_id)).all()
        assert sorted(numbers) == list(range(1, total + 1))
        assert session.exec(select(func.count()).select_from(OutboxMessage)).one() == total
    engine.dispose()


def test_a_reader_does_not_wait_for_a_writer_holding_the_lock(database_url):
    game_id = _new_game(database_url)
    engine = make_engine(database_url)
    with session_scope(engine) as writer:
        game = writer.exec(select(Game).where(Game.id == game_id).with_for_update()).one()
        game.name = "being changed"
        writer.flush()  # the write lock is held until this block ends
        with read_scope(engine) as reader:
            assert reader.exec(select(Game.name).where(Game.id == game_id)).one() == "race"
    with read_scope(engine) as reader:
        assert reader.exec(select(Game.name).where(Game.id == game_id)).one() == "being changed"
    engine.dispose()


def test_read_scope_never_commits(database_url):
    game_id = _new_game(database_url)
    engine = make_engine(database_url)
    with read_scope(engine) as session:
        session.get(Game, game_id).name = "not saved"
        session.flush()
    with read_scope(engine) as session:
        assert session.get(Game, game_id).name == "race"
    engine.dispose()


def test_sqlite_connections_use_wal_a_busy_timeout_and_foreign_keys(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    with engine.connect() as conn:
        pragma = {name: conn.exec_driver_sql(f"PRAGMA {name}").scalar()
                  for name in ("journal_mode", "busy_timeout", "foreign_keys", "mmap_size")}
    engine.dispose()
    assert pragma == {"journal_mode": "wal", "busy_timeout": 30000, "foreign_keys": 1,
                      "mmap_size": 256 * 1024 * 1024}


@pytest.mark.parametrize("scope, begin", [(session_scope, "BEGIN IMMEDIATE"), (read_scope, "BEGIN")])
def test_writes_begin_immediately_and_reads_do_not(tmp_path, scope, begin):
    from sqlalchemy import event

    engine = make_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *args: statements.append(statement))
    with scope(engine) as session:
        session.exec(text("SELECT 1"))
    engine.dispose()
    assert begin in statements


# ---------------------------------------------------------------- the writers' queue
def _write_name(engine, game_id: int, name: str, hold: threading.Event | None = None,  # type: ignore[no-untyped-def]
                started: threading.Event | None = None) -> None:
    with session_scope(engine) as session:
        session.exec(select(Game).where(Game.id == game_id).with_for_update()).one().name = name
        session.flush()  # the turn and the write lock are held from here
        if started is not None:
            started.set()
        if hold is not None:
            hold.wait(5)


@pytest.mark.parametrize("ending", ["commit", "rollback"])
def test_a_second_writer_waits_in_the_queue_until_the_first_commits_or_rolls_back(tmp_path, ending):
    """The second writer waits on the lock file, not in SQLite's busy handler: it sends its
    BEGIN IMMEDIATE only once the first has ended; then it goes on, never "database is locked"."""
    from sqlalchemy import event

    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    game_id = _new_game(url)
    engine = make_engine(url)
    begins: list[str] = []
    event.listen(engine, "before_cursor_execute",
                 lambda conn, cursor, statement, *args: begins.append(statement) if statement.startswith("BEGIN")
                 else None)
    first_holds, release = threading.Event(), threading.Event()

    def first() -> None:
        try:
            with session_scope(engine) as session:
                session.exec(select(Game).where(Game.id == game_id).with_for_update()).one().name = "first"
                session.flush()  # the turn and the write lock are held from here
                first_holds.set()
                release.wait(5)
                if ending == "rollback":
                    raise RuntimeError("changed my mind")
        except RuntimeError:
            pass

    holder = threading.Thread(target=first)
    holder.start()
    assert first_holds.wait(5)
    second_done = threading.Event()
    second = threading.Thread(target=lambda: (_write_name(engine, game_id, "second"), second_done.set()))
    second.start()
    assert not second_done.wait(0.2), "the second writer must wait for the first"
    assert begins == ["BEGIN IMMEDIATE"], "the second writer must wait before its BEGIN"
    release.set()
    assert second_done.wait(5)
    holder.join(5)
    second.join(5)
    with read_scope(engine) as session:
        assert session.get(Game, game_id).name == "second"
    engine.dispose()


def test_a_thread_already_writing_does_not_wait_on_the_queue_for_itself(tmp_path):
    """A second write connection opened by the thread that holds the turn skips the queue (it
    would wait for itself forever); SQLite's busy timeout answers it, as without the queue."""
    from pbem.sqlite import QueuedWriterConnection, connection_factory

    path = str(tmp_path / "x.sqlite3")
    factory = connection_factory(path)
    assert issubclass(factory, QueuedWriterConnection)
    first, second = (sqlite3.connect(path, factory=factory, isolation_level=None) for _ in range(2))
    first.wait_turn_to_write()
    second.wait_turn_to_write()  # returns at once (queueing would block this thread for good)
    first.rollback()
    second.wait_turn_to_write()  # the turn is free again: this connection takes it
    second.rollback()
    first.close()
    second.close()


def test_readers_never_queue(tmp_path):
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    game_id = _new_game(url)
    engine = make_engine(url)
    release, holding = threading.Event(), threading.Event()
    writer = threading.Thread(target=_write_name, args=(engine, game_id, "w"),
                              kwargs={"hold": release, "started": holding})
    writer.start()
    assert holding.wait(5)
    with read_scope(engine) as session:
        assert session.get(Game, game_id).name == "race"
    assert writer.is_alive(), "the read ended while the writer still held its turn"
    release.set()
    writer.join(5)
    engine.dispose()


@pytest.mark.parametrize("url", ["sqlite://", "sqlite:///file:mem1?mode=memory&uri=true"])
def test_a_database_without_a_file_has_no_queue(url):
    from sqlalchemy.engine import make_url

    from pbem.sqlite import connection_factory

    assert connection_factory(make_url(url).database) is sqlite3.Connection


def test_a_lock_file_that_cannot_be_opened_leaves_writes_to_the_busy_timeout(tmp_path, caplog):
    """Created by another user, say: writes still work (no queue) and a warning says why."""
    url = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    game_id = _new_game(url)
    (tmp_path / "x.sqlite3-writelock").unlink()
    (tmp_path / "x.sqlite3-writelock").mkdir()  # os.open of a directory for writing fails
    engine = make_engine(url)
    _write_name(engine, game_id, "still written")
    _write_name(engine, game_id, "twice")
    with read_scope(engine) as session:
        assert session.get(Game, game_id).name == "twice"
    engine.dispose()
    assert "writers' queue off" in caplog.text
