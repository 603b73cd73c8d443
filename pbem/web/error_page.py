"""The one page of a refused request outside the dashboard (`templates/error.html`), and the
one table of its titles.

A title depends on what was asked (the area: a move link, a seat's page, its talk, its
preferences, a game being set up, "my games", any URL) and on the HTTP status; the sentence
below it says why, in the reader's language, and nothing was changed.
"""
from __future__ import annotations

from flask import render_template

from pbem.i18n import gettext as _
from pbem.i18n import lazy

DEFAULT_TITLE = lazy("This did not work")
# (area, status) -> title; status None: every status of that area.
TITLES: dict[tuple[str, int | None], str] = {
    ("move", 400): lazy("This link does not work"),  # /m/<token> and the game page /g/<token>
    ("move", 403): lazy("This link is no longer yours"),
    ("move", 404): lazy("No such game"),
    ("move", 409): lazy("This move cannot be played now"),
    ("move", 410): lazy("This game is over"),
    ("move", 422): lazy("This move is not allowed"),
    ("seat", 400): lazy("This link does not work"),  # rematch and leave (/g/<token>/...)
    ("seat", 403): lazy("This link is no longer yours"),
    ("seat", 404): lazy("No such game"),
    ("seat", 409): lazy("This cannot be done now"),
    ("seat", 410): lazy("This link has expired"),
    ("talk", None): lazy("Not sent"),
    ("prefs", None): DEFAULT_TITLE,  # preferences, vacations, unsubscribe
    ("setup", 400): lazy("This link does not work"),  # a game being set up, invitations, never
    ("setup", 403): lazy("This link has been replaced"),
    ("setup", 404): lazy("There is no such game"),
    ("setup", 409): lazy("This is already done"),
    ("setup", 410): lazy("This link has expired"),
    ("setup", 422): lazy("This cannot be done"),
    ("my_games", 400): lazy("This link does not work"),
    ("my_games", 410): lazy("This link has expired"),
    ("my_games", None): lazy("This link does not work"),
    ("limit", None): lazy("Too many requests"),
    ("http", 405): lazy("This link cannot be used that way"),  # no route (pbem/web/errors.py)
    ("http", None): lazy("There is no such page"),
}
# The areas whose pages wear the self-service layout (public.css).
PUBLIC_AREAS = frozenset({"setup", "my_games"})


def title(area: str, status: int) -> str:
    """The page's title in the reader's language."""
    return _(TITLES.get((area, status)) or TITLES.get((area, None)) or DEFAULT_TITLE)


def error_page(area: str, message: str, status: int, *, game_url: str | None = None,
               link: str | None = None, link_text: str | None = None) -> tuple[str, int]:
    """The refusal page: its title, `message` (in the reader's language already), "Nothing was
    changed", and the way on: the seat's game page (`game_url`) or another page (`link`)."""
    return render_template("error.html", title=title(area, status), message=message, status=status,
                           game_url=game_url, link=link, link_text=link_text,
                           public=area in PUBLIC_AREAS), status
