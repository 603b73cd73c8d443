"""The player's language: English, French or Vietnamese, one per seat (`Seat.language`).

Everything a player reads goes through `gettext` / `ngettext` here, in Python and in the
templates (jinja2's i18n extension, new-style: `{{ _("Ship %(n)s", n=3) }}`). The language is
a context variable, so one code path serves a page (set per request from the seat or the
browser) and the mail worker (set per email, for its recipient: `using(seat.language)`).

Catalogs: `pbem/translations/<code>/LC_MESSAGES/<domain>.po`, compiled to `.mo` by `make
install` (`make translations`). Two domains, so the emails' words and the pages' words are kept
in two files: `emails` (email_templates/, pbem/letters, pbem/present) and `pages` (pbem/templates,
pbem/web, pbem/games). A message is looked up in both.

Who sets it: a page, `pbem/web/i18n_web.py` (Accept-Language, the switch's `?lang=` and cookie;
a seat-token view then `pbem.web.seat.use_seat_language(seat)`); an email, the letters'
functions decorated `@speaking_to("seat")` (context and templates in the recipient's language,
the worker's deferred writers included); a table notice, `add_notice` with a function for its
text (pbem/games/notices.py). Admin pages and admin emails stay English.

`PSEUDO` is a test locale: every translated string comes back wrapped in markers, so a test
can see any text that did not go through a catalog (dates and numbers from Babel too).
"""
from __future__ import annotations

import unicodedata

import inspect
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime, timezone
from functools import lru_cache, wraps
from gettext import NullTranslations
from typing import Any, Literal, ParamSpec, TypeVar
from zoneinfo import ZoneInfo

from babel import Locale, UnknownLocaleError
from babel.dates import format_date as _format_date
from babel.dates import format_datetime as _format_datetime
from babel.dates import format_time as _format_time
from babel.dates import get_datetime_format
from babel.numbers import format_decimal
from babel.support import Translations

from pbem.config import PACKAGE_DIR

LANGUAGES: dict[str, str] = {"en": "English", "fr": "Français", "vi": "Tiếng Việt"}
DEFAULT = "en"
PSEUDO = "en_XX"  # tests only: "⟦text⟧" for every translated string
PSEUDO_OPEN, PSEUDO_CLOSE = "⟦", "⟧"
TRANSLATIONS_DIR = PACKAGE_DIR / "translations"
DOMAINS = ("emails", "pages")

_current: ContextVar[str] = ContextVar("korsar_language", default=DEFAULT)
P = ParamSpec("P")
R = TypeVar("R")


def spoken(code: str | None) -> str | None:
    """The language we speak that a tag names ("fr-FR", "FR", "vi_VN" -> "fr", "vi"), else None."""
    head = (code or "").replace("_", "-").split("-")[0].strip().lower()
    return head if head in LANGUAGES else None


def normalise(code: str | None) -> str:
    """A language code we speak ("fr-FR", "FR", "vi_VN" -> "fr", "vi"), else the default."""
    if code == PSEUDO:
        return PSEUDO
    return spoken(code) or DEFAULT


@lru_cache(maxsize=None)
def translations(code: str) -> NullTranslations:
    """Both domains' catalogs of `code`, merged (an empty catalog for English)."""
    merged = Translations()
    if code in (DEFAULT, PSEUDO):
        return merged
    for domain in DOMAINS:
        loaded = Translations.load(str(TRANSLATIONS_DIR), [code], domain=domain)
        if isinstance(loaded, Translations):
            merged.merge(loaded)
            merged.plural = loaded.plural  # merge() copies the messages, not the plural rule
    return merged


def current() -> str:
    """The language in force here (a page's reader, an email's recipient)."""
    return _current.get()


def set_language(code: str | None) -> Any:
    """Set the language for the rest of this context; returns a token for `reset`."""
    return _current.set(normalise(code))


def reset(token: Any) -> None:
    _current.reset(token)


@contextmanager
def using(code: str | None) -> Iterator[str]:
    """`with using(seat.language):` render an email in its recipient's language."""
    token = set_language(code)
    try:
        yield current()
    finally:
        _current.reset(token)


def speaking_to(param: str = "seat") -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorates a function that writes to one seat (its argument `param`, a Seat or None): its
    whole body, context and rendering, runs in that seat's language (`seat.language`; English
    for None, an admin's email). `@i18n.speaking_to("listener")`."""
    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        index = list(inspect.signature(fn).parameters).index(param)

        @wraps(fn)
        def in_language(*args: P.args, **kwargs: P.kwargs) -> R:
            seat = kwargs[param] if param in kwargs else args[index] if index < len(args) else None
            token = _current.set(normalise(getattr(seat, "language", None)))
            try:
                return fn(*args, **kwargs)
            finally:
                _current.reset(token)
        return in_language
    return decorate


def _wrap(text: str, code: str) -> str:
    return f"{PSEUDO_OPEN}{text}{PSEUDO_CLOSE}" if code == PSEUDO else text


def gettext(message: str, **params: Any) -> str:
    """`message` in the current language, `%(name)s` placeholders filled from `params`."""
    code = current()
    text = _wrap(translations(code).gettext(message), code)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int | float, **params: Any) -> str:
    """The form for `n` in the current language (French: 0 and 1 singular; Vietnamese: one
    form); `%(num)s` is `n` written in that language."""
    code = current()
    # gettext's plural rules take integers: 2.5 days reads as plural, like 2 days.
    count = int(n) if float(n).is_integer() else 2
    text = _wrap(translations(code).ngettext(singular, plural, count), code)
    return text % {"num": format_number(n), **params}


def lazy(message: str) -> str:
    """Marks `message` for extraction where it is defined; translate it with `gettext` where it
    is used (tables of sentences built at import time)."""
    return message


def locale() -> Locale:
    code = current()
    try:
        return Locale.parse(DEFAULT if code == PSEUDO else code)
    except UnknownLocaleError:
        return Locale.parse(DEFAULT)


def format_number(n: int | float) -> str:
    """14, 2.5 ("2,5" in French): never "14.0"."""
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return format_decimal(n, locale=locale())


# How each language writes a date and time in a sentence, as Babel patterns: French "mardi
# 1er décembre 2026 à 21 h 01" (the first of a month is "1er"), Vietnamese "21:01, Thứ Ba, ngày
# 1 tháng 12 năm 2026"; "day" drops the weekday and the year ("le 1er décembre à 21 h 01", a
# moment in the next hours or days). English keeps CLDR's ("Tuesday, December 1, 2026, 9:01 PM").
DateStyle = Literal["full", "long", "day"]
_PATTERNS: dict[str, dict[str, str]] = {
    "fr": {"full": "EEEE {d} MMMM y 'à' H 'h' mm", "long": "{d} MMMM y 'à' H 'h' mm",
           "day": "{d} MMMM 'à' H 'h' mm"},
    "vi": {"full": "HH:mm, EEEE, 'ngày' d 'tháng' M 'năm' y", "long": "HH:mm 'ngày' d 'tháng' M 'năm' y",
           "day": "HH:mm 'ngày' d 'tháng' M"},
    DEFAULT: {"day": "MMMM d 'at' h:mm a"},
}


def _pattern(local: datetime, date_format: DateStyle, loc: Locale) -> str | None:
    pattern = _PATTERNS.get(loc.language, {}).get(date_format)
    return None if pattern is None else pattern.replace("{d}", "d'er'" if local.day == 1 else "d")


def format_datetime(when: datetime, zone: str | ZoneInfo | None = None,
                    date_format: DateStyle = "long") -> str:
    """A UTC instant in `zone`, as the current language writes a date and time in a sentence:
    "4 décembre 2026 à 16 h 07", "16:07 ngày 4 tháng 12 năm 2026", "December 4, 2026, 4:07 PM";
    `date_format="full"` names the weekday ("vendredi 4 décembre 2026 à 16 h 07", "16:07, Thứ
    Sáu, ngày 4 tháng 12 năm 2026"), `"day"` leaves out the year ("1er décembre à 21 h 01")."""
    tz = zone if isinstance(zone, ZoneInfo) else ZoneInfo(zone or "UTC")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    local = when.astimezone(tz)
    loc = locale()
    pattern = _pattern(local, date_format, loc)
    if pattern is not None:
        text = _format_datetime(local, pattern, locale=loc)
    else:
        style: Literal["full", "long"] = "long" if date_format == "day" else date_format
        joined = str(get_datetime_format(style, locale=loc)).replace("'", "")
        text = joined.format(_format_time(local, "short", locale=loc), _format_date(local, style, locale=loc))
    return _wrap(text, current())  # Babel's words: the pseudo-locale shows them as translated


def format_date(when: datetime, zone: str | ZoneInfo | None = None) -> str:
    """The date alone, in `zone`: "4 décembre 2026", "1er décembre 2026", "ngày 4 tháng 12 năm 2026"."""
    tz = zone if isinstance(zone, ZoneInfo) else ZoneInfo(zone or "UTC")
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    local, loc = when.astimezone(tz), locale()
    pattern = {"fr": "d'er' MMMM y" if local.day == 1 else "d MMMM y",
               "vi": "'ngày' d 'tháng' M 'năm' y"}.get(loc.language)
    text = _format_date(local, pattern or "long", locale=loc)
    return _wrap(text, current())


# A range of days as each language writes it, first day then last: French "jeudi 10" ...
# "mardi 15 décembre 2026" (the month once when both days share it), Vietnamese "Thứ Năm, ngày
# 10" ... "Thứ Ba, ngày 15 tháng 12 năm 2026", English "Thursday, December 10" ... "Tuesday,
# December 15, 2026".
_RANGE_PATTERNS: dict[str, tuple[str, str, str, str]] = {  # first: same month, same year, other; last
    "fr": ("EEEE {d}", "EEEE {d} MMMM", "EEEE {d} MMMM y", "EEEE {d} MMMM y"),
    "vi": ("EEEE, 'ngày' d", "EEEE, 'ngày' d 'tháng' M", "EEEE, 'ngày' d 'tháng' M 'năm' y",
           "EEEE, 'ngày' d 'tháng' M 'năm' y"),
    DEFAULT: ("EEEE, MMMM d", "EEEE, MMMM d", "EEEE, MMMM d, y", "EEEE, MMMM d, y"),
}


def format_day_range(first: date, last: date) -> tuple[str, str]:
    """The first and the last day of a range, both counted in (a vacation as it was typed)."""
    loc = locale()
    same_month, same_year, other, final = _RANGE_PATTERNS.get(loc.language, _RANGE_PATTERNS[DEFAULT])
    start = same_month if (first.year, first.month) == (last.year, last.month) else \
        same_year if first.year == last.year else other

    def day(when: date, pattern: str) -> str:
        return _format_date(when, pattern.replace("{d}", "d'er'" if when.day == 1 else "d"), locale=loc)
    return _wrap(day(first, start), current()), _wrap(day(last, final), current())


# The Vietnamese family names that open about nine full names in ten: a name that starts with one
# is a Vietnamese full name, family name first and given name last.
VIETNAMESE_FAMILY_NAMES = frozenset(
    "nguyễn trần lê phạm hoàng huỳnh phan vũ võ đặng bùi đỗ hồ ngô dương lý đinh đoàn trương "
    "lâm mai trịnh cao lưu tạ châu hà quách tôn thái".split())


def addressed_name(name: str) -> str:
    """The name a greeting calls its reader by: in Vietnamese the given name, the last word of a
    Vietnamese full name ("Nguyễn Thị Ánh" -> "Ánh": "Chào Ánh,"); any other name whole
    ("Élodie Dûpont" read in Vietnamese stays "Élodie Dûpont"), and in French and English."""
    words = name.split()
    vietnamese = len(words) > 1 and unicodedata.normalize("NFC", words[0]).casefold() in VIETNAMESE_FAMILY_NAMES
    return words[-1] if current() == "vi" and vietnamese else name


# Languages whose running text goes on in lower case after a colon or inside a sentence: a move's
# label ("Draw a card") there reads "Coup joué : piocher une carte", "Đã đi: rút một lá bài".
_LOWER_AFTER_COLON = frozenset({"fr", "vi"})


def in_sentence(label: str) -> str:
    """A label that opens a line ("Draw a card", "Piocher une carte") as it reads after a colon
    or inside a sentence: French and Vietnamese lower its first letter ("Votre coup : jouer
    l'amiral sur ..."); English keeps its capital, as English writes a label after a colon.
    Only for labels that open with a common word (a move, a card), never a player's name."""
    if current() not in _LOWER_AFTER_COLON:
        return label
    return label[:1].lower() + label[1:]


# How each language quotes what a reader typed (CLDR's quotation marks): “nope”, « nope », “nope”.
_QUOTES = {"en": ("\u201c", "\u201d"), "fr": ("\u00ab\u202f", "\u202f\u00bb"), "vi": ("\u201c", "\u201d")}


def quoted(text: str) -> str:
    """`text` said back to its writer inside a sentence, in the current language's quotation
    marks (never Python's 'repr')."""
    start, end = _QUOTES.get(current(), _QUOTES[DEFAULT])
    return f"{start}{text}{end}"


def _template_gettext(message: str) -> str:
    code = current()
    return _wrap(translations(code).gettext(message), code)


def _template_ngettext(singular: str, plural: str, n: int) -> str:
    code = current()
    return _wrap(translations(code).ngettext(singular, plural, n), code)


def install(env: Any) -> None:
    """Give a Jinja environment `_`, `gettext` and `ngettext` in the current language. New style:
    Jinja fills the placeholders itself (`{{ _("Ship %(n)s", n=3) }}`, `num` in ngettext) and
    escapes their values in HTML templates."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(_template_gettext, _template_ngettext, newstyle=True)
    env.globals["current_language"] = current
    env.globals["format_datetime"] = format_datetime
    env.globals["format_number"] = format_number
    env.globals["addressed_name"] = addressed_name
    env.filters["in_sentence"] = in_sentence  # {{ _("Played: %(move)s.", move=played|in_sentence) }}
