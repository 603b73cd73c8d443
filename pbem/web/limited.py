"""The page of a request refused by a limit against abuse (pbem/games/limits.py): 429, when to
try again (in the reader's language, UTC, and as Retry-After)."""
from __future__ import annotations

import math
from typing import Any

from flask import make_response, render_template

from pbem.games.limits import LimitReached
from pbem.i18n import gettext as _
from pbem.models import utcnow


def limit_page(exc: LimitReached) -> Any:
    wait = max(1, math.ceil((exc.retry_at - utcnow()).total_seconds()))
    page = render_template("player/error.html", status=429, title=_("Too many requests"), message=exc.text())
    response = make_response(page, 429)
    response.headers["Retry-After"] = str(wait)
    return response
