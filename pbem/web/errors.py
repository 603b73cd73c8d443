"""The pages of a URL that matches no route (404) or not with that method (405), outside the
dashboard: the player's error page in the reader's language, not Werkzeug's English one."""
from __future__ import annotations

from typing import Any

from flask import Flask, request
from werkzeug.exceptions import HTTPException

from pbem.i18n import gettext as _
from pbem.web.error_page import error_page


def player_error_page(exc: HTTPException) -> Any:
    if exc.code == 405:
        message = _("Open the link from your email, or use the buttons on your game page.")
    else:
        message = _("Check the address, or open your game from the link in your latest email.")
    return error_page("http", message, exc.code or 404)


def register(app: Flask) -> None:
    """405 here; 404 goes through the dashboard's handler, which keeps /admin URLs its own."""
    app.register_error_handler(405, _method_not_allowed)


def _method_not_allowed(exc: HTTPException) -> Any:
    if request.path.startswith("/admin/") or request.blueprint == "admin":
        return exc
    return player_error_page(exc)
