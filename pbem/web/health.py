"""`GET /healthz`: database and outbox health as JSON for load balancers and monitors.

200 while the database answers (the outbox may be "stale": that is the worker's or the SMTP
relay's trouble, and taking web processes out of rotation would not fix it); 503 when the
database does not answer. Any page hit by a database outage answers 503 with a plain
explanation too (`init_database_errors`), never a bare 500.
"""
from __future__ import annotations

import logging
from datetime import datetime, timezone

from flask import Blueprint, Flask, Response, jsonify, request
from sqlalchemy import func, text
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlmodel import select

from pbem.db import read_scope
from pbem.models import OutboxMessage, OutboxStatus
from pbem.web.context import db

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)

# Oldest undelivered email older than this: the worker or the relay is in trouble.
STALE_OUTBOX_SECONDS = 15 * 60


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


@bp.get("/healthz")
def healthz():  # type: ignore[no-untyped-def]
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    try:
        with read_scope(db()) as session:
            session.exec(text("SELECT 1"))
            waiting = (OutboxMessage.status == OutboxStatus.PENDING) | (OutboxMessage.status == OutboxStatus.SENDING)
            oldest, pending = session.exec(
                select(func.min(OutboxMessage.created_at), func.count()).where(waiting)
            ).one()
            failed = session.exec(
                select(func.count()).where(OutboxMessage.status == OutboxStatus.FAILED)
            ).one()
    except SQLAlchemyError as exc:
        # The class only: a driver message may name hosts or users.
        log.error("health check: database unreachable (%s)", type(exc).__name__)
        body = {"status": "error", "database": {"ok": False, "error": "the database does not answer"}}
        return jsonify(body), 503, {"Cache-Control": "no-store"}
    age = max(0.0, (now - _naive_utc(oldest)).total_seconds()) if oldest else 0.0
    outbox_ok = age < STALE_OUTBOX_SECONDS
    body = {
        "status": "ok" if outbox_ok else "degraded",
        "database": {"ok": True},
        "outbox": {
            "ok": outbox_ok,
            "pending": int(pending),
            "failed": int(failed),
            "oldest_pending_age_seconds": round(age, 1),
        },
    }
    return jsonify(body), 200, {"Cache-Control": "no-store"}


OUTAGE_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Try again in a minute</title></head>
<body><h1>Try again in a minute</h1>
<p>The game database is not answering right now. If you were playing a move, open your
game page again in a minute to see whether it counted; pressing the button again is safe,
a move never counts twice.</p></body></html>
"""


def init_database_errors(app: Flask) -> None:
    """A database outage (restart, failover, lock timeout) is a 503 with Retry-After, not a 500."""

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    @app.errorhandler(PoolTimeout)
    def _database_unavailable(exc: Exception) -> Response:
        # The class only: the driver's message quotes statements and their parameters.
        log.error("database unavailable during %s (%s)", request.endpoint, type(exc).__name__)
        if request.path == "/healthz" or request.accept_mimetypes.best == "application/json":
            response = jsonify({"error": "the database does not answer, try again in a minute"})
        else:
            response = Response(OUTAGE_PAGE, mimetype="text/html")
        response.status_code = 503
        response.headers["Retry-After"] = "30"
        return response
