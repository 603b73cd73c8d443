"""A command line against the seat's legal moves (`line_outcome`): the move it names, or why
nothing is played with the numbers of the moves it could mean."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from pbem.i18n import gettext as _
from pbem.inbound.lexer import Lexicon, Token, fold, lex
from pbem.inbound.move_line import COLOURS, EMPTY, STRENGTHS, TALK, Failed, Spec, parse
from pbem.inbound.vocabulary import ATTACK, CHOOSE, DEFEND, DRAW, NUMBER, PLAY, POLITE, PRONOUN

MAX_SHOWN_LINE = 80  # characters of a line quoted back in a refusal
_PREFIX = re.compile(r"^\s*#?\s*(\d{1,3})\s*[.):]\s*(?=\S)")


@dataclass(frozen=True)
class _Facts:
    """What our labels say of one legal move: their folded words and text, and attack or defend."""

    words: frozenset[str]
    texts: tuple[str, ...]
    verbs: frozenset[str]
    mine: bool  # a label says the ship is the writer's own ("your ship 1", "tàu 1 của bạn")


@dataclass(frozen=True)
class Outcome:
    line: str
    move: dict[str, Any] | None = None
    number: int | None = None  # the move's number, when it is a legal one
    choices: tuple[int, ...] = ()
    problem: str | None = None
    ambiguous: bool = False  # the choices are the moves the line fits (not every move)


@lru_cache(maxsize=4_096)
def label_tokens(label: str, lex_: Lexicon) -> tuple[Token, ...]:
    """A label's tokens (the same labels come with every reply of a turn)."""
    return tuple(lex(label, lex_))


def move_facts(labels: list[list[str]] | None, printed: list[list[tuple[Token, ...]]] | None) -> list[_Facts] | None:
    if labels is None or printed is None:
        return None
    out = []
    for i, tokens in enumerate(printed):
        texts = tuple(fold(label) for label in (labels[i] if i < len(labels) else []))
        verbs = frozenset(t.kind for line in tokens for t in line if t.kind in (ATTACK, DEFEND))
        mine = any(isinstance(spec, Spec) and spec.own_ship for spec in (parse(list(line)) for line in tokens))
        out.append(_Facts(frozenset(w for t in texts for w in t.split()), texts, verbs, mine))
    return out


def label_key(tokens: list[Token]) -> tuple[int | None, str]:
    """A line as compared with our labels: its folded words without courtesy or pronouns at its
    ends, and the move number it starts with ("2. Play your merchant ship (3 gold)"), if any."""
    start, end = 0, len(tokens)
    while start < end and tokens[start].kind in POLITE | {PRONOUN, CHOOSE}:
        start += 1
    while end > start and tokens[end - 1].kind in POLITE | {PRONOUN}:
        end -= 1
    number = None
    if start < end - 1 and tokens[start].kind == NUMBER:
        number = int(tokens[start].value)
        start += 1
    return number, " ".join(w for t in tokens[start:end] for w in t.folded)


def label_index(printed: list[list[tuple[Token, ...]]] | None) -> dict[str, set[int]]:
    index: dict[str, set[int]] = {}
    for i, lines in enumerate(printed or [], start=1):
        for tokens in lines:
            number, key = label_key(list(tokens))
            if key and number is None:
                index.setdefault(key, set()).add(i)
    return index


def line_outcome(line: str, tokens: list[Token], legal: list[dict[str, Any]], facts: list[_Facts] | None,
             index: dict[str, set[int]], lex_: Lexicon) -> Outcome | None:
    """What a command line comes to against the legal moves; None when it is no command."""
    number, key = label_key(tokens)
    if key in index:  # a label of ours, copied
        return _by_label(line, number, sorted(index[key]), legal)
    prefix = _PREFIX.match(line)
    if prefix is not None:  # "2. Draw a card": the number and the words must agree
        rest = parse(lex(line[prefix.end():], lex_))
        if rest == TALK:
            return None
        number = int(prefix.group(1))
        if rest == EMPTY:
            return _by_number(line, number, legal)
        outcome = _by_spec(line, rest, legal, facts)
        if outcome.number == number or (outcome.ambiguous and number in outcome.choices):
            return _by_number(line, number, legal)
        return _disagree(line, number, outcome, legal)
    parsed = parse(tokens)
    if parsed in (TALK, EMPTY):
        return None
    return _by_spec(line, parsed, legal, facts)


def shown(line: str) -> str:
    return line if len(line) <= MAX_SHOWN_LINE else line[:MAX_SHOWN_LINE - 1].rstrip() + "…"


def numbers_text(numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return str(numbers[0])
    return _("%(some)s or %(last)s", some=", ".join(str(n) for n in numbers[:-1]), last=numbers[-1])


def _none_fits(line: str, legal: list[dict[str, Any]], inside: bool = False) -> Outcome:
    if not legal:
        return Outcome(line, problem=_("You have no moves to choose from now."))
    every = tuple(range(1, len(legal) + 1))
    if inside:
        return Outcome(line, choices=every, problem=_(
            '"%(line)s" is none of your moves: a number inside other words is not read as a move '
            "number. Reply with the number alone on its line, from 1 to %(last)s.",
            line=shown(line), last=len(legal)))
    return Outcome(line, choices=every, problem=_(
        '"%(line)s" is none of your moves now: reply with one number from 1 to %(last)s.',
        line=shown(line), last=len(legal)))


def _by_number(line: str, number: int, legal: list[dict[str, Any]]) -> Outcome:
    if 1 <= number <= len(legal):
        return Outcome(line, move=legal[number - 1], number=number)
    if not legal:
        return Outcome(line, problem=_("You have no moves to choose from now."))
    return Outcome(line, choices=tuple(range(1, len(legal) + 1)),
                    problem=_("There is no move %(number)s: reply with one number from 1 to %(last)s.",
                              number=number, last=len(legal)))


def _ambiguous(line: str, choices: Sequence[int], *, ship_only: bool = False) -> Outcome:
    numbers = numbers_text(choices)
    if ship_only:
        problem = _('"%(line)s" could be more than one move: reply with %(numbers)s (or name the ship too).',
                    line=shown(line), numbers=numbers)
    else:
        problem = _('"%(line)s" could be more than one move: reply with %(numbers)s.',
                    line=shown(line), numbers=numbers)
    return Outcome(line, choices=tuple(choices), problem=problem, ambiguous=True)


def _disagree(line: str, number: int, outcome: Outcome, legal: list[dict[str, Any]]) -> Outcome:
    """ "3. Draw a card" when 3 is no draw: which one was meant is not ours to guess."""
    named = [outcome.number] if outcome.number else list(outcome.choices) if outcome.ambiguous else []
    choices = sorted({n for n in [number, *named] if n is not None and 1 <= n <= len(legal)})
    if not choices:
        return _none_fits(line, legal)
    return Outcome(line, choices=tuple(choices), ambiguous=True, problem=_(
        '"%(line)s": its number and its words name different moves. Reply with %(numbers)s.',
        line=shown(line), numbers=numbers_text(choices)))


def _by_label(line: str, number: int | None, fits: list[int], legal: list[dict[str, Any]]) -> Outcome:
    if number is not None and number not in fits:
        return _disagree(line, number, Outcome(line, choices=tuple(fits), ambiguous=True), legal)
    if number is not None or len(fits) == 1:
        chosen = number if number is not None else fits[0]
        return Outcome(line, move=legal[chosen - 1], number=chosen)
    return _ambiguous(line, fits)


def _by_spec(line: str, parsed: Spec | Failed | str, legal: list[dict[str, Any]],
             facts: list[_Facts] | None) -> Outcome:
    if isinstance(parsed, Failed):
        return _none_fits(line, legal, inside=parsed.number_inside_words)
    if not isinstance(parsed, Spec):
        return _none_fits(line, legal)
    if parsed.action == "number":
        return _by_number(line, parsed.numbers[0], legal)
    if parsed.action == "numbers":
        valid = [n for n in parsed.numbers if 1 <= n <= len(legal)]
        return _ambiguous(line, valid) if valid else _by_number(line, parsed.numbers[0], legal)
    fits = [i for i, move in enumerate(legal, 1) if _fits(parsed, move, facts[i - 1] if facts else None)]
    if parsed.action == "target":  # a ship but no card: never guessed
        if not fits:
            return _none_fits(line, legal)
        return Outcome(line, choices=tuple(fits), ambiguous=True, problem=_(
            '"%(line)s" does not say which card to play: reply with %(numbers)s.',
            line=shown(line), numbers=numbers_text(fits)))
    other_ship = _ship_by_its_number(parsed, legal)
    if fits and other_ship is not None and other_ship not in fits:
        return _ambiguous(line, sorted([*fits, other_ship]))
    if len(fits) == 1:
        return Outcome(line, move=legal[fits[0] - 1], number=fits[0])
    if fits:
        ship_only = parsed.card is not None and parsed.target is None
        return _ambiguous(line, fits, ship_only=ship_only)
    move = _whole_move(parsed)
    if move is not None and move not in legal:
        return Outcome(line, move=move)  # named in full: the rules say why it cannot be played
    return _none_fits(line, legal)


def _ship_by_its_number(spec: Spec, legal: list[dict[str, Any]]) -> int | None:
    """ "Jouer le vaisseau 3" with ships of 3 and 5 gold in hand, the 5 being move 3: the 3 is the
    ship's gold or the move's number, and the words fit both ships."""
    number = spec.ship_number
    if number is None or not 1 <= number <= len(legal):
        return None
    move = legal[number - 1]
    is_ship = move.get("action") == PLAY and str(move.get("card", "")).startswith("M") and move.get("target") is None
    return number if is_ship else None


def _whole_move(spec: Spec) -> dict[str, Any] | None:
    if not spec.certain:
        return None
    if spec.action == DRAW:
        return {"action": DRAW}
    move: dict[str, Any] = {"action": spec.action, "card": spec.card}
    if spec.target is not None:
        move["target"] = spec.target
    return move


def _fits(spec: Spec, move: dict[str, Any], facts: _Facts | None) -> bool:
    action = PLAY if spec.action == "target" else spec.action
    if move.get("action") != action:
        return False
    if action == DRAW:
        return True
    card = str(move.get("card", ""))
    if spec.card is not None and card != spec.card:
        return False
    if spec.family == "merchant" and not card.startswith("M"):
        return False
    if spec.family == "captain" and not (len(card) == 2 and card[1] == "C"):
        return False
    if spec.family in COLOURS and not (card[:1] == spec.family and card[1:] in STRENGTHS):
        return False
    if spec.action == "target" and (card.startswith("M") or len(card) != 2):
        return False
    if spec.target is not None and move.get("target") != spec.target:
        return False
    if card.startswith("M") and move.get("target") is not None:
        return False
    if facts is None:  # without our labels, "my ship" cannot be told from another
        return not (spec.own_ship and spec.target is None)
    return _agrees(spec, facts)


def _agrees(spec: Spec, facts: _Facts) -> bool:
    """What the line says beyond card and ship agrees with our label of the move: the owner's
    name, the ship's gold, "my ship", attack or defend."""
    if not facts.texts:
        return not (spec.own_ship and spec.target is None)
    if spec.own_ship and not facts.mine:
        return False
    if spec.owner and not set(spec.owner) <= facts.words:
        return False
    if spec.ship_value is not None:
        gold = re.compile(rf"\b{spec.ship_value} (gold|or|vang)\b")
        if not any(gold.search(text) for text in facts.texts):
            return False
    # "attack" or "defend" tells moves apart only when no ship number does: the number is ours, the
    # verb is loose wording ("attack 7 with R3" on one's own ship 7 is that move)
    return spec.target is not None or not (spec.verb is not None and facts.verbs and spec.verb not in facts.verbs)


