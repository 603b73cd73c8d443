"""One line read as a move (`parse`): a move number, or the move's parts (verb, card, ship), or
talk; and `read_command`, the move a line names in full."""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import engine

from pbem.i18n import LANGUAGES
from pbem.inbound.lexer import Token, lex, lexicon
from pbem.inbound.vocabulary import (ADMIRAL, ATTACK, CAPTAIN, CODE, COLOUR, DEFEND, DISCARD, DRAW, FILLERS,
                                     GOLD, MERCHANT, MINE, NUMBER, NUMBER_LINE, NUMWORD, OF, ON, OR,
                                     PLAY, POSS, SHIP, VERBS, WORD)

@dataclass(frozen=True)
class Command:
    """One line read as a move: a chosen number, or the move's parts (`read_command`)."""

    number: int | None = None
    action: str | None = None  # draw | discard | play
    card: str | None = None
    target: int | None = None


@dataclass(frozen=True)
class Spec:
    """What a command line says: a move number (or several), or the parts of a move."""

    action: str  # number | numbers | draw | discard | play | target (a ship but no card)
    numbers: tuple[int, ...] = ()
    card: str | None = None  # the card code, when the line names it in full
    family: str | None = None  # else "G".."K" (a colour's pirate), "captain" or "merchant"
    target: int | None = None
    ship_value: int | None = None  # "ship 2 (4 gold)": the gold the ship is said to carry
    owner: tuple[str, ...] = ()  # "Bob's ship 2": the folded words of its owner's name
    verb: str | None = None  # attack | defend, when said
    own_ship: bool = False  # "my ship", "votre vaisseau 1": the target is the writer's own
    certain: bool = False  # named in full, without doubt: the rules may refuse it themselves
    ship_number: int | None = None  # "jouer le vaisseau 3" read as the 3-gold ship: 3 may be move 3


class Failed(NamedTuple):
    """A line made of move words that is no move ("B3 B4", "jouer 2")."""

    number_inside_words: bool


TALK = "talk"  # a line with a word that means nothing in a move
EMPTY = "empty"  # a line of courtesy, pronouns and articles only
Parsed = Spec | Failed | str


@dataclass
class _Ship:
    number: int | None  # None: "my ship", "un vaisseau"
    definite: bool = False  # surely a ship on the table, not the merchant card "vaisseau 3"
    owner: tuple[str, ...] = ()
    value: int | None = None
    mine: bool = False  # "my ship", "votre vaisseau 1", "tàu 1 của bạn"


@dataclass(frozen=True)
class _Card:
    code: str | None = None
    family: str | None = None
    certain: bool = True


_NEVER = Failed(False)
STRENGTHS = ("1", "2", "3", "4")
COLOURS = ("G", "B", "R", "K")  # the colour letters of the card codes


def _is_gold(token: Token | None) -> bool:
    """A gold word; English "or" too, which French reads as gold ("(3 or)")."""
    return token is not None and (token.kind == GOLD or (token.kind == OR and token.folded == ("or",)))


def parse(tokens: list[Token]) -> Parsed:
    """What the tokens of one line say (see `Spec`), or TALK, EMPTY or Failed."""
    if any(t.kind == WORD for t in _unowned(tokens)):
        return TALK
    if all(t.kind in FILLERS for t in tokens):
        return EMPTY
    numbers = _number_line(tokens)
    if numbers:
        return Spec("numbers" if len(numbers) > 1 else "number", numbers=numbers)
    return _move(_Reader([t for t in tokens if (t.kind not in FILLERS or t.kind == MINE) and t.kind != NUMWORD]))


def _unowned(tokens: list[Token]) -> list[Token]:
    """The tokens left once the unknown words that name a ship's owner ("de Bob", "Bob's",
    "của Bob") are taken out."""
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        if tokens[i].kind == WORD:
            j = i
            while j < len(tokens) and tokens[j].kind == WORD:
                j += 1
            after_of = len(out) > 1 and out[-1].kind == OF and out[-2].kind in (NUMBER, SHIP)
            if after_of or (j + 1 < len(tokens) and tokens[j].kind == POSS and tokens[j + 1].kind == SHIP):
                i = j
                continue
        out.append(tokens[i])
        i += 1
    return out


def _number_line(tokens: list[Token]) -> tuple[int, ...]:
    """The number(s) of a line that is only a number ("2", "#2 please", "2 or 3"), else ()."""
    core = [t for t in tokens if t.kind not in NUMBER_LINE]
    if not core or core[0].kind != NUMBER or core[-1].kind != NUMBER:
        return ()
    numbers: list[int] = []
    for i, t in enumerate(core):
        if t.kind == NUMBER:
            numbers.append(int(t.value))
        elif not (t.kind in (OR, GOLD) and core[i - 1].kind == NUMBER and core[i + 1].kind == NUMBER):
            return ()
    return tuple(dict.fromkeys(numbers))


class _Reader:
    """The meaningful tokens of a line, read left to right into verbs, cards and ships."""

    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0

    def peek(self, ahead: int = 0) -> Token | None:
        at = self.i + ahead
        return self.tokens[at] if at < len(self.tokens) else None

    def kind(self, ahead: int = 0) -> str | None:
        token = self.peek(ahead)
        return token.kind if token else None

    def number(self, ahead: int = 0) -> int:
        token = self.peek(ahead)
        return int(token.value) if token is not None and token.kind == NUMBER else -1

    def words_run(self) -> tuple[str, ...]:
        run: list[str] = []
        while self.kind() == WORD:
            run.append(self.tokens[self.i].value)
            self.i += 1
        return tuple(run)


def _move(r: _Reader) -> Spec | Failed:
    verbs: set[str] = set()
    cards: list[_Card] = []
    ships: list[_Ship] = []
    bare: list[int] = []
    while r.peek() is not None:
        kind = r.kind()
        if kind in VERBS:
            verbs.add(kind or "")
            r.i += 1
        elif kind == MINE and r.kind(1) not in (SHIP, WORD):
            r.i += 1  # "my" before anything but a ship says nothing
        elif kind in (COLOUR, CAPTAIN, ADMIRAL, CODE, MERCHANT):
            card = _card(r)
            if card is None:
                return _NEVER
            cards.append(card)
        elif kind in (ON, SHIP, WORD, MINE):
            got = _ship_or_merchant(r)
            if got is None:
                return _NEVER
            if isinstance(got, _Ship):
                ships.append(got)
            else:
                cards.append(got)
        elif kind == NUMBER:
            value = r.number()
            if _is_gold(r.peek(1)):  # "3 gold", "5 gold ship": a merchant ship's value
                r.i += 2
                if r.kind() in (SHIP, MERCHANT):
                    r.i += 1
                cards.append(_Card(code=f"M{value}"))
            elif r.kind(1) == SHIP and r.kind(2) != NUMBER:  # "my 5 ship"
                r.i += 2
                cards.append(_Card(code=f"M{value}", certain=False))
            else:
                bare.append(value)
                r.i += 1
        else:  # a gold word, "of", "'s" or "or" with nothing to belong to
            return _NEVER
    return _spec(verbs, cards, ships, bare)


def _card(r: _Reader) -> _Card | None:
    token = r.peek()
    assert token is not None
    r.i += 1
    if token.kind == CODE:
        return _Card(code=token.value)
    if token.kind == ADMIRAL:
        return _Card(code="AD")
    if token.kind == COLOUR:
        if r.kind() == NUMBER:
            strength = r.number()
            r.i += 1
            return _Card(code=f"{token.value}{strength}") if 1 <= strength <= 4 else None
        if r.kind() == CAPTAIN:
            r.i += 1
            return _Card(code=f"{token.value}C")
        return _Card(family=token.value)
    if token.kind == CAPTAIN:
        colour = r.peek()
        if colour is not None and colour.kind == COLOUR:
            r.i += 1
            return _Card(code=f"{colour.value}C")
        return _Card(family="captain")
    # a merchant ship: "merchant 5", "Tàu Buôn của bạn (3 vàng)", "merchant ship of 3 gold"
    if r.kind() == MINE:
        r.i += 1
    if r.kind() == OF and r.kind(1) == NUMBER:
        r.i += 1
    if r.kind() == NUMBER:
        value = r.number()
        r.i += 1
        if _is_gold(r.peek()):
            r.i += 1
        return _Card(code=f"M{value}")
    return _Card(family="merchant")


def _ship_or_merchant(r: _Reader) -> _Ship | _Card | None:
    """ "on 3", "sur le vaisseau 2 de Bob (4 or)", "Bob's ship 2", "tàu 1 của bạn (3 vàng)", "my
    ship"; or the merchant card a ship word names with its gold: "Vaisseau (3 or)", "vaisseau de 5"."""
    definite = r.kind() == ON
    if definite:
        r.i += 1
        if r.kind() == NUMBER:
            ship = _Ship(r.number(), definite=True)
            r.i += 1
            return ship
    mine = r.kind() == MINE
    if mine:
        r.i += 1
    owner = r.words_run()
    if owner:
        if r.kind() != POSS or r.kind(1) != SHIP:
            return None
        r.i += 1
    if r.kind() != SHIP:
        return None
    r.i += 1
    if r.kind() == MINE:  # "tàu của tôi"
        mine = True
        r.i += 1
    valued = r.kind() == OF and r.kind(1) == NUMBER  # "vaisseau de 5"
    if valued:
        r.i += 1
    if r.kind() != NUMBER:
        return None if owner or valued else _Ship(None, definite=definite, mine=mine)
    number = r.number()
    r.i += 1
    if _is_gold(r.peek()) or valued:  # "Vaisseau (3 or)", "tàu 3 vàng", "vaisseau de 5 (pièces d'or)"
        r.i += 1 if _is_gold(r.peek()) else 0
        return None if definite or owner else _Card(code=f"M{number}")
    ship = _Ship(number, definite=definite or bool(owner), owner=owner, mine=mine)
    if r.kind() == MINE:  # "tàu 1 của bạn"
        ship.mine = True
        r.i += 1
    if r.kind() == OF:
        r.i += 1
        ship.owner = r.words_run()
        if not ship.owner:
            return None
        ship.definite = True
    if r.kind() == NUMBER and _is_gold(r.peek(1)):
        ship.value = r.number()
        ship.definite = True
        r.i += 2
    return ship


def _spec(verbs: set[str], cards: list[_Card], ships: list[_Ship], bare: list[int]) -> Spec | Failed:
    fighting = verbs & {ATTACK, DEFEND}
    verb = next(iter(fighting)) if len(fighting) == 1 else None
    inside = Failed(number_inside_words=bool(bare) and not cards)
    ship_number = None
    if not cards and len(ships) == 1 and not ships[0].definite and not fighting and not bare \
            and PLAY in verbs:  # a ship word played is the merchant card: "jouer le vaisseau 3", "je pose mon vaisseau"
        ship_number = ships[0].number
        cards, ships = [_Card(code=f"M{ship_number}", certain=False) if ship_number else _Card(family="merchant")], []
    if any(c.code is not None and c.code not in engine.FULL_DECK for c in cards):
        return _NEVER
    if DRAW in verbs:
        return Spec(DRAW, certain=True) if verbs == {DRAW} and not (cards or ships or bare) else inside
    if len(cards) > 1 or (DISCARD in verbs and verbs != {DISCARD}):
        return _NEVER
    targets = ships + [_Ship(n) for n in bare]
    if DISCARD in verbs:
        if len(cards) != 1 or targets:
            return inside
        card = cards[0]
        return Spec(DISCARD, card=card.code, family=card.family, certain=card.code is not None)
    if len(targets) > 1:
        return inside if not cards else _NEVER
    aim = targets[0] if targets else None
    if not cards:  # "attack ship 3", "on my ship": a ship but no card; "jouer 2": a number inside words
        if aim is not None and (aim.number is not None or aim.mine) and (fighting or aim.definite or aim.mine):
            return Spec("target", target=aim.number, ship_value=aim.value, owner=aim.owner, verb=verb,
                        own_ship=aim.mine)
        return inside
    card = cards[0]
    if (card.code or "").startswith("M") or card.family == "merchant":
        if aim is not None or fighting:
            return _NEVER
        return Spec(PLAY, card=card.code, family=card.family, certain=card.certain and card.code is not None,
                    ship_number=ship_number)
    target = aim.number if aim else None
    return Spec(PLAY, card=card.code, family=card.family, target=target,
                ship_value=aim.value if aim else None, owner=aim.owner if aim else (), verb=verb,
                own_ship=aim.mine if aim else False, certain=card.code is not None and target is not None)


def read_command(line: str, languages: tuple[str, ...] = tuple(LANGUAGES)) -> Command | None:
    """The move `line` names in full, or None (talk, courtesy, or not a whole move)."""
    parsed = parse(lex(line, lexicon(tuple(languages))))
    if not isinstance(parsed, Spec):
        return None
    if parsed.action == "number":
        return Command(number=parsed.numbers[0])
    if parsed.action == DRAW:
        return Command(action=DRAW)
    if parsed.action in (DISCARD, PLAY) and parsed.card is not None:
        return Command(action=parsed.action, card=parsed.card, target=parsed.target)
    return None

