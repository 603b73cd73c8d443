"""Card codes, the 78-card deck (R1.1-R1.3) and the small integers the core uses.

Every card code maps to a *kind*, an int in 0..27, laid out so that the
rules core can keep a hand as one bitmask of kinds present:

- 0..6    merchant ships M2..M8 (value = kind + 2)
- 7..26   five kinds per colour, green, blue, red, black in that order:
          strengths 1..4, then the colour's captain
- 27      the admiral
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from engine.errors import ConfigError

COLOURS: tuple[str, ...] = ("green", "blue", "red", "black")
COLOUR_LETTERS: tuple[str, ...] = ("G", "B", "R", "K")

MERCHANT_VALUES: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8)
MERCHANT_COUNTS: tuple[int, ...] = (5, 6, 5, 5, 2, 1, 1)  # R1.1: 100 gold in all
PIRATE_COUNTS: tuple[int, ...] = (2, 4, 4, 2)  # R1.2: strengths 1, 2, 3, 4 of one colour

N_KINDS = 28
ADMIRAL = 27
N_MERCHANT_KINDS = 7
FIRST_COLOUR_KIND = N_MERCHANT_KINDS  # kind of Green 1; each colour then has
KINDS_PER_COLOUR = 5  # strengths 1..4 at offsets 0..3,
CAPTAIN_OFFSET = 4  # and its captain at offset 4


def _build_codes() -> tuple[str, ...]:
    codes = [f"M{v}" for v in MERCHANT_VALUES]
    for letter in COLOUR_LETTERS:
        codes += [f"{letter}{s}" for s in (1, 2, 3, 4)] + [f"{letter}C"]
    codes.append("AD")
    return tuple(codes)


KIND_CODES: tuple[str, ...] = _build_codes()
CODE_KIND: dict[str, int] = {code: kind for kind, code in enumerate(KIND_CODES)}

# Per kind: colour index (-1 for merchants and the admiral), skulls, role.
KIND_COLOUR: tuple[int, ...] = tuple(
    (k - 7) // 5 if 7 <= k < 27 else -1 for k in range(N_KINDS))
KIND_STRENGTH: tuple[int, ...] = tuple(
    (k - 7) % 5 + 1 if 7 <= k < 27 and (k - 7) % 5 < 4 else 0 for k in range(N_KINDS))
KIND_IS_CAPTAIN: tuple[bool, ...] = tuple(
    7 <= k < 27 and (k - 7) % 5 == 4 for k in range(N_KINDS))
KIND_VALUE: tuple[int, ...] = tuple(
    MERCHANT_VALUES[k] if k < N_MERCHANT_KINDS else 0 for k in range(N_KINDS))

KIND_COUNTS: tuple[int, ...] = (
    MERCHANT_COUNTS + tuple(list(PIRATE_COUNTS) + [1]) * 4 + (1,))

FULL_DECK: tuple[str, ...] = tuple(
    code for kind, code in enumerate(KIND_CODES) for _ in range(KIND_COUNTS[kind]))

_FULL_COUNTER = Counter(FULL_DECK)


def colour_of(code: str) -> str:
    """The colour word of a card: "green", "blue", "red", "black" for pirates and
    captains, "white" for the admiral (R1.3), "merchant" for merchant ships."""
    kind = CODE_KIND.get(code) if isinstance(code, str) else None
    if kind is None:
        raise ValueError(f"Unknown card code {code!r}.")
    if kind < N_MERCHANT_KINDS:
        return "merchant"
    if kind == ADMIRAL:
        return "white"
    return COLOURS[KIND_COLOUR[kind]]


def is_card(code: object) -> bool:
    """True for one of the 28 card codes."""
    return isinstance(code, str) and code in CODE_KIND


def validate_deck(deck: Iterable[object]) -> list[str]:
    """The deck as a list of codes; ConfigError unless it is exactly the 78 cards."""
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Iterable):
        raise ConfigError("The deck must be a list of 78 card codes.")
    cards = list(deck)
    unknown = [c for c in cards if not is_card(c)]
    if unknown:
        raise ConfigError(f"Unknown card code {unknown[0]!r} in the deck.")
    if len(cards) != len(FULL_DECK) or Counter(cards) != _FULL_COUNTER:
        have = Counter(cards)
        for code in KIND_CODES:
            if have[code] != _FULL_COUNTER[code]:
                raise ConfigError(
                    f"The deck must be exactly the 78 Korsar cards: it has {len(cards)} cards, "
                    f"with {have[code]} x {code} instead of {_FULL_COUNTER[code]}.")
    return cards  # type: ignore[return-value]  # checked above: 78 card codes
