"""The worker: one dedicated process (`flask --app pbem worker`) that delivers the outbox,
plays due bot moves, runs the clock sweeps and forgets what is kept no longer (retention).

It runs an APScheduler 3.x BlockingScheduler with one interval job per piece of work
(max_instances=1, coalesce=True). The schedule itself lives in our tables (next_attempt_at,
bot_due_at, deadline_at...), so every job is idempotent and two workers at once are safe
(database leases and row locks). Web processes never start a scheduler.
SIGTERM/SIGINT stop it gracefully: the current email finishes, the rest of its batch is
released, and the process exits when running jobs return.
"""
from __future__ import annotations

import logging
import signal
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any

from flask import Flask
from sqlalchemy.engine import Engine
from sqlalchemy.exc import StatementError

from pbem.games.clocks.sweep import run_sweep
from pbem.config import Config
from pbem.db import session_scope
from pbem.games.invitations import expire_invitations
from pbem.games.bounced import announce_marks
from pbem.games.bots import play_due_bots
from pbem.games.analysis import run_analyses
from pbem.games.retention import forget_due
from pbem.mail.delivery import deliver_due, default_worker_id
from pbem.mail.smtp import SmtpLink
from pbem import metrics
from pbem.runtime import tune_gc

log = logging.getLogger("pbem.worker")
# A periodic clock sweep starts no new piece of work after this long; the rest stays due for
# the next poll, so a backlog (1,000 timeouts at once) never holds the job, or a stop, for long.
SWEEP_BUDGET_SECONDS = 0.4
# The bots job starts no new bot move after this long (an expert bot thinks up to a second of
# CPU a move): a backlog of due bot moves drains over polls, and the worker's other jobs and a
# stop are never held up for longer than this plus one move.
BOTS_BUDGET_SECONDS = 2.0
# The analysis job analyses at most this many finished games a run (each a few seconds of CPU,
# outside any transaction: pbem/games/analysis.py); the rest wait for the next polls.
ANALYSES_PER_RUN = 1
JOBS = ("bots", "clocks", "analysis", "deliver", "retention")  # in run_once, mail goes after what queues mail
# The periodic retention job (pbem/games/retention.py) runs every RETENTION_EVERY_MINUTES and starts
# no new batch after this long: a first run over years of rows drains over a few runs.
RETENTION_BUDGET_SECONDS = 20.0
# Rows claimed (leased) at a time: a worker that dies mid-batch delays at most this many emails
# by the lease (`pbem.mail.delivery.lease_seconds`, 5 minutes or more). A backlog drains batch
# after batch over one SMTP connection, up to MAX_BATCHES_PER_RUN x BATCH_SIZE (1,000) emails
# per run before the scheduler gets its turn.
BATCH_SIZE = 10
MAX_BATCHES_PER_RUN = 100


def log_event(event: str, level: int = logging.INFO, exc_info: bool = False, **fields: Any) -> None:
    """One structured log line (JSON via pbem.logging). Ids and counts only: never tokens,
    links or email bodies."""
    log.log(level, event, exc_info=exc_info, extra={"fields": {"event": event, **fields}})


def _deliver(engine: Engine, cfg: Config, now: datetime | None, stop: Callable[[], bool],
             worker_id: str) -> dict[str, int]:
    total: dict[str, int] = {}
    link = SmtpLink(cfg)  # one connection for the whole run, not one per small batch
    try:
        for _ in range(MAX_BATCHES_PER_RUN):  # drain a backlog, but come back to the scheduler
            report = deliver_due(engine, cfg, now=now, worker_id=worker_id, batch_size=BATCH_SIZE,
                                 stop=stop, link=link)
            for key, value in report.as_dict().items():
                total[key] = total.get(key, 0) + value
            if report.claimed < BATCH_SIZE or report.deferred or stop():
                break
    finally:
        link.close()
    return total


def _bots(engine: Engine, cfg: Config, now: datetime | None,
          stop: Callable[[], bool] = lambda: False) -> dict[str, int]:
    return {"moves": play_due_bots(engine, cfg, now, budget_seconds=BOTS_BUDGET_SECONDS, stop=stop)}


def _clocks(engine: Engine, cfg: Config, now: datetime | None,
            budget_seconds: float | None) -> dict[str, int]:
    with metrics.timed(metrics.CLOCK_SWEEP_SECONDS):
        report = dict(run_sweep(engine, cfg, now, budget_seconds=budget_seconds))
    metrics.CLOCK_SWEEPS.inc()
    with session_scope(engine) as session:  # invitations unanswered for INVITATION_DAYS
        expired = expire_invitations(session, cfg, now=now)
    if expired:
        report["invitations_expired"] = expired
    with session_scope(engine) as session:  # addresses marked undeliverable: their games told
        announced = announce_marks(session, cfg, now=now)
    if announced:
        report["bounces_announced"] = announced
    return report


def run_job(name: str, engine: Engine, cfg: Config, now: datetime | None = None,
            stop: Callable[[], bool] = lambda: False, worker_id: str | None = None,
            sweep_budget: float | None = None) -> dict[str, Any]:
    """Run one job once and log one JSON line about it; errors are logged, not raised.
    `sweep_budget`: the clock sweep's time budget (None: it does all that is due)."""
    if stop():
        return {"job": name, "skipped": "stopping"}
    started = time.monotonic()
    try:
        if name == "deliver":
            result = _deliver(engine, cfg, now, stop, worker_id or default_worker_id())
        elif name == "bots":
            result = _bots(engine, cfg, now, stop)
        elif name == "clocks":
            result = _clocks(engine, cfg, now, sweep_budget)
        elif name == "analysis":
            result = run_analyses(engine, cfg, worker_id or default_worker_id(), now,
                                  max_games=ANALYSES_PER_RUN)
        elif name == "retention":
            result = forget_due(engine, cfg, now, budget_seconds=None if sweep_budget is None
                                else RETENTION_BUDGET_SECONDS)
        else:
            raise ValueError(f"unknown job {name!r}")
    except Exception as exc:  # one failing job must not stop the others or the worker
        ms = round((time.monotonic() - started) * 1000, 1)
        if isinstance(exc, StatementError):
            # SQLAlchemy's message quotes the statement's parameters (email bodies): keep them out.
            log_event("job_error", logging.ERROR, job=name, ms=ms,
                      error=f"{type(exc).__name__}: {type(exc.orig).__name__}: {exc.orig}")
        else:
            log_event("job_error", logging.ERROR, exc_info=True, job=name, ms=ms,
                      error=f"{type(exc).__name__}: {exc}")
        return {"job": name, "error": type(exc).__name__}
    ms = round((time.monotonic() - started) * 1000, 1)
    busy = any(isinstance(v, int) and v for v in result.values())
    # Idle polls log at DEBUG: a poll every second would otherwise flood the log.
    fields: dict[str, Any] = {"job": name, "ms": ms, **result}  # counts only: no key is exc_info
    log_event("job", logging.INFO if busy else logging.DEBUG, **fields)
    return {"job": name, **result}


def _engine_and_config(app_or_engine: Flask | Engine, cfg: Config | None) -> tuple[Engine, Config]:
    if isinstance(app_or_engine, Flask):
        return app_or_engine.extensions["korsar_db"], cfg or app_or_engine.config["KORSAR"]
    if cfg is None:
        raise TypeError("run_once(engine, cfg): a Config is needed with a bare engine")
    return app_or_engine, cfg


def run_once(app_or_engine: Flask | Engine, cfg: Config | None = None,
             now: datetime | None = None) -> dict[str, dict[str, Any]]:
    """Do every due piece of work once: bots, clock sweeps, then email delivery."""
    engine, cfg = _engine_and_config(app_or_engine, cfg)
    return {name: run_job(name, engine, cfg, now) for name in JOBS}


def configure_logging() -> None:
    from pbem.logging import configure_logging as json_lines_on_stderr

    json_lines_on_stderr()
    # "skipped: maximum number of running instances" is expected when a job outlasts a poll.
    logging.getLogger("apscheduler.scheduler").setLevel(logging.ERROR)
    logging.getLogger("apscheduler.executors").setLevel(logging.WARNING)


def _every(name: str, cfg: Config) -> float:
    """Seconds between two runs of job `name`: every poll, but retention every so many minutes."""
    return cfg.RETENTION_EVERY_MINUTES * 60 if name == "retention" else cfg.WORKER_POLL_SECONDS


def run_worker(app: Flask, *, once: bool = False) -> bool:
    """The `flask --app pbem worker` process; with `once`, False if a job failed."""
    from apscheduler.schedulers.blocking import BlockingScheduler

    configure_logging()
    engine, cfg = _engine_and_config(app, None)
    tune_gc()
    worker_id = default_worker_id()
    if once:
        results = [run_job(name, engine, cfg, worker_id=worker_id) for name in JOBS]
        return not any("error" in r for r in results)
    stopping = threading.Event()
    scheduler = BlockingScheduler(timezone=timezone.utc, job_defaults={
        "max_instances": 1, "coalesce": True, "misfire_grace_time": None})
    for name in JOBS:
        scheduler.add_job(run_job, "interval", seconds=_every(name, cfg), id=name, name=name,
                          args=(name, engine, cfg), kwargs={"stop": stopping.is_set, "worker_id": worker_id,
                                                            "sweep_budget": SWEEP_BUDGET_SECONDS},
                          next_run_time=datetime.now(timezone.utc))

    def on_signal(signum: int, _frame: object) -> None:
        if stopping.is_set():
            return
        log_event("worker_stopping", signal=signal.Signals(signum).name, worker=worker_id)
        stopping.set()
        scheduler.shutdown(wait=False)  # running jobs see `stopping` and return soon

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    log_event("worker_started", worker=worker_id, poll_seconds=cfg.WORKER_POLL_SECONDS, jobs=list(JOBS))
    scheduler.start()
    # The executor's threads are joined at interpreter exit, so running jobs finish first.
    log_event("worker_stopped", worker=worker_id)
    return True
