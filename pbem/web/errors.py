"""The pages of a URL that matches no route (404) or not with that method (405), outside the
dashboard: the player's error page in the reader's language, not Werkzeug's English one."""
from __future__ import annotations

from typing import Any

from flask import Flask, render_template, request
from werkzeug.exceptions import HTTPException

from pbem.i18n import gettext as _


def player_error_page(exc: HTTPException) -> Any:
    if exc.code == 405:
        title = _("This link cannot be used that way")
        message = _("Open the link from your email, or use the buttons on your game page.")
    else:
        title = _("There is no such page")
        message = _("Check the address, or open your game from the link in your latest email.")
    code = exc.code or 404
    return render_template("player/error.html", title=title, message=message, status=code), code


def register(app: Flask) -> None:
    """405 here; 404 goes through the dashboard's handler, which keeps /admin URLs its own."""
    app.register_error_handler(405, _method_not_allowed)


def _method_not_allowed(exc: HTTPException) -> Any:
    if request.path.startswith("/admin/") or request.blueprint == "admin":
        return exc
    return player_error_page(exc)
