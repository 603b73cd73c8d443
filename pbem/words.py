"""Words of counted things: one plural rule for every page, email and sentence ("1 card",
"2 cards", "14 days", "2.5 days"), in the reader's language through the catalogs' plural forms
(French: 0 and 1 singular; Vietnamese: one form). Templates use it as the `plural` filter
(`{{ n|plural("card") }}`); new code may call `pbem.i18n.ngettext` directly.
"""
from __future__ import annotations

from collections.abc import Callable

from pbem.i18n import ngettext

# Every counted word, as its singular and plural message (`%(num)s` is the count, written as
# the reader's language writes numbers).
COUNTED: dict[str, Callable[[float], str]] = {
    "card": lambda n: ngettext("%(num)s card", "%(num)s cards", n),
    "merchant ship": lambda n: ngettext("%(num)s merchant ship", "%(num)s merchant ships", n),
    "day": lambda n: ngettext("%(num)s day", "%(num)s days", n),
    "vacation day": lambda n: ngettext("%(num)s vacation day", "%(num)s vacation days", n),
    "hour": lambda n: ngettext("%(num)s hour", "%(num)s hours", n),
    "minute": lambda n: ngettext("%(num)s minute", "%(num)s minutes", n),
    "second": lambda n: ngettext("%(num)s second", "%(num)s seconds", n),
    "try": lambda n: ngettext("%(num)s try", "%(num)s tries", n),
    "timeout": lambda n: ngettext("%(num)s timeout", "%(num)s timeouts", n),
}


def number(n: float) -> str:
    """A count as a reader writes it: 14 (not 14.0), 2.5, 0.25."""
    return f"{n:g}" if isinstance(n, float) else str(n)


def plural(n: float, word: str, many: str | None = None) -> str:
    """`n` and `word` agreeing, in the current language: "1 card", "0 cards", "3 vacation days",
    "1 try", "2 tries". A word outside COUNTED stays English (`many`: its plural when it is not
    the word plus "s")."""
    if word in COUNTED:
        return COUNTED[word](n)
    return f"{number(n)} {word if n == 1 else many or word + 's'}"
