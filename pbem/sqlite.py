"""SQLite done right for the embedded default: WAL, a busy timeout, memory-mapped reads, write
transactions that begin immediately, and writers that wait their turn in a kernel queue.

Why the queue: SQLite's busy handler polls, sleeping 1, 2, 5, 10... ms between tries, so with
several gunicorn workers a writer often sleeps on after the lock is free. Each write
transaction first takes an exclusive flock on `<database>-writelock`; the kernel wakes the
next writer the moment the last one commits or rolls back. SQLite's own lock still decides
correctness (a writer that does not queue, like the sqlite3 shell, is waited for through the
busy timeout as before); the queue only decides who goes next. Readers never queue.

A queued writer waits without a time limit (gunicorn's 30 s timeout bounds a web request): a
writer must not hold a transaction open while it waits on anything else. If the lock file
cannot be opened (say it was created by another user), writes go on without the queue, on the
busy timeout alone, and a warning says why.
"""
from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import threading
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine

# Execution option marking read_scope's transactions (SQLite begins them without a write lock).
READ_ONLY_OPTION = "korsar_read_only"
BUSY_TIMEOUT_SECONDS = 30
MMAP_BYTES = 256 * 1024 * 1024  # each process maps the file: after another process's commit,
# SQLite drops its page cache, and mapped pages are re-read without a system call each

log = logging.getLogger("pbem.db")
_queue_holder = threading.local()  # the connection through which this thread holds the queue


class QueuedWriterConnection(sqlite3.Connection):
    """A connection whose write transactions wait their turn on the database's lock file."""

    lock_path: str = ""  # set on the per-database subclass (`connection_factory`)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._lock_fd: int | None = None
        self._queued = False

    def wait_turn_to_write(self) -> None:
        """Block until no other queued writer holds its turn; the turn ends with the transaction."""
        holder = getattr(_queue_holder, "connection", None)
        if self._queued or (holder is not None and holder._queued) or not self.lock_path:
            # This thread holds the turn through another connection already (waiting on the
            # queue would wait for itself), or the queue is off: SQLite's busy timeout decides.
            return
        if self._lock_fd is None:
            try:
                self._lock_fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o660)
            except OSError as exc:
                log.warning("SQLite writers' queue off for this connection (%s: %s); "
                            "writes wait on SQLite's busy timeout", self.lock_path, exc.strerror)
                self.lock_path = ""
                return
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
        self._queued = True
        _queue_holder.connection = self

    def _end_turn(self) -> None:
        if self._queued:
            self._queued = False
            if getattr(_queue_holder, "connection", None) is self:
                _queue_holder.connection = None
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)  # type: ignore[arg-type]  # queued: the lock file is open

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            self._end_turn()

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            self._end_turn()

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._end_turn()
            if self._lock_fd is not None:
                os.close(self._lock_fd)
                self._lock_fd = None


def connection_factory(database: str | None) -> type[sqlite3.Connection]:
    """The sqlite3 connection class for `database`: queued writers for a file, plain otherwise
    (an in-memory database has one connection; a URI names no file we can lock beside)."""
    if not database or database == ":memory:" or database.startswith("file:"):
        return sqlite3.Connection
    lock_path = os.path.abspath(database) + "-writelock"
    return type("QueuedWriter", (QueuedWriterConnection,), {"lock_path": lock_path})


def connect_args(database: str | None) -> dict[str, Any]:
    # pysqlite's own transaction handling is off (isolation_level=None) so that every write
    # transaction starts with BEGIN IMMEDIATE: writers queue instead of failing with
    # "database is locked" when they upgrade a read lock.
    return {"check_same_thread": False, "timeout": BUSY_TIMEOUT_SECONDS, "isolation_level": None,
            "factory": connection_factory(database)}


def configure(engine: Engine) -> None:
    """Pragmas on every new connection; BEGIN IMMEDIATE (after the queue) for writes."""

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: sqlite3.Connection, _record: object) -> None:
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_SECONDS * 1000}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute(f"PRAGMA mmap_size={MMAP_BYTES}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # Readers (read_scope) take no write lock: in WAL mode they never wait for writers.
        if conn.get_execution_options().get(READ_ONLY_OPTION):
            conn.exec_driver_sql("BEGIN")
            return
        dbapi_conn = conn.connection.dbapi_connection
        if isinstance(dbapi_conn, QueuedWriterConnection):
            dbapi_conn.wait_turn_to_write()
        conn.exec_driver_sql("BEGIN IMMEDIATE")
