"""Admin page of undeliverable addresses (pbem/mail/undeliverable.py): since when, why, the
email that bounced; an admin clears one once the person's mailbox works again."""
from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, render_template, url_for
from sqlmodel import col, select

from pbem.auth import current_admin_email, record_audit
from pbem.db import read_scope, session_scope
from pbem.games import bounced
from pbem.mail import undeliverable
from pbem.models import utcnow
from pbem.models_mail import Bounce
from pbem.web.admin import bp
from pbem.appctx import db


@bp.route("/bounces")
def bounces() -> Any:
    with read_scope(db()) as session:
        marks = undeliverable.marks(session)
    return render_template("admin/bounces.html", marks=marks)


@bp.route("/bounces/<id:bounce_id>/clear", methods=["POST"])
def bounce_clear(bounce_id: int) -> Any:
    with session_scope(db()) as session:
        row = session.exec(select(Bounce).where(col(Bounce.id) == bounce_id)).first()
        if row is None:
            abort(404, description="There is no such bounce.")
        cleared = bounced.clear_mark(session, row.email, now=utcnow())
        if cleared:
            record_audit(session, current_admin_email() or "?", "clear_undeliverable", detail=row.email)
    flash(f"Mail to {row.email} goes out again." if cleared else f"{row.email} was not marked undeliverable.", "ok")
    return redirect(url_for("admin.bounces"), code=303)
