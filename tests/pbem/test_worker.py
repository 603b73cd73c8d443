"""The worker: run_once, the `flask --app pbem worker` process, graceful stop, and a worker
killed in the middle of a batch."""
from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from datetime import timedelta

import pytest
from smtp_fakes import ScriptedSmtp, queue_emails
from game_helpers import outbox
from sqlmodel import update

from pbem.db import session_scope
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.worker import run_once


def worker_env(database_url: str, smtp_port: int, **more: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(DATABASE_URL=database_url, SMTP_HOST="127.0.0.1", SMTP_PORT=str(smtp_port),
               SMTP_TLS="none", KORSAR_ENV="testing", SECRET_KEY="test-secret",
               BASE_URL="http://korsar.test", MAIL_FROM="Korsar <korsar@korsar.test>",
               WORKER_POLL_SECONDS="0.1", SMTP_TIMEOUT="15", PYTHONUNBUFFERED="1", **more)
    return env


def start_worker(database_url: str, smtp_port: int, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", "worker", *args],
                            env=worker_env(database_url, smtp_port), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def wait_for(condition, timeout: float = 180.0) -> None:
    """Poll until `condition` holds: generous, as a loaded machine (8 test processes on 2 cores)
    may take a minute to start a worker; a passing run waits only as long as it needs."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the worker")
        time.sleep(0.05)


def test_run_once_delivers_what_is_queued(app, smtp_server):
    queue_emails(app.extensions["korsar_db"], 3)
    result = run_once(app)
    assert result["deliver"]["sent"] == 3
    assert sorted(m["Subject"] for m in smtp_server.messages) == ["Mail 0", "Mail 1", "Mail 2"]


def test_a_backlog_drains_in_small_claims_over_one_smtp_connection(engine, database_url, monkeypatch):
    import pbem.mail.delivery as delivery
    import pbem.worker as worker
    from smtp_fakes import mail_config

    assert worker.BATCH_SIZE <= 10  # a dead worker strands at most this many emails for a lease
    claims: list[int] = []
    real_claim = delivery.claim_due

    def counting_claim(*args, **kwargs):  # type: ignore[no-untyped-def]
        rows, reclaimed = real_claim(*args, **kwargs)
        claims.append(len(rows))
        return rows, reclaimed

    monkeypatch.setattr(delivery, "claim_due", counting_claim)
    server = ScriptedSmtp().start()
    try:
        queue_emails(engine, 25, created_at=utcnow() - timedelta(minutes=1))
        result = worker.run_job("deliver", engine, mail_config(database_url, server.port))
        assert result["sent"] == 25
        assert claims == [10, 10, 5]  # the loop went on while the batches came back full
        assert server.connections == 1  # one connection for the whole run, not one per batch
    finally:
        server.stop()


def test_worker_once_command_delivers_and_exits(runner, app, smtp_server):
    queue_emails(app.extensions["korsar_db"], 2)
    result = runner.invoke(args=["worker", "--once"])
    assert result.exit_code == 0, result.output
    assert len(smtp_server.messages) == 2


def test_a_failing_job_is_logged_and_the_others_still_run(app, smtp_server, monkeypatch, caplog):
    import pbem.worker as worker

    def broken(*args, **kwargs):
        raise RuntimeError("bot exploded")

    monkeypatch.setattr(worker, "play_due_bots", broken)
    queue_emails(app.extensions["korsar_db"], 1)
    with caplog.at_level(logging.INFO, logger="pbem"):
        result = run_once(app)
    assert result["bots"] == {"job": "bots", "error": "RuntimeError"}
    assert result["deliver"]["sent"] == 1
    [error] = [r for r in caplog.records if getattr(r, "fields", {}).get("event") == "job_error"]
    assert error.fields["job"] == "bots"


def test_job_log_lines_carry_counts_and_ids_never_bodies(app, smtp_server, caplog):
    engine = app.extensions["korsar_db"]
    queue_emails(engine, 1)
    with session_scope(engine) as session:
        session.exec(update(OutboxMessage).values(text_body="SECRET-HAND Blue 3", html_body="SECRET-HAND"))
    with caplog.at_level(logging.DEBUG, logger="pbem"):
        run_once(app)
    deliver = [r.fields for r in caplog.records if getattr(r, "fields", {}).get("job") == "deliver"]
    assert deliver and deliver[0]["sent"] == 1
    assert "SECRET-HAND" not in caplog.text
    assert all("SECRET-HAND" not in str(getattr(r, "fields", "")) for r in caplog.records)


@pytest.mark.slow
def test_worker_process_delivers_and_stops_gracefully_on_sigterm(engine, database_url, smtp_server):
    queue_emails(engine, 3)
    worker = start_worker(database_url, smtp_server.port)
    try:
        wait_for(lambda: len(smtp_server.messages) == 3)
        queue_emails(engine, 1, to="late@example.test")  # picked up by a later poll
        wait_for(lambda: len(smtp_server.to("late@example.test")) == 1)
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
    assert worker.returncode == 0, output
    assert '"worker_stopping"' in output and '"worker_stopped"' in output
    assert len(smtp_server.messages) == 4


@pytest.mark.slow
def test_a_worker_killed_mid_batch_then_restarted_delivers_every_email_once(engine, database_url):
    # The server stalls before answering the 4th DATA: the kill lands before any 250 for it,
    # outside the documented 250-then-crash window.
    server = ScriptedSmtp(stall_on=lambda msg: msg["Subject"] == "Mail 3", stall_seconds=30).start()
    ids = queue_emails(engine, 10)
    try:
        worker = start_worker(database_url, server.port)
        try:
            assert server.stalled.wait(180), "the worker never reached the 4th email"
            worker.send_signal(signal.SIGKILL)
            worker.wait(60)
        finally:
            if worker.poll() is None:
                worker.kill()
        rows = outbox(engine)
        assert [r.status for r in rows[:3]] == [OutboxStatus.SENT] * 3
        assert {r.status for r in rows[3:]} == {OutboxStatus.SENDING}  # leased to the dead worker
        server.stall_on = lambda msg: False
        server.release.set()

        # The lease runs out (we move it to the past rather than wait 5 minutes).
        with session_scope(engine) as session:
            session.exec(update(OutboxMessage).where(OutboxMessage.status == OutboxStatus.SENDING)
                         .values(claimed_until=utcnow() - timedelta(seconds=1)))
        restarted = start_worker(database_url, server.port, "--once")
        output, _ = restarted.communicate(timeout=180)
        assert restarted.returncode == 0, output
    finally:
        server.stop()
    counts = server.message_ids()
    assert len(counts) == len(ids) and set(counts.values()) == {1}
    rows = outbox(engine)
    assert {r.status for r in rows} == {OutboxStatus.SENT}
    # A claim counts as an attempt, so the dead worker's batch shows two.
    assert [r.attempts for r in rows] == [1, 1, 1] + [2] * 7


def test_the_web_app_never_starts_a_scheduler(app_config):
    import threading

    from pbem import create_app

    before = set(threading.enumerate())
    app = create_app(app_config)
    try:
        app.test_client().get("/")
        started = set(threading.enumerate()) - before
    finally:
        app.extensions["korsar_db"].dispose()
    assert not [t for t in started if "APScheduler" in t.name or "ThreadPoolExecutor" in t.name]


@pytest.mark.slow
def test_two_worker_processes_at_once_send_each_email_exactly_once(engine, database_url, tmp_path):
    server = ScriptedSmtp().start()
    logs = [tmp_path / f"worker{i}.log" for i in range(2)]
    workers = []
    for log in logs:
        with open(log, "w") as out:
            workers.append(subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", "worker"],
                                            env=worker_env(database_url, server.port),
                                            stdout=out, stderr=subprocess.STDOUT))
    try:
        wait_for(lambda: all("worker_started" in log.read_text() for log in logs))
        ids = queue_emails(engine, 120)  # both are polling now: they race for every batch
        wait_for(lambda: len(server.messages) >= len(ids))
        time.sleep(0.5)  # a duplicate, if any, would arrive now
    finally:
        for worker in workers:
            worker.send_signal(signal.SIGTERM)
        for worker in workers:
            worker.wait(60)
        server.stop()
    counts = server.message_ids()
    assert len(counts) == len(ids) and set(counts.values()) == {1}
    assert {r.status for r in outbox(engine)} == {OutboxStatus.SENT}
    assert [w.returncode for w in workers] == [0, 0]


def test_worker_once_exits_nonzero_when_a_job_fails(runner, app, smtp_server, monkeypatch):
    import pbem.worker as worker

    def broken(*args, **kwargs):
        raise RuntimeError("clock exploded")

    monkeypatch.setattr(worker, "run_sweep", broken)
    queue_emails(app.extensions["korsar_db"], 1)
    result = runner.invoke(args=["worker", "--once"])
    assert result.exit_code == 1 and "a worker job failed" in result.output
    assert len(smtp_server.messages) == 1  # the other jobs still ran


def test_the_periodic_clock_sweep_gets_a_time_budget_and_worker_once_none(app, monkeypatch):
    """A backlog of due clock work must not hold the periodic job (or a stop) for long;
    `worker --once` does everything that is due."""
    import pbem.worker as worker

    jobs: list[dict] = []

    class Scheduler:  # records what the worker schedules; starts nothing
        def __init__(self, **_settings) -> None:
            pass

        def add_job(self, func, trigger, **job) -> None:  # type: ignore[no-untyped-def]
            jobs.append(job)

        def start(self) -> None:
            pass

    monkeypatch.setattr("apscheduler.schedulers.blocking.BlockingScheduler", Scheduler)
    for quiet in ("configure_logging", "tune_gc", "log_event"):
        monkeypatch.setattr(worker, quiet, lambda *a, **k: None)
    monkeypatch.setattr(worker.signal, "signal", lambda *a: None)
    assert worker.run_worker(app)
    assert {job["id"]: job["kwargs"]["sweep_budget"] for job in jobs} == {
        name: worker.SWEEP_BUDGET_SECONDS for name in worker.JOBS}
    calls: list[float | None] = []
    monkeypatch.setattr(worker, "run_job", lambda name, *a, sweep_budget=None, **k: calls.append(sweep_budget) or {})
    assert worker.run_worker(app, once=True)
    assert calls == [None] * len(worker.JOBS)
