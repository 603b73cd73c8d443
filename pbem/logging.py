"""Structured logs: one JSON line per request (with the game id) and per worker job.

`configure_logging` puts every logger of the process on JSON lines (the worker's one line per
job, pbem/worker.py, goes through it too); `init_request_logging` writes the request lines.

Tokens never reach a log: the signed path of a move link or game page (/m/<token>,
/g/<token>, /u/<token>) is redacted, query strings are dropped, and the JSON formatter redacts
anything that looks like a signed token in any message (werkzeug's access lines included).
Email addresses are redacted too: a reply address keeps only `play+[token]@domain`, any other
keeps its first letter and its domain (`a***@example.com`). The receivers' loggers (ours and
aiosmtpd's `mail.log`, which logs every SMTP command line and, at DEBUG, every line of DATA) are
filtered by `redact_mail_loggers`, so no handler (a test's capture included) ever sees a token,
a whole address or a line of an email. Email bodies and secrets are never passed to a logger.
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
# itsdangerous tokens: base64url parts joined by dots, long enough not to be a word (tried only
# where a run of such characters starts: one pass over a long line, not one per character).
_TOKEN_LIKE = re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{4,}(?:\.[A-Za-z0-9_\-]{4,})+")
# An email address: its local part starts where the run of address characters starts (the
# look-behind keeps the scan linear on long runs without an "@").
_ADDRESS = re.compile(r"(?<![\w.+%=-])([\w.+%=-]+)@([\w-]+(?:\.[\w-]+)+)")
# A reply token without its address (game-seat-version-mac, pbem.links): case as mail systems left it.
_REPLY_TOKEN = re.compile(r"\b\d{1,12}-\d{1,3}-\d{1,9}-[A-Za-z2-7]{16}\b")
_REPLY_PREFIX = "play+"
# aiosmtpd logs each line of DATA (an email's every line) at DEBUG: never kept.
_MAIL_LINE_MESSAGES = ("DATA readline:", "_handle_client readline:")
MAIL_LOGGERS = ("mail.log", "mail.debug", "pbem.inbound")
_context: ContextVar[dict[str, Any] | None] = ContextVar("korsar_log_context", default=None)
_HANDLER_NAME = "korsar-json"
_ENCODER = json.JSONEncoder(default=str, separators=(",", ":"))  # built once, not per line


def redact(text: str) -> str:
    """`text` with every signed link path, token-looking string and email address replaced."""
    text = _REPLY_TOKEN.sub("[token]", _ADDRESS.sub(_redacted_address, text))
    return _TOKEN_LIKE.sub("[token]", _TOKEN_PATH.sub(r"/\1/[token]", text))


def _redacted_address(match: re.Match[str]) -> str:
    local, domain = match[1], match[2]
    if local.lower().startswith(_REPLY_PREFIX):
        return f"{_REPLY_PREFIX}[token]@{domain}"
    return f"{local[0]}***@{domain}"


class RedactingFilter(logging.Filter):
    """Rewrites each record of a receiver's logger with `redact` and keeps only the place and
    class of its exception; drops aiosmtpd's records of the lines of an email."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_MAIL_LINE_MESSAGES):
            return False
        try:
            message = record.getMessage()
        except (TypeError, ValueError):  # arguments that do not fit the format: keep the format only
            message = str(record.msg)
        record.msg, record.args = redact(message), None
        if record.exc_info and record.exc_info[0] is not None:
            # Where it failed, not the exception's text (as JsonFormatter): a driver's error quotes
            # the statement's parameters, a reply's words and tokens among them.
            record.exc_text = "".join(traceback.format_tb(record.exc_info[2])) + record.exc_info[0].__name__
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


def redact_mail_loggers() -> None:
    """Put the RedactingFilter on the receivers' loggers (once; safe to call again)."""
    for name in MAIL_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactingFilter) for f in logger.filters):
            logger.addFilter(RedactingFilter())


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
    redact_mail_loggers()
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
