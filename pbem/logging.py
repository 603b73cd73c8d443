"""Structured logs: one JSON line per request (with the game id) and per worker job.

`configure_logging` puts every logger of the process on JSON lines (the worker's one line per
job, pbem/worker.py, goes through it too); `init_request_logging` writes the request lines.

Tokens never reach a log: the signed path of a move link or game page (/m/<token>,
/g/<token>, /u/<token>) is redacted, query strings are dropped, and the JSON formatter redacts
anything that looks like a signed token in any message (werkzeug's access lines included).
Email bodies and secrets are never passed to a logger.
"""
from __future__ import annotations

import json
import logging
import re
import sys
import time
import traceback
from contextvars import ContextVar
from datetime import datetime, timezone
from typing import Any

from flask import Flask, Response, g, request

request_logger = logging.getLogger("pbem.request")

_TOKEN_PATH = re.compile(r"/(m|g|u)/[^/?#\s\"]+")
# itsdangerous tokens: base64url parts joined by dots, long enough not to be a word.
_TOKEN_LIKE = re.compile(r"[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{4,}(?:\.[A-Za-z0-9_\-]{4,})+")
_context: ContextVar[dict[str, Any] | None] = ContextVar("korsar_log_context", default=None)
_HANDLER_NAME = "korsar-json"
_ENCODER = json.JSONEncoder(default=str, separators=(",", ":"))  # built once, not per line


def redact(text: str) -> str:
    """`text` with every signed link path and token-looking string replaced."""
    return _TOKEN_LIKE.sub("[token]", _TOKEN_PATH.sub(r"/\1/[token]", text))


def log_context(**fields: Any) -> None:
    """Add fields (game_id, seat...) to the log line of the current request or job."""
    current = _context.get()
    if current is None:
        current = {}
        _context.set(current)
    current.update(fields)


class JsonFormatter(logging.Formatter):
    """A record as one JSON object; structured fields come in `extra={"fields": {...}}`."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            line.update(fields)
        if record.exc_info and record.exc_info[0] is not None:
            # Where it failed, not the exception's text: driver errors quote statement
            # parameters (email bodies, tokens).
            line["exc_type"] = record.exc_info[0].__name__
            line["traceback"] = [f"{f.filename}:{f.lineno} {f.name}"
                                 for f in traceback.extract_tb(record.exc_info[2])[-12:]]
        return _ENCODER.encode(line)


def configure_logging(level: int = logging.INFO, stream: Any = None) -> logging.Handler:
    """JSON lines on stderr for every logger (once per process; a no-op after that)."""
    root = logging.getLogger()
    for handler in root.handlers:
        if handler.get_name() == _HANDLER_NAME:
            return handler
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(JsonFormatter())
    root.addHandler(handler)
    if root.level > level or root.level == logging.NOTSET:
        root.setLevel(level)
    logging.getLogger("pbem").setLevel(level)
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    return handler


def init_request_logging(app: Flask) -> None:
    """Log one line per request: method, redacted path, status, duration, game id."""

    @app.before_request
    def _start() -> None:
        g.korsar_log_start = time.perf_counter()
        _context.set({})

    @app.after_request
    def _log(response: Response) -> Response:
        _log_request(response.status_code)
        g.korsar_logged = True
        return response

    @app.teardown_request
    def _log_failure(exc: BaseException | None) -> None:
        if exc is not None and not g.get("korsar_logged"):
            _log_request(500, error=type(exc).__name__)
        _context.set(None)


def _log_request(status: int, **more: Any) -> None:
    started = g.get("korsar_log_start")
    fields: dict[str, Any] = {
        "event": "request",
        "method": request.method,
        "path": redact(request.path),
        "endpoint": request.endpoint,
        "status": status,
        "duration_ms": round((time.perf_counter() - started) * 1000, 2) if started else None,
    }
    context = _context.get() or {}
    view_args = request.view_args or {}
    # Admin URLs carry the game id; views behind a signed link name it once they verified it.
    fields["game_id"] = context.get("game_id", view_args.get("game_id"))
    fields.update(context)
    fields.update(more)
    level = logging.ERROR if status >= 500 else logging.INFO
    request_logger.log(level, "%s %s %s", request.method, fields["path"], status, extra={"fields": fields})
