"""Gunicorn settings for the web process (`gunicorn -c python:pbem.gunicorn_conf`): the Procfile,
the systemd unit and the load benchmark all run this one file. Command-line flags still win;
the address is theirs (`--bind`).
"""
from __future__ import annotations

import os
from typing import Any

from pbem.runtime import tune_gc

workers = int(os.environ.get("WEB_CONCURRENCY", "3"))  # gunicorn's own variable; about 2 x cores
timeout = 30  # a request still running after 30 s is killed (the move path takes milliseconds)
graceful_timeout = 25  # on restart, requests in flight finish first (PaaS routers wait 30 s)
# gunicorn 25.1+ opens a control socket at one path per user ($XDG_RUNTIME_DIR or ~/.gunicorn):
# a second gunicorn of the same user (another service, the load benchmark) takes it over.
# We manage processes with the PaaS or systemd, never gunicornc.
control_socket_disable = True


def post_worker_init(worker: Any) -> None:
    tune_gc()  # the app is loaded now: freeze it out of the collector's scans


def child_exit(server: Any, worker: Any) -> None:
    # /metrics adds up every process's files (PROMETHEUS_MULTIPROC_DIR): a dead worker's gauges go.
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess
        multiprocess.mark_process_dead(worker.pid)
