"""R1: the 78 cards, their codes and their names."""
from collections import Counter

import pytest

from engine import FULL_DECK, ConfigError, card_name, validate_deck


def test_r1_1_twenty_five_merchant_ships_worth_100_gold():
    merchants = Counter(c for c in FULL_DECK if c.startswith("M"))
    assert merchants == {"M2": 5, "M3": 6, "M4": 5, "M5": 5, "M6": 2, "M7": 1, "M8": 1}
    assert sum(int(c[1:]) * n for c, n in merchants.items()) == 100


def test_r1_2_twelve_pirate_ships_in_each_of_four_colours():
    for letter in "GBRK":
        pirates = Counter(c for c in FULL_DECK if c[0] == letter and c[1].isdigit())
        assert pirates == {f"{letter}1": 2, f"{letter}2": 4, f"{letter}3": 4, f"{letter}4": 2}
    assert sum(1 for c in FULL_DECK if c[0] in "GBRK" and c[1].isdigit()) == 48


def test_r1_3_four_captains_and_one_admiral():
    assert Counter(c for c in FULL_DECK if c.endswith("C")) == {"GC": 1, "BC": 1, "RC": 1, "KC": 1}
    assert FULL_DECK.count("AD") == 1
    assert len(FULL_DECK) == 78


@pytest.mark.parametrize("code, name", [
    ("B3", "Blue 3"), ("G1", "Green 1"), ("R4", "Red 4"), ("K2", "Black 2"),
    ("BC", "Blue captain"), ("KC", "Black captain"), ("AD", "Admiral"),
    ("M5", "Merchant ship (5 gold)"), ("M8", "Merchant ship (8 gold)"),
])
def test_card_names_write_the_colour_out(code, name):
    assert card_name(code) == name


def test_validate_deck_accepts_any_order_of_the_78_cards():
    assert validate_deck(list(reversed(FULL_DECK))) == list(reversed(FULL_DECK))


@pytest.mark.parametrize("deck, words", [
    (list(FULL_DECK[:-1]), "77 cards"),
    (list(FULL_DECK) + ["M2"], "79 cards"),
    (list(FULL_DECK[:-1]) + ["Z9"], "Unknown card code 'Z9'"),
    (list(FULL_DECK[:-1]) + ["M2"], "M2"),
    ("M2 M3", "list"),
])
def test_validate_deck_refuses_anything_but_the_78_cards(deck, words):
    with pytest.raises(ConfigError, match=words):
        validate_deck(deck)
