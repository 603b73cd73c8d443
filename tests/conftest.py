"""Shared fixtures: a database per test (SQLite file, or PostgreSQL with --db postgresql),
the Flask app and client, and a real SMTP server on 127.0.0.1 that records what it receives."""
from __future__ import annotations

import email
import email.policy
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--db", default="sqlite", choices=["sqlite", "postgresql"],
                     help="database backend for the tests marked db")
    parser.addoption("--pg-url", default=DEFAULT_PG_URL, help="PostgreSQL server to use")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
    yield make_url(server_url).set(database=name).render_as_string(hide_password=False)
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path, pg_database) -> Iterator[str]:
    """An empty database with the current schema, for one test."""
    from pbem.db import create_all, make_engine
    from sqlmodel import SQLModel

    url = pg_database or f"sqlite:///{tmp_path / 'test.sqlite3'}"
    engine = make_engine(url)
    if pg_database:
        SQLModel.metadata.drop_all(engine)
    create_all(engine)
    engine.dispose()
    yield url


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Any test that uses the database is marked `db`, so `-m db --db postgresql` reruns them all.
    for item in items:
        if "database_url" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.db)


# ---------------------------------------------------------------- SMTP
@dataclass
class SmtpRecorder:
    """What a real aiosmtpd server on 127.0.0.1 received."""

    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    envelopes: list[tuple[str, list[str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for m, (_, rcpts) in zip(self.messages, self.envelopes) if address in rcpts]


class _RecordingHandler:
    def __init__(self, recorder: SmtpRecorder) -> None:
        self.recorder = recorder

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        msg = email.message_from_bytes(envelope.original_content or envelope.content,
                                       policy=email.policy.default)
        with self.recorder.lock:
            self.recorder.messages.append(msg)  # type: ignore[arg-type]
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
