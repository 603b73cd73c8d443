"""Shared fixtures: a database per test (SQLite file, or PostgreSQL with --db postgresql),
the Flask app and client, and a real SMTP server on 127.0.0.1 that records what it receives."""
from __future__ import annotations

import email
import email.policy
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from benchmarks.common import free_port

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def pytest_configure(config: pytest.Config) -> None:
    # What create_app does at start-up: tests that deliver without an app need the game side's
    # writers of the emails written at delivery too.
    from pbem.letters.deferred import register_writers
    from pbem.games.proposals import register_writers as register_invitation_writers

    register_writers()
    register_invitation_writers()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--db", default="sqlite", choices=["sqlite", "postgresql"],
                     help="database backend for the tests marked db")
    parser.addoption("--pg-url", default=DEFAULT_PG_URL, help="PostgreSQL server to use")


# ---------------------------------------------------------------- database
@pytest.fixture(scope="session")
def pg_database(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """A fresh PostgreSQL database for this test session, dropped at the end."""
    if request.config.getoption("--db") != "postgresql":
        yield None
        return
    server_url = request.config.getoption("--pg-url")
    try:
        admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"PostgreSQL does not answer at {server_url}: {exc.__class__.__name__}")
    name = f"korsar_test_{uuid.uuid4().hex[:10]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
        if os.environ.get("KORSAR_PG_SYNCHRONOUS_COMMIT") != "on":
            # A test database need not survive a crash of the server: its commits return without
            # waiting for the disk (the same answers, the same locks and conflicts; only the
            # flush is deferred). The tests commit often, so the run waits much less.
            conn.execute(text(f'ALTER DATABASE "{name}" SET synchronous_commit = off'))
    yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file built once by the Alembic migrations, as production builds it; each test
    gets a copy. If the models have changed without a migration, create_all builds it instead
    (with a warning) and tests/pbem/test_migrations.py fails to say so."""
    import warnings

    from pbem.db import create_all, make_engine
    from pbem.migrations import SchemaMismatch, upgrade_database

    path = tmp_path_factory.mktemp("template") / "template.sqlite3"
    try:
        upgrade_database(f"sqlite:///{path}")
    except SchemaMismatch as exc:
        warnings.warn(f"tests use create_all: {exc}", stacklevel=1)
        for stale in path.parent.glob("template.sqlite3*"):
            stale.unlink()
        engine = make_engine(f"sqlite:///{path}")
        create_all(engine)
        engine.dispose()  # the last connection checkpoints the WAL into the file
    return path


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path, pg_database) -> Iterator[str]:
    """An empty database with the current schema, for one test."""
    from pbem.db import create_all, make_engine
    from sqlmodel import SQLModel

    if not pg_database:
        target = tmp_path / "test.sqlite3"
        shutil.copyfile(request.getfixturevalue("sqlite_template"), target)
        yield f"sqlite:///{target}"
        return
    engine = make_engine(pg_database)
    try:
        # Emptying the tables (_empty_tables) is much cheaper than drop_all + create_all
        # (~700 ms a test); a test that changed the schema (migrations) leaves another
        # fingerprint, and the next test gets the schema built anew.
        if _PG_SCHEMA.get(pg_database) == _schema_fingerprint(engine):
            _empty_tables(engine)
        else:
            SQLModel.metadata.drop_all(engine)
            create_all(engine)
            _PG_SCHEMA[pg_database] = _schema_fingerprint(engine)
    finally:
        engine.dispose()
    yield pg_database


_PG_SCHEMA: dict[str, tuple] = {}


def _schema_fingerprint(engine) -> tuple:
    """Every table, column, type, default, constraint and index of the public schema."""
    queries = (
        "select table_name, column_name, data_type, is_nullable, coalesce(column_default, '')"
        " from information_schema.columns where table_schema = 'public'",
        "select tablename, indexname, indexdef from pg_indexes where schemaname = 'public'",
        "select conrelid::regclass::text, conname, pg_get_constraintdef(oid) from pg_constraint"
        " where connamespace = 'public'::regnamespace",
    )
    with engine.connect() as conn:
        return tuple(tuple(sorted(tuple(r) for r in conn.execute(text(q)))) for q in queries)


def _empty_tables(engine) -> None:
    """Every row deleted, children first, and every sequence back at 1. DELETE, not TRUNCATE:
    on tables of a few rows, TRUNCATE ... CASCADE of the 24 tables took 365 to 550 ms a test
    here (it gives every table new files), DELETE and setval 16 to 34 ms."""
    from sqlmodel import SQLModel

    with engine.begin() as conn:
        for table in reversed(SQLModel.metadata.sorted_tables):
            conn.execute(table.delete())
        conn.execute(text("select setval(c.oid, 1, false) from pg_class c"
                          " where c.relkind = 'S' and c.relnamespace = 'public'::regnamespace"))


def pytest_runtest_setup(item: pytest.Item) -> None:
    # A test marked `judges("what")` judges something the database cannot change (how text
    # reads in a language, how a page renders, how a reply is read): its database path runs on
    # PostgreSQL in the tests that exercise it, so the PostgreSQL run skips it.
    marker = item.get_closest_marker("judges")
    if marker is not None and item.config.getoption("--db") == "postgresql":
        pytest.skip(f"it judges {marker.args[0]}, the same on either database: run on SQLite only")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Any test that uses the database is marked `db`, so `-m db --db postgresql` reruns them all.
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)


@pytest.fixture
def engine(database_url: str):
    """The test database's SQLAlchemy engine (tests that work below the Flask app)."""
    from pbem.db import make_engine

    engine = make_engine(database_url)
    yield engine
    engine.dispose()


# ---------------------------------------------------------------- SMTP
@dataclass
class SmtpRecorder:
    """What a real aiosmtpd server on 127.0.0.1 received."""

    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    raw: list[bytes] = field(default_factory=list)  # the DATA exactly as received
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m, (_, rcpts) in zip(self.messages, self.envelopes) if address in rcpts]


class _RecordingHandler:
    def __init__(self, recorder: SmtpRecorder) -> None:
        self.recorder = recorder

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        data = envelope.original_content or envelope.content
        msg = email.message_from_bytes(data, policy=email.policy.default)
        with self.recorder.lock:
            self.recorder.messages.append(msg)  # type: ignore[arg-type]
            self.recorder.raw.append(data)
            self.recorder.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return "250 Message accepted for delivery"


@pytest.fixture
def smtp_server() -> Iterator[SmtpRecorder]:
    from aiosmtpd.controller import Controller

    recorder = SmtpRecorder(host="127.0.0.1", port=free_port())
    controller = Controller(_RecordingHandler(recorder), hostname=recorder.host, port=recorder.port)
    controller.start()
    try:
        yield recorder
    finally:
        controller.stop()


# ---------------------------------------------------------------- app
@pytest.fixture
def app_config(database_url: str, smtp_server: SmtpRecorder) -> dict:
    return {
        "DATABASE_URL": database_url,
        "SECRET_KEY": "test-secret",
        "BASE_URL": "http://korsar.test",
        "SMTP_HOST": smtp_server.host,
        "SMTP_PORT": smtp_server.port,
        "MAIL_FROM": "Korsar <korsar@korsar.test>",
        "KORSAR_ENV": "testing",
        "WORKER_POLL_SECONDS": 0.05,
        "BOT_DELAY_SECONDS": 0.0,
    }


@pytest.fixture
def app(app_config: dict):
    from pbem import create_app

    app = create_app(app_config)
    app.config["TESTING"] = True
    yield app
    app.extensions["korsar_db"].dispose()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def runner(app):
    return app.test_cli_runner()
