"""Gunicorn settings for the Procfile's web process (`gunicorn -c python:pbem.gunicorn_conf`).

Command-line flags still win; the worker count comes from WEB_CONCURRENCY (Gunicorn's own).
"""
from __future__ import annotations

from typing import Any

from pbem.runtime import tune_gc


def post_worker_init(worker: Any) -> None:
    tune_gc()  # the app is loaded now: freeze it out of the collector's scans
