"""Database engines and sessions: SQLite done right for the embedded default, pooled PostgreSQL."""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlmodel import Session, SQLModel, create_engine

from pbem import models, models_analysis, models_mail  # noqa: F401  (registers the tables for create_all)
from pbem import models_ratings  # noqa: F401  (the ratings' tables, for create_all)
from pbem import sqlite
from pbem.sqlite import READ_ONLY_OPTION


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def normalize_url(url: str) -> str:
    """PaaS-style `postgres://` and driverless `postgresql://` URLs use psycopg (version 3)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def make_engine(url: str, **kwargs: object) -> Engine:
    """An engine for `url`. SQLite gets WAL, a busy timeout, queued BEGIN IMMEDIATE writes and
    lock-free reads (read_scope), see pbem/sqlite.py; PostgreSQL a pre-pinged pool."""
    url = normalize_url(url)
    if is_sqlite(url):
        database = make_url(url).database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args=sqlite.connect_args(database), **kwargs)
        sqlite.configure(engine)
        return engine
    # Pre-ping replaces connections a database restart killed, so a restart costs no
    # failed request on an idle pool; the connect timeout turns a dead server into a quick error.
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("pool_size", 5)
    kwargs.setdefault("max_overflow", 10)
    kwargs.setdefault("pool_recycle", 1800)
    kwargs.setdefault("pool_timeout", 10)
    kwargs.setdefault("connect_args", {"connect_timeout": 5})
    return create_engine(url, **kwargs)


def create_all(engine: Engine) -> None:
    SQLModel.metadata.create_all(engine)


@contextmanager
def read_scope(engine: Engine) -> Iterator[Session]:
    """A read-only transaction (pages, health): never blocks on or blocks SQLite writers.

    Nothing is committed: closing the session rolls back (loaded objects stay readable).
    Use session_scope to write.
    """
    with Session(engine.execution_options(**{READ_ONLY_OPTION: True}), expire_on_commit=False) as session:
        yield session


def is_outage(exc: BaseException) -> bool:
    """Whether `exc` says the database is away (down, restarting, no free connection, locked):
    worth trying again later. A data error (a value out of range, a broken constraint) is not."""
    if isinstance(exc, (OperationalError, InterfaceError, PoolTimeout)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """One transaction: commit on success, roll back on any error."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


# ---------------------------------------------------------------- batched writes
_BATCH_KEY = "korsar_batched_writes"


@contextmanager
def batched_writes(session: Session) -> Iterator[None]:
    """Writes made with `write()` inside the block are sent when it ends: one executemany per
    statement, in the order each statement was first used; nothing is sent if the block raises.
    Many rows then cost a few round trips instead of one each (a sweep of 1,000 timeouts).
    Reads inside the block do not see those writes yet."""
    if _BATCH_KEY in session.info:  # inside a batch already: that one sends
        yield
        return
    pending: dict[Any, list[dict[str, Any]]] = {}
    session.info[_BATCH_KEY] = pending
    try:
        yield
    finally:
        del session.info[_BATCH_KEY]
    connection = session.connection()
    for statement, rows in pending.items():
        connection.execute(statement, rows)


def write(session: Session, statement: Any, params: dict[str, Any]) -> Any:
    """Execute `statement` with `params` in the session's transaction now (its result), or at
    the end of the enclosing `batched_writes` block (None)."""
    pending = session.info.get(_BATCH_KEY)
    if pending is None:
        return session.connection().execute(statement, params)
    pending.setdefault(statement, []).append(params)
    return None
