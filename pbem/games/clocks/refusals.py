"""What a player reads when a preference, vacation or unsubscribe request is refused: every
sentence in one table, raised as the one refusal type (`pbem.games.errors.GameError`, by its code).

The checks in `pbem.games.clocks.vacation` and `pbem.games.clocks.preferences` raise `refuse(code, ...)`,
so the words cannot drift from the rule; pages show `Refusal.text()` in the seat's language.
"""
from __future__ import annotations

from typing import Any

from pbem.games.errors import GameError, declare_refusals
from pbem.i18n import lazy

# code -> (sentence, HTTP status); the sentence (a msgid of the `pages` catalog) is filled in,
# in the reader's language, with the fields given to `refuse`.
SENTENCES: dict[str, tuple[str, int]] = {
    "game_over": (lazy("This game is over: no vacation needed."), 410),
    "bad_date": (lazy("The %(label)s must be a date like 2026-07-14."), 422),
    "last_before_first": (lazy("The last day of your vacation must not be before its first day."), 422),
    "in_the_past": (lazy("A vacation cannot start in the past."), 422),
    "too_far_ahead": (lazy("The last day of your vacation must be within the next %(days)s days (by %(by)s)."), 422),
    "already_booked": (lazy("You already have a vacation booked in this game; "
                            "wait until it is over to book another."), 409),
    "not_enough_days": (lazy("That is %(length)s, but you have only %(left)s left in this game."), 422),
    "no_vacation": (lazy("You have no vacation booked in this game."), 409),
    "bad_time_zone": (lazy("%(shown)s is not a time zone like Europe/Paris or America/New_York."), 422),
    "empty_time_zone": (lazy("An empty name is not a time zone like Europe/Paris or America/New_York."), 422),
    "damaged_unsubscribe_link": (lazy("This unsubscribe link is damaged or was not made by us. "
                                      "Copy the whole link from your email."), 400),
    "old_unsubscribe_link": (lazy("This unsubscribe link belongs to an older address of this seat "
                                  "and no longer works."), 403),
}
EMPTY_ZONE = "An empty name"  # what pbem.games.clocks.preferences passes as `shown` for ""


DAY_LABELS = (lazy("first day"), lazy("last day"))  # the `label` of bad_date
declare_refusals(SENTENCES, translated=DAY_LABELS)


def refuse(code: str, **fields: Any) -> GameError:
    """The refusal `code` with its fields, its sentence in the current language (raise it)."""
    if code == "bad_time_zone":
        if fields.get("shown") in ("", EMPTY_ZONE):
            code = "empty_time_zone"
        fields["shown"] = repr(fields.get("shown", ""))
    return GameError(code, fields)
