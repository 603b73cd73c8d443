"""Reading a reply into a move: the number printed next to each move in our emails (its 1-based
index in `view["legal_moves"]`), or the move in words, in any language we know, case and
diacritics ignored: `draw` / `piocher` / `rút bài`, `M5`, `B3 3`, `B3 on 3`, `attack 3 with B3`,
`GC 2`, `admiral 4`, `discard G1`, `corsaire bleu 3 sur 2`.

A line is a command only when every word in it is a move word, a card or a number; the first
such line is the move. Every other line (and a line starting with `say`) is talk.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import engine

from pbem.i18n import gettext as _


@dataclass(frozen=True)
class Vocabulary:
    """The move words of one language, written as players type them (folded when used)."""

    draw: tuple[str, ...]
    discard: tuple[str, ...]
    say: tuple[str, ...]
    colours: dict[str, str]  # word -> the card code's colour letter
    captain: tuple[str, ...]
    admiral: tuple[str, ...]
    merchant: tuple[str, ...]
    # Words with no meaning of their own in a move ("on", "with", "attack", "the", "pirate").
    fillers: tuple[str, ...] = ()


VOCABULARIES: dict[str, Vocabulary] = {
    "en": Vocabulary(
        draw=("draw", "draw a card", "pick", "pick a card"), discard=("discard", "throw away"),
        say=("say", "tell"),
        colours={"green": "G", "blue": "B", "red": "R", "black": "K"},
        captain=("captain",), admiral=("admiral",), merchant=("merchant ship", "merchant"),
        fillers=("on", "onto", "to", "with", "attack", "defend", "play", "the", "a", "my", "your",
                 "pirate", "card", "ship", "number", "no", "move"),
    ),
    "fr": Vocabulary(
        draw=("piocher", "pioche", "je pioche", "piocher une carte", "tirer", "tirer une carte"),
        discard=("defausser", "defausse", "je defausse", "jeter"), say=("dire", "dis"),
        colours={"vert": "G", "verte": "G", "bleu": "B", "bleue": "B", "rouge": "R",
                 "noir": "K", "noire": "K"},
        captain=("capitaine",), admiral=("amiral",),
        merchant=("navire marchand", "bateau marchand", "vaisseau marchand", "marchand"),
        fillers=("sur", "avec", "attaquer", "attaque", "defendre", "jouer", "joue", "je", "le", "la",
                 "les", "l", "un", "une", "mon", "ma", "ton", "ta", "corsaire", "pirate", "carte",
                 "numero", "no", "coup", "navire", "bateau", "vaisseau", "du", "de"),
    ),
    "vi": Vocabulary(
        draw=("rút bài", "rút", "rút một lá", "rút một lá bài", "rút thẻ", "bốc bài", "bốc", "bốc một lá",
              "lấy bài", "tôi rút"),
        discard=("bỏ bài", "bỏ", "bỏ lá", "loại bỏ", "vứt bài", "vứt", "tôi bỏ"), say=("nói", "nhắn"),
        colours={"xanh lá": "G", "xanh lá cây": "G", "xanh lục": "G", "xanh dương": "B", "xanh lam": "B",
                 "xanh da trời": "B", "đỏ": "R", "đen": "K"},
        captain=("thuyền trưởng", "thẻ thuyền trưởng"), admiral=("đô đốc", "thẻ đô đốc"),
        merchant=("tàu buôn", "thẻ tàu buôn"),
        fillers=("lên", "vào", "bằng", "với", "trên", "cho", "tấn công", "phòng thủ", "bảo vệ", "đánh",
                 "chơi", "đặt", "tôi", "của tôi", "lá bài", "lá", "thẻ", "tàu hải tặc", "hải tặc",
                 "cướp biển", "số", "tàu", "nước đi", "màu"),
    ),
}
LANGUAGES = tuple(VOCABULARIES)

_CODE = re.compile(r"^(m[2-8]|[gbrk][1-4c]|ad)$")
_NUMBER = re.compile(r"^\d{1,3}$")


def fold(text: str) -> str:
    """Lower case, no diacritics (đ is d), punctuation as spaces: what words are compared as."""
    text = text.lower().replace("đ", "d")
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


@dataclass(frozen=True)
class _Phrases:
    pattern: re.Pattern[str]
    meaning: dict[str, str]  # folded phrase -> token ("" for a filler)


def _phrases(languages: tuple[str, ...]) -> _Phrases:
    meaning: dict[str, str] = {}
    for lang in languages:
        words = VOCABULARIES[lang]
        for group, token in ((words.draw, "#draw"), (words.discard, "#discard"), (words.captain, "#captain"),
                             (words.admiral, "#admiral"), (words.merchant, "#merchant"), (words.fillers, "")):
            for phrase in group:
                meaning.setdefault(fold(phrase), token)
        for word, letter in words.colours.items():
            meaning.setdefault(fold(word), f"#colour:{letter}")
    alternatives = sorted(meaning, key=len, reverse=True)  # "do doc" (admiral) before "do" (red)
    return _Phrases(re.compile(r"\b(" + "|".join(re.escape(a) for a in alternatives) + r")\b"), meaning)


_PHRASES = {languages: _phrases(languages) for languages in [LANGUAGES]}


def _phrases_for(languages: tuple[str, ...]) -> _Phrases:
    if languages not in _PHRASES:
        _PHRASES[languages] = _phrases(languages)
    return _PHRASES[languages]


@dataclass(frozen=True)
class Command:
    """One line read as a move: a chosen number, or the move's parts."""

    number: int | None = None
    action: str | None = None  # draw | discard | play
    card: str | None = None
    target: int | None = None


def read_command(line: str, languages: tuple[str, ...] = LANGUAGES) -> Command | None:
    """The move `line` says, or None when it is not a command (then it is talk)."""
    folded = fold(line)
    if not folded:
        return None
    phrases = _phrases_for(languages)
    tokens = phrases.pattern.sub(lambda m: f" {phrases.meaning[m.group(1)] or ' '} ", folded).split()
    cards: list[str] = []
    numbers: list[int] = []
    flags: set[str] = set()
    i = 0
    while i < len(tokens):
        token, following = tokens[i], tokens[i + 1] if i + 1 < len(tokens) else ""
        if token.startswith("#colour:"):
            letter = token.split(":")[1]
            if _NUMBER.match(following) and 1 <= int(following) <= 4:
                cards.append(f"{letter}{following}")
            elif following == "#captain":
                cards.append(f"{letter}C")
            else:
                return None
            i += 2
            continue
        if token == "#captain" and following.startswith("#colour:"):
            cards.append(f"{following.split(':')[1]}C")
            i += 2
            continue
        if token == "#merchant" and _NUMBER.match(following):
            cards.append(f"M{following}")
            i += 2
            continue
        if token == "#admiral":
            cards.append("AD")
        elif token in ("#draw", "#discard"):
            flags.add(token)
        elif _CODE.match(token):
            cards.append(token.upper())
        elif _NUMBER.match(token):
            numbers.append(int(token))
        else:
            return None  # a word that is no move word: this line is talk
        i += 1
    return _command(flags, cards, numbers)


def _command(flags: set[str], cards: list[str], numbers: list[int]) -> Command | None:
    if flags == {"#draw"} and not cards and not numbers:
        return Command(action="draw")
    if flags == {"#discard"} and len(cards) == 1 and not numbers:
        return Command(action="discard", card=cards[0])
    if not flags and len(cards) == 1 and len(numbers) <= 1 and cards[0] in engine.FULL_DECK:
        return Command(action="play", card=cards[0], target=numbers[0] if numbers else None)
    if not flags and not cards and len(numbers) == 1:
        return Command(number=numbers[0])
    return None


@dataclass(frozen=True)
class Reading:
    """A reply read against the moves the seat has: the move, or why it cannot be played as
    written (with the numbers of the moves it could mean), and the words that are talk."""

    move: dict[str, Any] | None = None
    problem: str | None = None
    choices: list[int] = field(default_factory=list)  # 1-based move numbers
    command: str | None = None  # the line read as the move
    talk: list[str] = field(default_factory=list)


def say_text(line: str, languages: tuple[str, ...] = LANGUAGES) -> str | None:
    """The words of a `say ...` line (any language's say word), or None."""
    first, _, rest = line.strip().partition(" ")
    words = {fold(w) for lang in languages for w in VOCABULARIES[lang].say}
    if fold(first.rstrip(":")) in words:
        return rest.strip(" :") or None
    return None


def read_reply(text: str, legal_moves: list[dict[str, Any]], languages: tuple[str, ...] = LANGUAGES) -> Reading:
    """Read a reply (quotes already stripped): its first command line is the move."""
    talk: list[str] = []
    found: tuple[str, Command] | None = None
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        said = say_text(line, languages)
        if said is not None:
            talk.append(said)
            continue
        command = read_command(line, languages)
        if command is None:
            talk.append(line)
        elif found is None:
            found = (line, command)
    if found is None:
        return Reading(talk=talk)
    line, command = found
    return _resolve(line, command, legal_moves, talk)


def _resolve(line: str, command: Command, legal: list[dict[str, Any]], talk: list[str]) -> Reading:
    if command.number is not None:
        if 1 <= command.number <= len(legal):
            return Reading(move=legal[command.number - 1], command=line, talk=talk)
        if not legal:
            return Reading(problem=_("You have no moves to choose from now."), command=line, talk=talk)
        return Reading(problem=_("There is no move %(number)s: reply with one number from 1 to %(last)s.",
                                 number=command.number, last=len(legal)),
                       command=line, talk=talk, choices=list(range(1, len(legal) + 1)))
    if command.action == "draw":
        return Reading(move={"action": "draw"}, command=line, talk=talk)
    if command.action == "discard":
        return Reading(move={"action": "discard", "card": command.card}, command=line, talk=talk)
    move: dict[str, Any] = {"action": "play", "card": command.card}
    if command.target is not None:
        move["target"] = command.target
        return Reading(move=move, command=line, talk=talk)
    fits = [i for i, m in enumerate(legal, 1) if m.get("action") == "play" and m.get("card") == command.card]
    if len(fits) == 1:
        return Reading(move=legal[fits[0] - 1], command=line, talk=talk)
    if len(fits) > 1:
        numbers = _("%(some)s or %(last)s", some=", ".join(str(n) for n in fits[:-1]), last=fits[-1])
        return Reading(problem=_('"%(line)s" could be more than one move: reply with %(numbers)s '
                                 "(or name the ship too).", line=line, numbers=numbers),
                       choices=fits, command=line, talk=talk)
    return Reading(move=move, command=line, talk=talk)  # the rules will say why not
