"""The card colours: one table for pages and emails (pbem/static/colours.css written from
pbem/present/colours.py), text on every chip readable (WCAG AA), the four pirate colours apart
for every reader (CIEDE2000 after simulating each colour-vision deficiency and greyscale:
tests/pbem/colour_vision.py), each with its own mark written in the chip's HTML, a captain drawn
unlike a pirate of its colour, and a chip border that an inverting mail client keeps visible."""
from __future__ import annotations

import itertools
import re
from pathlib import Path

import engine
import pytest
from colour_vision import VISIONS, contrast, distance

from pbem.mail.render import card_html
from pbem.present import colours
from pbem.present.phrases import card

CSS = (Path(__file__).parents[2] / "pbem/static/colours.css").read_text()
PIRATES = ("green", "blue", "red", "black")
# Below about 10 two small chips look alike; below about 3 they are one colour.
APART = 10.0
DARK_MODE_BACKGROUND = "#121212"  # what an inverting client (Gmail, Outlook apps) paints behind


def _rule(selector: str) -> str:
    found = re.search(r"(?:^|[\s,}])%s\b[^{]*\{([^}]*)\}" % re.escape(selector), CSS)
    assert found, f"no {selector} in colours.css"
    return found[1]


@pytest.mark.parametrize("colour", sorted(colours.CARD_STYLE))
def test_colours_css_holds_the_card_colours_of_present_colours(colour):
    background, text = colours.CARD_STYLE[colour]
    assert f"background: {background}; color: {text};" in _rule(f".card-{colour}")


@pytest.mark.parametrize("colour", sorted(colours.CARD_STYLE))
def test_the_text_on_every_chip_reads_at_aa_contrast(colour):
    background, text = colours.CARD_STYLE[colour]
    assert contrast(background, text) >= 4.5


@pytest.mark.parametrize("vision", sorted(VISIONS))
def test_the_four_pirate_colours_stay_apart_for_every_reader(vision):
    close = {(a, b): round(distance(colours.CARD_STYLE[a][0], colours.CARD_STYLE[b][0], vision), 1)
             for a, b in itertools.combinations(PIRATES, 2)}
    assert min(close.values()) >= APART, close


def test_red_and_green_are_far_apart_for_a_deuteranope():
    """The audit's worst pair (6.6 with the old palette): a dark red against a light green."""
    red, green = colours.CARD_STYLE["red"][0], colours.CARD_STYLE["green"][0]
    assert distance(red, green, "deuteranopia") >= 20


@pytest.mark.parametrize("code", sorted(set(engine.FULL_DECK)))
def test_every_chip_carries_its_colours_mark_beside_its_name(code):
    c = card(code)
    html = str(card_html(c))
    if c.colour == "merchant":
        assert 'class="mark"' not in html  # the ship's gold is its mark
        return
    assert f'<span class="mark" aria-hidden="true">{colours.MARK[c.colour]}</span> {c.name}</span>' in html


def test_each_colour_has_a_mark_of_its_own():
    assert len(set(colours.MARK.values())) == len(colours.MARK) == len(PIRATES) + 1  # and the Admiral


@pytest.mark.parametrize("code", sorted(set(engine.FULL_DECK)))
def test_a_captain_is_drawn_outlined_and_a_pirate_filled(code):
    html = str(card_html(card(code)))
    assert ("captain" in html.split(">")[0]) == (code[1:] == "C")


def test_the_outlined_captain_is_white_with_dark_text_and_its_colours_border():
    assert "background: #ffffff; color: #212121;" in _rule(".card.captain")
    for colour in PIRATES:
        assert f"border-color: {colours.CARD_STYLE[colour][0]};" in _rule(f".card-{colour}.captain")


def test_every_chip_has_a_border_seen_on_a_white_page_and_on_an_inverted_one():
    assert f"border: 1px solid {colours.CHIP_BORDER};" in _rule(".card, .colour")
    for background in ("#ffffff", DARK_MODE_BACKGROUND):
        assert contrast(colours.CHIP_BORDER, background) >= 3  # WCAG 1.4.11, non-text contrast
