"""URL converters for the app's routes (registered by `create_app`).

`<id:game_id>` is a database row id: 1 to 2**31-1, ASCII digits only. Werkzeug's `int` takes
any length (and Unicode digits), so `/admin/games/2147483648` reached the database and failed
there, differently on each backend (PostgreSQL's INTEGER overflows past 2**31, SQLite's past
2**63): a 500 instead of a 404. Refusing such ids in the URL map, in one place, makes every
route 404 for a row that cannot exist, before any view or query runs. `<id(min=0):position>`
is a seat position (counted from 0).
"""
from __future__ import annotations

from typing import Any

from werkzeug.routing import IntegerConverter, Map

MAX_ID = 2**31 - 1  # the largest INTEGER on PostgreSQL (the smaller of our two databases)


class IdConverter(IntegerConverter):
    regex = r"[0-9]{1,10}"  # no more digits than MAX_ID has; to_python checks the range

    def __init__(self, map: Map, min: int = 1, max: int = MAX_ID, **kwargs: Any) -> None:
        super().__init__(map, min=min, max=max, **kwargs)
