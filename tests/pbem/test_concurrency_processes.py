"""End to end with real processes: the Procfile's web process (gunicorn, 3 workers) takes
moves from simulated players while the worker process delivers their email, all writing the
same database at once. No "database is locked", no 5xx, every posted move stored once, every
email delivered. SQLite and PostgreSQL."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy import func
from sqlmodel import col, select

from benchmarks.common import ROOT, gunicorn, procfile_web_command
from benchmarks.load_bench import SECRET, Samples, drive, make_games, play
from pbem.config import Config
from pbem.db import make_engine, read_scope
from pbem.models import MoveRecord, OutboxMessage, OutboxStatus

pytestmark = pytest.mark.slow
PLAYERS = 6


def _env(database_url: str, smtp_server) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {"DATABASE_URL": database_url, "SECRET_KEY": SECRET, "KORSAR_ENV": "production",
            "BASE_URL": "http://127.0.0.1", "DEV_INBOX": "0", "WEB_CONCURRENCY": "3",
            "SMTP_HOST": smtp_server.host, "SMTP_PORT": str(smtp_server.port),
            "WORKER_POLL_SECONDS": "0.1", "MAIL_FROM": "Korsar <korsar@korsar.test>"}


def test_web_workers_and_the_mail_worker_write_at_once_without_a_locked_database(
        database_url, smtp_server, tmp_path: Path):
    cfg = Config(DATABASE_URL=database_url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1")
    games = make_games(database_url, cfg, PLAYERS * 2)
    shares = [games[i::PLAYERS] for i in range(PLAYERS)]
    env = _env(database_url, smtp_server)
    worker_log = tmp_path / "worker.log"
    with open(worker_log, "wb") as log:
        worker = subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", "worker"], cwd=ROOT,
                                  env={**os.environ, **env}, stdout=log, stderr=log, start_new_session=True)
    try:
        with gunicorn(procfile_web_command(), env, log_path=tmp_path / "web.log") as base:
            samples = Samples()
            asyncio.run(drive(
                base, PLAYERS, seconds=4.0, warmup=0.0,
                worker=lambda i, client, until, after, s: play(client, cfg, shares[i], until, after, s),
                samples=samples))
        db = make_engine(database_url)
        deadline = time.monotonic() + 180  # a loaded machine is slow: the loop ends when it is done
        while time.monotonic() < deadline:  # the worker drains what the last moves queued
            with read_scope(db) as session:
                waiting = session.exec(select(func.count()).select_from(OutboxMessage)
                                       .where(col(OutboxMessage.status).not_in(
                                           [OutboxStatus.SENT, OutboxStatus.CANCELLED]))).one()
            if waiting == 0:
                break
            time.sleep(0.2)
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
    logs = (tmp_path / "web.log").read_text() + worker_log.read_text()
    assert "database is locked" not in logs
    assert samples.errors == {}
    assert samples.moves > PLAYERS
    with read_scope(db) as session:
        # Each seat's only legal move is played for it at once ("forced"): not a POST of the bench.
        assert session.exec(select(func.count()).select_from(MoveRecord)
                            .where(MoveRecord.source != "forced")).one() == samples.moves
        sent = session.exec(select(func.count()).select_from(OutboxMessage)
                            .where(OutboxMessage.status == OutboxStatus.SENT)).one()
        total = session.exec(select(func.count()).select_from(OutboxMessage)).one()
        # Turn emails are written at delivery: one whose turn was already played is cancelled.
        cancelled_kinds = set(session.exec(select(OutboxMessage.kind).where(
            OutboxMessage.status == OutboxStatus.CANCELLED)))
        cancelled = session.exec(select(func.count()).select_from(OutboxMessage)
                                 .where(OutboxMessage.status == OutboxStatus.CANCELLED)).one()
    db.dispose()
    assert sent == len(smtp_server.messages)
    assert sent + cancelled == total
    assert cancelled_kinds <= {"turn"}
