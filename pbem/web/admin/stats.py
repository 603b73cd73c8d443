"""Admin stats page (with a server-drawn SVG chart) and the audit log."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import render_template, request

from pbem.db import read_scope
from pbem.models import utcnow
from pbem.web.admin import bp, queries
from pbem.web.admin.charts import daily_bar_chart
from pbem.appctx import db

CHART_DAYS = 30


@bp.route("/stats")
def stats() -> Any:
    now = utcnow()
    with read_scope(db()) as session:
        counts = queries.status_counts(session)
        times = queries.player_move_times(session, since=now - timedelta(days=90))
        timeouts = queries.top_timeouts(session)
        per_day = queries.emails_sent_per_day(session, now.date(), days=CHART_DAYS)
        outbox = queries.outbox_counts(session)
    return render_template("admin/stats.html", counts=counts, times=times, timeouts=timeouts,
                           chart=daily_bar_chart(per_day), per_day=per_day, outbox=outbox)


@bp.route("/audit")
def audit() -> Any:
    with read_scope(db()) as session:
        rows, pager = queries.audit_entries(session, queries.clamp_page(request.args.get("page")))
    return render_template("admin/audit.html", rows=rows, pager=pager)

