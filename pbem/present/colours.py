"""The cards' colours as values: the one table pbem/static/colours.css writes as classes (checked
by tests/pbem/test_card_colours.py), and each colour's mark.

A colour is never told by its hue alone (colour-blind readers, greyscale screens): its word is
printed beside it, each pirate colour has a mark of its own shape (written in the HTML by
`pbem.mail.render.card_html`, so emails carry it too) and a lightness of its own (black, then
red, blue and a light green with dark text: tests/pbem/test_card_colours.py measures them).
"""
from __future__ import annotations

# Background and text colour of each colour word of `engine.colour_of`.
CARD_STYLE: dict[str, tuple[str, str]] = {
    "green": ("#72c076", "#212121"),
    "blue": ("#1b6ccb", "#ffffff"),
    "red": ("#931c1c", "#ffffff"),
    "black": ("#212121", "#ffffff"),
    "white": ("#ffffff", "#212121"),
    "merchant": ("#f5e6c8", "#3e2723"),
}
# The chips' border, on every chip: a mid grey stays visible on a white page and on the near
# black of a mail client that inverts the email's colours.
CHIP_BORDER = "#8a8a8a"

# One shape per colour, beside the colour word (the word stays what a screen reader reads).
# U+FE0E asks for the anchor's text form: some systems draw U+2693 as a coloured emoji.
MARK: dict[str, str] = {
    "green": "\u25b2",  # ▲
    "blue": "\u25cf",  # ●
    "red": "\u25c6",  # ◆
    "black": "\u25a0",  # ■
    "white": "\u2693\ufe0e",  # ⚓ the Admiral
}


def mark(colour: str | None) -> str:
    """The shape drawn beside colour word `colour`; "" for a merchant ship or no colour yet."""
    return MARK.get(colour or "", "")
