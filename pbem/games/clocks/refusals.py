"""What a player reads when a preference, vacation or unsubscribe request is refused: every
sentence in one table, raised as one exception type (`Refused`, a GameError with its code).

The checks in `pbem.games.clocks.vacation` and `pbem.games.clocks.preferences` raise `refuse(code, ...)`,
so the words cannot drift from the rule; pages show `Refused.message` as is.
"""
from __future__ import annotations

from typing import Any

from pbem.games.service import GameError

# code -> (sentence, HTTP status); the sentence is filled in with the fields given to `refuse`.
SENTENCES: dict[str, tuple[str, int]] = {
    "game_over": ("This game is over: no vacation needed.", 410),
    "bad_date": ("The {label} must be a date like 2026-07-14.", 422),
    "last_before_first": ("The last day of your vacation must not be before its first day.", 422),
    "in_the_past": ("A vacation cannot start in the past.", 422),
    "too_far_ahead": ("The last day of your vacation must be within the next {days} days (by {by}).", 422),
    "already_booked": ("You already have a vacation booked in this game; "
                       "wait until it is over to book another.", 409),
    "not_enough_days": ("That is {length:.1f} days, but you have only {left:g} vacation days left "
                        "in this game.", 422),
    "no_vacation": ("You have no vacation booked in this game.", 409),
    "bad_time_zone": ("{shown!r} is not a time zone like Europe/Paris or America/New_York.", 422),
    "damaged_unsubscribe_link": ("This unsubscribe link is damaged or was not made by us. "
                                 "Copy the whole link from your email.", 400),
    "old_unsubscribe_link": ("This unsubscribe link belongs to an older address of this seat "
                             "and no longer works.", 403),
}


class Refused(GameError):
    """A refused preference, vacation or unsubscribe request; `code` is its key in SENTENCES."""

    def __init__(self, code: str, message: str, status: int) -> None:
        super().__init__(message, status)
        self.code = code


def refuse(code: str, **fields: Any) -> Refused:
    """The refusal `code` with its sentence filled in (raise it)."""
    sentence, status = SENTENCES[code]
    return Refused(code, sentence.format(**fields), status)
