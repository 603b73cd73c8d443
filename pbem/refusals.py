"""The one refusal type: `Refusal(code, params, status)`, raised by whatever refuses (a signed link
in `pbem.links`, the game domain in `pbem.games`) and worded where it is shown, in the reader's
language: a page asks `text()` in the request's language, the admin and the command line read
English, a reply's answer is written in the seat's language.

Each module declares its codes once (`declare_refusals`): code -> (a msgid of the `pages` catalog
with %(param)s fields, HTTP status). A param that is itself a Refusal is worded in the same
language (a seat's problem inside "Seat 2 (Bob): ..."); one whose value is a msgid listed as
`translated` is translated too ("first day")."""
from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from pbem import i18n
from pbem.i18n import gettext as _

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


class Refusal(Exception):
    """A refused request by its code: `params` fill its sentence, `status` is its HTTP status
    (the code's, unless given). `text(language)` words it; `message` is `text()` in the language
    in force where it is read."""

    status = 400

    def __init__(self, code: str, params: Mapping[str, Any] | None = None, status: int | None = None) -> None:
        super().__init__(code)
        self.code = code
        self.params = dict(params or {})
        self.status = status if status is not None else REFUSALS[code][1]

    @property
    def message(self) -> str:
        return self.text()

    def __str__(self) -> str:
        return self.text()

    def text(self, language: str | None = None) -> str:
        """The sentence in `language` (None: the language in force now); an instant is written in
        UTC as that language writes a date and time."""
        with i18n.using(language if language is not None else i18n.current()):
            return self.sentence()

    def sentence(self) -> str:
        """The sentence in the current language. A translated word that opens it ("Ngày đầu"
        in Vietnamese) is capitalised; names and addresses are left as they were written."""
        shown = {k: _shown(v) for k, v in self.params.items()}
        text = _(REFUSALS[self.code][0], **shown)
        for key, value in self.params.items():
            if isinstance(value, str) and value in TRANSLATED_PARAMS and text.startswith(shown[key]):
                return text[:1].upper() + text[1:]
        return text


def _shown(value: Any) -> Any:
    if isinstance(value, Refusal):
        return value.sentence()
    if isinstance(value, str) and value in TRANSLATED_PARAMS:
        return _(value)
    if isinstance(value, datetime):
        return i18n.format_datetime(value, "UTC")
    return value
