"""The refusals of the game domain: every layer above catches them (`message` for the reader,
`status` for HTTP), so they live apart from what raises them.

`Refusal(code, params)` is the shape every refusal is moving to: the domain raises a code, and
the entry that shows it words it (`text(language)`) from the one table its code is declared in
(`declare_refusals`). `GameError(message)` is the older shape, worded at the raise."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pbem import i18n
from pbem.i18n import gettext as _


class GameError(Exception):
    """A refused request: `message` is shown to the user as is, `status` is the HTTP status."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class NotFound(GameError):
    status = 404


class StaleMove(GameError):
    status = 409
    already_played = False  # the same seat's same move was stored for this version


class IllegalMoveError(GameError):
    status = 422


class GameNotRunning(GameError):
    """Paused (409) or over (410)."""

    status = 409


class SeatHandedToBot(GameError):
    """A bot plays the seat now: its player's moves wait until an admin hands it back."""

    status = 409


class GameNotOver(GameError):
    """Refused until the game is finished or aborted (its deck would give away the deal)."""

    status = 409


# code -> (sentence, a msgid of the pages catalog with %(param)s fields; HTTP status)
REFUSALS: dict[str, tuple[str, int]] = {}
# A param whose value is one of these msgids is itself translated ("first day", "last day").
TRANSLATED_PARAMS: set[str] = set()


def declare_refusals(sentences: Mapping[str, tuple[str, int]], *, translated: tuple[str, ...] = ()) -> None:
    """Add a module's refusal codes (each declared once) and the msgids its params may hold."""
    twice = set(sentences) & set(REFUSALS)
    assert not twice, f"refusal codes declared twice: {sorted(twice)}"
    REFUSALS.update(sentences)
    TRANSLATED_PARAMS.update(translated)


class Refusal(GameError):
    """A refused request by its code: `params` fill its sentence, `status` is its HTTP status.
    `message` is the sentence in the language in force at the raise; `text(language)` words it
    again where it is shown (a page that learns the seat's language afterwards, an admin's English)."""

    def __init__(self, code: str, params: Mapping[str, Any] | None = None, status: int | None = None) -> None:
        self.code = code
        self.params = dict(params or {})
        super().__init__(self.text(), status if status is not None else REFUSALS[code][1])

    def text(self, language: str | None = None) -> str:
        """The sentence in `language` (None: the language in force now), capitalised; an instant
        is written in UTC as that language writes a date and time."""
        with i18n.using(language if language is not None else i18n.current()):
            shown = {k: _(v) if isinstance(v, str) and v in TRANSLATED_PARAMS
                     else i18n.format_datetime(v, "UTC") if isinstance(v, datetime) else v
                     for k, v in self.params.items()}
            text = _(REFUSALS[self.code][0], **shown)
        return text[:1].upper() + text[1:]
