"""`GET /healthz`: database and outbox health as JSON for load balancers and monitors.

200 while the database answers (the outbox may be "stale": that is the worker's or the SMTP
relay's trouble, and taking web processes out of rotation would not fix it); 503 when the
database does not answer. Any page hit by a database outage answers 503 with a plain
explanation too (`init_database_errors`), never a bare 500.

Anyone (a load balancer) gets the verdict only: `{"status", "database": {"ok"}, "outbox": {"ok"}}`.
The detail (pending and failed counts, the age of the oldest undelivered email, the database
error) is for monitors that send `Authorization: Bearer <HEALTH_TOKEN>`; with HEALTH_TOKEN
unset (the default) nobody gets it. A missing or wrong token is not an error: it gets the verdict.
"""
from __future__ import annotations

import hmac
import logging
from datetime import datetime, timezone

from flask import Blueprint, Flask, Response, jsonify, request
from markupsafe import escape
from sqlalchemy import func, text
from sqlalchemy.exc import InterfaceError, OperationalError, SQLAlchemyError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlmodel import select

from pbem import i18n
from pbem.db import read_scope
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import OutboxMessage, OutboxStatus
from pbem.appctx import config, db

bp = Blueprint("health", __name__)
log = logging.getLogger(__name__)

# Oldest undelivered email older than this: the worker or the relay is in trouble.
STALE_OUTBOX_SECONDS = 15 * 60


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def detail_allowed(header: str | None, token: str) -> bool:
    """Whether `Authorization: Bearer <token>` was sent with the configured HEALTH_TOKEN (never
    when that is empty); constant-time comparison."""
    if not token or not header:
        return False
    scheme, _, given = header.strip().partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


@bp.get("/healthz")
def healthz() -> tuple[Response, int, dict[str, str]]:
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    detailed = detail_allowed(request.headers.get("Authorization"), config().HEALTH_TOKEN)
    headers = {"Cache-Control": "no-store", "Vary": "Authorization"}
    failed = 0
    try:
        with read_scope(db()) as session:
            session.execute(text("SELECT 1"))
            waiting = (OutboxMessage.status == OutboxStatus.PENDING) | (OutboxMessage.status == OutboxStatus.SENDING)
            oldest, pending = session.exec(
                select(func.min(OutboxMessage.created_at), func.count()).where(waiting)
            ).one()
            if detailed:
                failed = session.exec(
                    select(func.count()).where(OutboxMessage.status == OutboxStatus.FAILED)
                ).one()
    except SQLAlchemyError as exc:
        # The class only: a driver message may name hosts or users.
        log.error("health check: database unreachable (%s)", type(exc).__name__)
        body: dict = {"status": "error", "database": {"ok": False}, "outbox": {"ok": False}}
        if detailed:
            body["database"]["error"] = "the database does not answer"
        return jsonify(body), 503, headers
    age = max(0.0, (now - _naive_utc(oldest)).total_seconds()) if oldest else 0.0
    outbox_ok = age < STALE_OUTBOX_SECONDS
    body = {"status": "ok" if outbox_ok else "degraded", "database": {"ok": True},
            "outbox": {"ok": outbox_ok}}
    if detailed:
        body["outbox"].update({
            "pending": int(pending),
            "failed": int(failed),
            "oldest_pending_age_seconds": round(age, 1),
        })
    return jsonify(body), 200, headers


OUTAGE_TITLE = lazy("Try again in a minute")
OUTAGE_TEXT = lazy("The game database is not answering right now. If you were playing a move, open your "
                   "game page again in a minute to see whether it counted; pressing the button again is "
                   "safe, a move never counts twice.")


def outage_page() -> str:
    """The 503 page, in the reader's language (no template: the database may be what failed)."""
    title, text = escape(_(OUTAGE_TITLE)), escape(_(OUTAGE_TEXT))
    return (f'<!doctype html>\n<html lang="{escape(i18n.current())}"><head><meta charset="utf-8">'
            f"<title>{title}</title></head>\n<body><h1>{title}</h1>\n<p>{text}</p></body></html>\n")


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
            response = Response(outage_page(), mimetype="text/html")
        response.status_code = 503
        response.headers["Retry-After"] = "30"
        return response
