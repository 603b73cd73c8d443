"""The page of a request refused by a limit against abuse (pbem/games/limits.py): 429, what was
refused and when to try again in the reader's language and time zone (and as Retry-After).

The reader's zone is known only where the page knows its reader: a seat's page (the address's
zone, else the seat's) or the page of a proposal or an invitation (its address's zone). A page
anyone can post to with any address (/new, /me) says UTC: it must not tell a stranger the time
zone of the address they typed."""
from __future__ import annotations

import math
from typing import Any

from flask import g, make_response

from pbem.appctx import db
from pbem.db import read_scope
from pbem.games.address_prefs import remembered_preferences
from pbem.games.limits import LimitReached
from pbem.models import utcnow
from pbem.web.error_page import error_page


def reader_zone() -> str | None:
    """The zone of the request's proven reader: their address's choice, else their seat's;
    None (UTC) when the page does not know who reads it."""
    seated = g.get("seat")
    seat = getattr(seated, "seat", None)
    email = g.get("reader_email") or getattr(seat, "email", None)
    if email:
        with read_scope(db()) as session:
            saved = remembered_preferences(session, [email]).get(email.strip().lower())
        if saved is not None and saved.timezone:
            return saved.timezone
    return getattr(seat, "timezone", None) or None


def limit_page(exc: LimitReached) -> Any:
    wait = max(1, math.ceil((exc.retry_at - utcnow()).total_seconds()))
    exc.zone = reader_zone()
    page, status = error_page("limit", exc.text(), 429)
    response = make_response(page, status)
    response.headers["Retry-After"] = str(wait)
    return response
