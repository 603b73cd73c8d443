"""The page of a request refused by a limit against abuse (pbem/games/limits.py): 429, when to
try again (in the reader's language, UTC, and as Retry-After)."""
from __future__ import annotations

import math
from typing import Any

from flask import make_response

from pbem.games.limits import LimitReached
from pbem.models import utcnow
from pbem.web.error_page import error_page


def limit_page(exc: LimitReached) -> Any:
    wait = max(1, math.ceil((exc.retry_at - utcnow()).total_seconds()))
    page, status = error_page(
        "limit", exc.text(), 429)
    response = make_response(page, status)
    response.headers["Retry-After"] = str(wait)
    return response
