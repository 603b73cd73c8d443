"""The counters an operator watches (/metrics, pbem/web/metrics.py), moved where things happen.

Every process (gunicorn's workers, the worker, the inbound receiver) counts into
prometheus-client's default registry; with PROMETHEUS_MULTIPROC_DIR set (before the process
starts: the library reads it at import), each writes its values to files in that directory and
/metrics adds them up (prometheus-client's multiprocess mode), so every process on the host is
counted whichever worker answers the scrape. What the database knows (the oldest pending
email) is read at scrape time instead. docs/deployment.md lists them with the alerts.
"""
from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager

from prometheus_client import Counter, Histogram

MOVES = Counter("korsar_moves", "Moves stored, by source (player, bot, timeout, forced, admin, ...)",
                ["source"])
EMAILS_QUEUED = Counter("korsar_emails_queued", "Emails queued in the outbox, by kind", ["kind"])
EMAILS_SENT = Counter("korsar_emails_sent", "Emails the relay accepted, by kind", ["kind"])
EMAILS_FAILED = Counter("korsar_emails_failed", "Emails given up on at send time, by kind", ["kind"])
EMAILS_BOUNCED = Counter("korsar_emails_bounced", "Emails that bounced after the relay took them "
                         "(or the relay refused with 5xx), by kind and bounce kind", ["kind", "bounce"])
BOUNCES = Counter("korsar_bounces", "Bounces received or refusals at send time, by kind "
                  "(permanent, temporary, relay)", ["kind"])
COMPLAINTS = Counter("korsar_complaints", "Abuse complaints (ARF feedback reports) received")
INBOUND_IGNORED = Counter("korsar_bounce_mail_ignored", "Mail to a bounce address that changed nothing, by why",
                          ["reason"])
REPLIES = Counter("korsar_replies", "Replies by email, by outcome and reason", ["outcome", "reason"])
BOT_THINK = Histogram("korsar_bot_think_seconds", "Time a bot takes to choose a move",
                      buckets=(0.001, 0.005, 0.02, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0))
CLOCK_SWEEPS = Counter("korsar_clock_sweeps", "Clock sweeps run by the worker")
CLOCK_SWEEP_SECONDS = Histogram("korsar_clock_sweep_seconds", "How long one clock sweep took",
                                buckets=(0.01, 0.05, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0))

_REASON_LABEL = re.compile(r"[^a-z0-9 '-]+")
MAX_REASON_LABEL = 60


def reason_label(reason: str) -> str:
    """A reason as a label of few values: its words before any detail ("sent by a machine
    (Auto-Submitted: ...)" -> "sent by a machine")."""
    head = reason.split("(", 1)[0].split(":", 1)[0].strip().lower()
    return " ".join(_REASON_LABEL.sub(" ", head).split())[:MAX_REASON_LABEL] or "none"


@contextmanager
def timed(histogram: Histogram) -> Iterator[None]:
    started = time.perf_counter()
    try:
        yield
    finally:
        histogram.observe(time.perf_counter() - started)
