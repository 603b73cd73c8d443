"""Admin outbox page: emails waiting or failed (with the SMTP reason), retry one or all."""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for

from pbem.auth import current_admin_email, record_audit
from pbem.db import read_scope, session_scope
from pbem.games.admin_actions import retry_all_failed, retry_outbox_message
from pbem.games.errors import GameError
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.web.admin import bp, queries
from pbem.web.admin.forms import ButtonForm
from pbem.appctx import db

# ?show= tab -> statuses listed
TABS: dict[str, tuple[str, ...]] = {
    "waiting": (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.FAILED),
    "failed": (OutboxStatus.FAILED,),
    "sent": (OutboxStatus.SENT,),
    # Reminders whose turn was over before they could be written (never sent, by design).
    "cancelled": (OutboxStatus.CANCELLED,),
}


@bp.route("/outbox")
def outbox() -> Any:
    tab = request.args.get("show", "waiting")
    if tab not in TABS:
        tab = "waiting"
    with read_scope(db()) as session:
        rows, pager = queries.outbox_messages(session, TABS[tab], queries.clamp_page(request.args.get("page")))
        counts = queries.outbox_counts(session)
    return render_template("admin/outbox.html", rows=rows, pager=pager, counts=counts, tab=tab,
                           button=ButtonForm(), now=utcnow())


@bp.route("/outbox/<id:message_id>")
def outbox_message(message_id: int) -> Any:
    with read_scope(db()) as session:
        row = session.get(OutboxMessage, message_id)
    if row is None:
        abort(404, description="There is no such email.")
    return render_template("admin/outbox_message.html", row=row, button=ButtonForm())


@bp.route("/outbox/<id:message_id>/retry", methods=["POST"])
def outbox_retry(message_id: int) -> Any:
    actor = current_admin_email() or "?"
    try:
        with session_scope(db()) as session:
            row = retry_outbox_message(session, message_id, now=utcnow())
            record_audit(session, actor, "retry_email", game_id=row.game_id,
                         detail=f"email {row.id} ({row.kind}) to {row.to_addr}")
    except GameError as exc:
        flash(exc.message, "error")
        return redirect(url_for("admin.outbox"), code=303)
    flash(f"Email {message_id} will be sent on the worker's next pass.", "ok")
    return redirect(url_for("admin.outbox"), code=303)


@bp.route("/outbox/retry-failed", methods=["POST"])
def outbox_retry_failed() -> Any:
    with session_scope(db()) as session:
        n = retry_all_failed(session, now=utcnow())
        record_audit(session, current_admin_email() or "?", "retry_all_failed", detail=f"{n} emails")
    flash(f"{n} failed emails will be sent again." if n else "No failed emails to retry.", "ok")
    return redirect(url_for("admin.outbox"), code=303)
