"""Admin page "Erase an address" (pbem/games/privacy.py): for a person who asks by other means
than their /me page. The address typed, then what it would erase (counts), then the erasure,
audited without the address ("erased address #<hash prefix>")."""
from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for

from pbem.addresses import AddressRefused, check_address
from pbem.appctx import config, db
from pbem.auth import current_admin_email
from pbem.db import read_scope, session_scope
from pbem.games import privacy
from pbem.web.admin import bp


@bp.route("/erase", methods=["GET"])
def erase_address_form() -> Any:
    return render_template("admin/erase.html", email="", found=None)


@bp.route("/erase", methods=["POST"])
def erase_address() -> Any:
    """Without `confirm`: what would go. With it: erased, audited, back to the empty form."""
    typed = request.form.get("email", "")
    try:
        email = check_address(typed)
    except AddressRefused as exc:
        return render_template("admin/erase.html", email=typed[:254], found=None, error=exc.sentence), 422
    never = request.form.get("never") == "on"
    if request.form.get("confirm") != "yes":
        with read_scope(db()) as session:
            found = privacy.what_is_held(session, email)
        return render_template("admin/erase.html", email=email, found=found, never=never)
    with session_scope(db()) as session:
        done = privacy.erase_address(session, config(), email, never=never, actor=current_admin_email() or "?")
    flash(f"Erased address {done.tag}: {done.seats} seats renamed, {done.games_handed_to_bots} handed to bots, "
          f"{done.rows_deleted} rows deleted{'; kept on the never-list as a hash' if done.never_kept else ''}.", "ok")
    return redirect(url_for("admin.erase_address_form"), code=303)
