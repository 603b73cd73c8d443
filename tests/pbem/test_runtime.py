"""Process settings of the long-running processes: the Procfile's web workers and the worker."""
from __future__ import annotations

import gc
from pathlib import Path

import httpx
import pytest

from benchmarks.common import gunicorn, procfile_web_command
from pbem import gunicorn_conf
from pbem.runtime import GC_THRESHOLD


def test_the_procfile_web_process_loads_the_gunicorn_settings():
    assert "-c python:pbem.gunicorn_conf" in procfile_web_command()


def test_a_web_worker_freezes_the_loaded_app_out_of_the_collector_and_collects_less_often():
    before = gc.get_threshold()
    try:
        gunicorn_conf.post_worker_init(worker=None)
        assert gc.get_threshold() == GC_THRESHOLD
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*before)


def test_the_web_workers_time_out_and_count_as_configured(monkeypatch):
    import importlib

    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    conf = importlib.reload(gunicorn_conf)
    assert (conf.workers, conf.timeout, conf.graceful_timeout) == (5, 30, 25)
    monkeypatch.delenv("WEB_CONCURRENCY")
    assert importlib.reload(gunicorn_conf).workers == 3


@pytest.mark.slow
def test_two_procfile_web_processes_of_one_user_open_no_control_socket(database_url, tmp_path: Path):
    # gunicorn 25.1+ opens ~/.gunicorn/gunicorn.ctl (or $XDG_RUNTIME_DIR/gunicorn.ctl) by
    # default: a second service of the same user would take over the first one's socket.
    home, runtime = tmp_path / "home", tmp_path / "run"
    home.mkdir()
    runtime.mkdir()
    env = {"DATABASE_URL": database_url, "KORSAR_ENV": "testing", "BASE_URL": "http://127.0.0.1",
           "WEB_CONCURRENCY": "1", "HOME": str(home), "XDG_RUNTIME_DIR": str(runtime)}
    with gunicorn(procfile_web_command(), env) as first, gunicorn(procfile_web_command(), env) as second:
        assert httpx.get(first + "/healthz").status_code == 200
        assert httpx.get(second + "/healthz").status_code == 200
        assert list(home.rglob("*.ctl")) == [] and list(runtime.rglob("*.ctl")) == []
