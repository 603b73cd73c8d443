"""The colours of cards and sides for the emails' inline styles: the same values as
pbem/static/colours.css (the pages' classes), checked by tests/pbem/test_templating.py.

The colour word of `engine.colour_of` is always printed beside its colour (colour-blind readers).
"""
from __future__ import annotations

# Background and text colour of each colour word of `engine.colour_of`.
CARD_STYLE: dict[str, tuple[str, str]] = {
    "green": ("#2e7d32", "#ffffff"),
    "blue": ("#1565c0", "#ffffff"),
    "red": ("#c62828", "#ffffff"),
    "black": ("#212121", "#ffffff"),
    "white": ("#ffffff", "#212121"),
    "merchant": ("#f5e6c8", "#3e2723"),
}
NO_COLOUR_STYLE = ("#eeeeee", "#212121")  # a side with no colour yet (only the Admiral)


def colour_style(colour: str | None) -> tuple[str, str]:
    """Background and text colour of a side's colour word ("blue"); grey for none (only the Admiral)."""
    if colour is None or colour not in CARD_STYLE or colour == "merchant":
        return NO_COLOUR_STYLE
    return CARD_STYLE[colour]
