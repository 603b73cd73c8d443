"""What an address chose for all its games (language, time zone, reminders, digest, forced moves):
remembered in `AddressPreference` and given to each new seat of the address.

Not `pbem/addresses.py` (the base layer's parsing of an address: valid, canonical mailbox): this
is the game domain's memory of what a person asked for."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem.games.setup import check_language
from pbem.i18n import LANGUAGES, PSEUDO
from pbem.models import AddressPreference, Seat, utcnow


def remembered_preferences(session: Session, emails: Sequence[str | None]) -> dict[str, AddressPreference]:
    """What each address chose for all its games (lower-case address -> its row)."""
    keys = sorted({e.strip().lower() for e in emails if e})
    if not keys:
        return {}
    rows = session.exec(select(AddressPreference).where(col(AddressPreference.email).in_(keys))).all()
    return {row.email: row for row in rows}


def remembered_languages(session: Session, emails: Sequence[str | None]) -> dict[str, str]:
    """The language each address chose last (lower-case address -> code), for a new game."""
    rows = remembered_preferences(session, emails).values()
    # The pseudo-locale is stored by tests only (set_seat_language refuses it): every word marked.
    return {row.email: row.language for row in rows if row.language in LANGUAGES or row.language == PSEUDO}


def seat_preferences(saved: AddressPreference | None) -> dict[str, Any]:
    """A new seat's settings from its address's choices ("my games"); defaults where none."""
    if saved is None:
        return {}
    chosen = {"timezone": saved.timezone, "digest": saved.digest, "play_forced": saved.play_forced,
              "unsubscribed": None if saved.reminders is None else not saved.reminders}
    return {key: value for key, value in chosen.items() if value is not None}


def remember_language(session: Session, email: str | None, code: str, now: datetime | None = None) -> None:
    """The next game `email` joins starts in `code`."""
    if not email:
        return
    key = email.strip().lower()
    row = session.get(AddressPreference, key)
    if row is None:
        try:
            with session.begin_nested():  # the address's first choice...
                session.add(AddressPreference(email=key, language=code, updated_at=now or utcnow()))
            return
        except IntegrityError:  # ...made at the same moment in another game: this one is the last
            row = session.get(AddressPreference, key)
    if row is not None:
        row.language, row.updated_at = code, now or utcnow()
        session.add(row)


def set_seat_language(session: Session, seat: Seat, code: str, now: datetime | None = None) -> bool:
    """The seat reads `code` from now on (pages at once, emails from the next one), and its
    address's next game starts in it. GameError for a language we do not speak; False if it was
    the seat's language already."""
    code = check_language(code)
    changed = seat.language != code
    seat.language = code
    session.add(seat)
    remember_language(session, seat.email, code, now)
    return changed
