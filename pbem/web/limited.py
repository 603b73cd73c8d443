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
from sqlalchemy import inspect

from pbem.appctx import db
from pbem.db import read_scope
from pbem.games.address_prefs import remembered_preferences
from pbem.games.limits import LimitReached
from pbem.models import Seat, utcnow
from pbem.web.error_page import error_page


def reader_zone() -> str | None:
    """The zone of the request's proven reader: their address's choice, else their seat's;
    None (UTC) when the page does not know who reads it."""
    seated = g.get("seat")
    opened = getattr(seated, "seat", None)
    # the seat was read in a transaction that is over: read it again by its key
    key = inspect(opened).identity if opened is not None else None
    with read_scope(db()) as session:
        seat = session.get(Seat, key[0]) if key else None
        email = g.get("reader_email") or (seat.email if seat is not None else None)
        saved = remembered_preferences(session, [email]).get(email.strip().lower()) if email else None
        if saved is not None and saved.timezone:
            return saved.timezone
        return seat.timezone if seat is not None and seat.timezone else None


def limit_page(exc: LimitReached) -> Any:
    wait = max(1, math.ceil((exc.retry_at - utcnow()).total_seconds()))
    exc.zone = reader_zone()
    page, status = error_page("limit", exc.text(), 429)
    response = make_response(page, status)
    response.headers["Retry-After"] = str(wait)
    return response
