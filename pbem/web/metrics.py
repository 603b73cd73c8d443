"""`GET /metrics`: the counters of pbem/metrics.py in Prometheus' text format, for a scraper
that sends `Authorization: Bearer <METRICS_TOKEN>`; 404 while METRICS_TOKEN is empty (off) and
401 for a missing or wrong token. With PROMETHEUS_MULTIPROC_DIR set every process's counters
are added up (prometheus-client's multiprocess mode); the outbox's state is read from the
database at each scrape (`OutboxCollector`), so it is the same whichever worker answers."""
from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import datetime, timezone

from flask import Blueprint, Response, abort, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from pbem.appctx import config, db
from pbem.db import read_scope
from pbem.models import OutboxMessage, OutboxStatus
from pbem.models_mail import Bounce
from pbem.web.health import detail_allowed

bp = Blueprint("metrics", __name__)
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


class OutboxCollector(Collector):
    """What the database says at scrape time: emails waiting, the oldest one's age, and the
    addresses marked undeliverable."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        waiting = col(OutboxMessage.status).in_((OutboxStatus.PENDING, OutboxStatus.SENDING))
        with read_scope(self.engine) as session:
            oldest, pending = session.exec(
                select(func.min(OutboxMessage.created_at), func.count()).where(waiting)).one()
            marked = session.exec(select(func.count()).select_from(Bounce).where(
                col(Bounce.undeliverable), col(Bounce.cleared_at).is_(None))).one()
        yield GaugeMetricFamily("korsar_outbox_pending", "Emails waiting to be sent", value=pending)
        age = max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
        yield GaugeMetricFamily("korsar_outbox_oldest_pending_seconds", "Age of the oldest email waiting", value=age)
        yield GaugeMetricFamily("korsar_undeliverable_addresses", "Addresses marked undeliverable", value=marked)


def _registry(engine: Engine) -> CollectorRegistry:
    registry = CollectorRegistry()
    if os.environ.get(MULTIPROC_ENV):
        MultiProcessCollector(registry)
    else:
        for collector in list(REGISTRY._collector_to_names):  # this process's own counters
            registry.register(collector)
    registry.register(OutboxCollector(engine))
    return registry


@bp.get("/metrics")
def metrics() -> Response:
    token = config().METRICS_TOKEN
    if not token:
        abort(404)
    if not detail_allowed(request.headers.get("Authorization"), token):
        return Response("a bearer token is needed\n", 401, {"WWW-Authenticate": "Bearer", "Cache-Control": "no-store"},
                        mimetype="text/plain")
    body = generate_latest(_registry(db()))
    return Response(body, 200, {"Cache-Control": "no-store"}, content_type=CONTENT_TYPE_LATEST)
