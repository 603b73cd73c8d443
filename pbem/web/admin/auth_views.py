"""Admin login and logout."""
from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for

from pbem.auth import (
    attempt_login,
    clear_session,
    client_ip,
    current_admin_email,
    load_admin,
    log_in,
    log_out,
    record_audit,
    safe_next,
)
from pbem.db import read_scope, session_scope
from pbem.web.admin import bp
from pbem.web.admin.forms import LoginForm
from pbem.appctx import db


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    if request.method == "GET" and current_admin_email() is None:
        with read_scope(db()) as session:
            if load_admin(session) is not None:
                return redirect(url_for("admin.games_list"))
    form = LoginForm()
    error, status = None, 200
    if form.validate_on_submit():
        # The attempt is committed whatever the outcome: failures must count.
        with session_scope(db()) as session:
            result = attempt_login(session, form.email.data or "", form.password.data or "", client_ip())
        if result.admin is not None:
            log_in(result.admin)
            return redirect(safe_next(request.args.get("next")) or url_for("admin.games_list"), code=303)
        error, status = result.error, result.status
    elif request.method == "POST":
        status = 400
    return render_template("admin/login.html", form=form, error=error), status


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    email = current_admin_email()
    with session_scope(db()) as session:
        record_audit(session, email or "?", "logout")
        log_out(session)  # ends every session of this admin, not only this cookie
    clear_session()
    flash("You are logged out on every device.", "ok")
    return redirect(url_for("admin.login"), code=303)
