"""An erased address out of other people's text: every text column of every table, one scan
per table, each form of the address (any case, url-encoded) and its distinctive local parts
replaced by a neutral mark."""
from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from sqlalchemy import String, Text, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel


from pbem.games.privacy.held import Held, like_literal

ERASED = "[erased]"  # what stands in other people's rows where the address (or its local part) was
MIN_DISTINCTIVE_LOCAL = 6  # a local part this long is also looked for alone ("zebulon" yes, "ann" no)

def needles_of(found: Held) -> tuple[list[str], list[str]]:
    """Every form the address may take inside other rows' text, lower case: the spellings (also
    url-encoded), and apart its local parts long enough to be its own (a default name)."""
    forms: set[str] = set()
    parts: set[str] = set()
    for spelling in found.spellings:
        forms |= {spelling, quote(spelling, safe=""), quote_plus(spelling), quote(spelling, safe="@+")}
        local = spelling.partition("@")[0]
        parts |= {p for p in {local, local.split("+", 1)[0]} if len(p) >= MIN_DISTINCTIVE_LOCAL}
    return sorted(forms, key=len, reverse=True), sorted(parts - forms, key=len, reverse=True)


def _text_columns() -> Iterable[tuple[Any, Any]]:
    for table in SQLModel.metadata.sorted_tables:
        for column in table.columns:
            if isinstance(getattr(column.type, "impl", column.type), (String, Text)):  # and SQLModel's AutoString
                yield table, column


def _pattern(forms: list[str], parts: list[str]) -> re.Pattern[str]:
    """The forms anywhere; a local part only where it is not the start of another address
    (`zebulon@other.example` is somebody else's)."""
    alternatives = [re.escape(f) for f in forms]
    alternatives += [re.escape(p) + r"(?![\w.+%-]*(?:@|%40))" for p in parts]
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _fewest(needles: Iterable[str]) -> list[str]:
    """The needles none of the others is part of: a row holding any needle holds one of these."""
    unique = sorted(set(needles), key=len)
    kept: list[str] = []
    for needle in unique:
        if not any(k in needle for k in kept):
            kept.append(needle)
    return kept


def scrub(session: Session, forms: Iterable[str], parts: Iterable[str] = (), replacement: str = ERASED) -> int:
    """Every text column of every table: each of `forms` and `parts` (any case, see `_pattern`)
    becomes `replacement`. One scan per table (its text columns together); returns the number
    of values changed."""
    forms, parts = list(forms), list(parts)
    needles = _fewest(forms + parts)  # ASCII (an address's local part is: pbem.addresses)
    if not needles:
        return 0
    pattern = _pattern(forms, parts)
    postgresql = session.get_bind().dialect.name == "postgresql"
    by_table: dict[Any, list[Any]] = {}
    for table, column in _text_columns():
        by_table.setdefault(table, []).append(column)
    changed = 0
    for table, columns in by_table.items():
        keys = list(table.primary_key.columns)

        def holds(column: Any) -> Any:  # any case: ILIKE, and SQLite's LIKE ignores the case of ASCII
            return or_(*[(column.ilike if postgresql else column.like)(f"%{like_literal(n)}%", escape="\\")
                         for n in needles])
        for row in session.execute(sa_select(*keys, *columns).where(or_(*[holds(c) for c in columns]))).all():
            ids, values = row[:len(keys)], row[len(keys):]
            new = {c.name: pattern.sub(replacement, v) for c, v in zip(columns, values) if v}
            new = {c.name: new[c.name] for c, v in zip(columns, values) if v and new[c.name] != v}
            if new:
                session.execute(update(table).where(*[k == v for k, v in zip(keys, ids)]).values(new))
                changed += len(new)
    return changed
