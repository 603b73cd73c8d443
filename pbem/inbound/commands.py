"""Reading a reply into a move, and into the words its writer meant for the others (issue 22).

A move is played only when the reply names it without doubt:

- a number alone on its line ("2", "#2", "n°2", "coup 2", "số 2 nhé", "2 merci") is the move of
  that number (its 1-based place in `legal_moves`, the number our emails print). A number inside
  other words is never a move number: "jouer le vaisseau 3" is the 3-gold merchant ship or nothing;
- a label our email printed for a move (`labels[i]`), copied as is, with or without its number,
  whatever the mail client did to its case, diacritics, punctuation and spaces;
- the move in words, in the seat's language and English ("I'll draw a card, thanks!", "je pose
  mon vaisseau de 5", "défendre mon vaisseau 1 avec le bleu 1", "tấn công tàu 2 bằng xanh lá 2",
  "B3 on 3", "GC 2", "admiral on my ship"). Case, diacritics, articles, possessives, pronouns,
  politeness and gold words do not matter; a word that means nothing in a move makes the line
  talk, not a command. What the line says beyond the card and the ship (the owner's name, the
  ship's gold, "my ship"; attack or defend when no ship number is given) must agree with our
  label of the move.

When two moves fit, nothing is played and the candidates are numbered; when none fits, nothing is
played and every move is (a move named in full that the rules refuse, "attack 7 with G2" with no
ship 7, goes to the rules, which say why). Two command lines naming different moves: nothing is
played; but a card's name as our hands print it ("Blue 3") under the writer's move is a line of
our email, quoted, and ends the writer's text. Vietnamese words are matched with their
diacritics when they carry any ("đỏ" red is not "đó" that, "lá" card is not "là"); only a word
typed without any is matched folded.

Talk: `said` is what a line starting with a say word ("say", "dis", "nói"...) and the rest of its
paragraph say; `remarks` are the other lines that are real talk: never courtesy ("Merci", "Cảm ơn
nhé"), the writer's own name, a signature, a move line or a line that failed to be one.

Bounded: the first 50 lines and 2,000 characters are read for a move, 200 lines and 20,000
characters at all; every step is linear in the length of the text.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple

import engine

from pbem import i18n
from pbem.i18n import gettext as _
from pbem.present.phrases import card_name

MAX_TEXT = 20_000  # characters of a reply looked at at all
MAX_LINES = 200  # lines of a reply looked at at all
COMMAND_LINES = 50  # a move is looked for in the first 50 lines...
COMMAND_CHARS = 2_000  # ...and the first 2,000 characters
MAX_COMMAND_LINE = 300  # a longer line is never a move
MAX_SHOWN_LINE = 80  # characters of a line quoted back in a refusal

# ---------------------------------------------------------------- the words of a move
# Token kinds. Verbs, card words, ship words and markers carry meaning; the "fillers" do not.
DRAW, DISCARD, PLAY, ATTACK, DEFEND = "draw", "discard", "play", "attack", "defend"
COLOUR, PIRATE, CAPTAIN, ADMIRAL, MERCHANT, SHIP, GOLD = (
    "colour", "pirate", "captain", "admiral", "merchant", "ship", "gold")
NUMWORD, CHOOSE, ON, WITH, OF, POSS, MINE, OR = "numword", "choose", "on", "with", "of", "poss", "mine", "or"
ARTICLE, CARD, ONECARD, PRONOUN = "article", "card", "onecard", "pronoun"
COURTESY, GREETING, CLOSING, SAY, TELL = "courtesy", "greeting", "closing", "say", "tell"
NUMBER, CODE, WORD = "number", "code", "word"  # made by the lexer, not by a vocabulary

VERBS = frozenset({DRAW, DISCARD, PLAY, ATTACK, DEFEND})
POLITE = frozenset({COURTESY, GREETING, CLOSING})
# Dropped before a line is read as a move: they say nothing about which move.
FILLERS = frozenset({ARTICLE, CARD, ONECARD, PRONOUN, MINE, WITH, PIRATE, CHOOSE} | POLITE)
# What may stand around a move number on its line ("the 2 please", "je choisis le 2", "coup n°2").
NUMBER_LINE = frozenset({NUMWORD, CHOOSE, ARTICLE, PRONOUN} | POLITE)

# How players write moves, per language, as they type them (with their diacritics). "colour:G" is
# the colour whose card codes start with G.
VOCABULARIES: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        DRAW: ("draw", "draws", "drawing", "pick a card", "pick up a card", "take a card"),
        DISCARD: ("discard", "discards", "throw away", "throw out", "get rid of"),
        PLAY: ("play", "plays", "put", "place", "lay", "lay down", "use"),
        ATTACK: ("attack", "attacks", "raid"),
        DEFEND: ("defend", "defends", "reinforce", "protect"),
        "colour:G": ("green",), "colour:B": ("blue",), "colour:R": ("red",), "colour:K": ("black",),
        PIRATE: ("pirate", "pirates", "pirate ship", "pirate card"),
        CAPTAIN: ("captain", "capt"),
        ADMIRAL: ("admiral",),
        MERCHANT: ("merchant", "merchant ship", "merchantman", "merchant card"),
        SHIP: ("ship", "boat", "vessel"),
        GOLD: ("gold", "golds", "gold coins", "coins"),
        NUMWORD: ("number", "no", "nr", "num", "move", "move number", "option", "choice"),
        CHOOSE: ("choose", "i choose", "pick", "i pick", "take", "i take", "go for", "go with"),
        ON: ("on", "onto", "on to", "to", "at", "against"),
        WITH: ("with", "using"),
        OF: ("of",),
        POSS: ("'s",),
        MINE: ("my", "your", "my own", "mine", "own"),
        ARTICLE: ("the", "a", "an"),
        CARD: ("card", "cards"),
        ONECARD: ("a card", "one card", "1 card", "another card", "a new card", "the top card"),
        PRONOUN: ("i", "i'll", "i will", "i'd", "i would", "i'm", "i am", "i'm going to", "i am going to",
                  "going to", "gonna", "let me", "let's", "lets", "i want to", "i'd like to",
                  "i would like to", "will", "just", "now", "then"),
        COURTESY: ("please", "pls", "plz", "thanks", "thank you", "thanks a lot", "thank you so much",
                   "thanks so much", "many thanks", "thx", "ty", "ok", "okay"),
        GREETING: ("hi", "hello", "hey", "hi there", "dear", "good morning", "good evening", "morning"),
        CLOSING: ("cheers", "regards", "best", "best regards", "kind regards", "warm regards",
                  "best wishes", "all the best", "yours", "sincerely", "bye", "see you", "see ya",
                  "take care", "love", "xoxo", "xx", "cheerio"),
        OR: ("or", "and"),
        SAY: ("say",), TELL: ("tell",),
    },
    "fr": {
        DRAW: ("piocher", "pioche", "pioches", "piochez", "pioché", "tirer", "tire", "tirez",
               "prendre une carte", "prends une carte", "repiocher"),
        DISCARD: ("défausser", "défausse", "défausses", "défaussez", "défaussé", "me défausser de",
                  "me défausse de", "jeter", "jette", "écarter", "écarte"),
        PLAY: ("jouer", "joue", "joues", "jouez", "poser", "pose", "poses", "posez", "mettre", "mets",
               "mettez", "placer", "place", "placez", "utiliser", "utilise"),
        ATTACK: ("attaquer", "attaque", "attaques", "attaquez"),
        DEFEND: ("défendre", "défends", "défend", "défendez", "renforcer", "renforce", "protéger",
                 "protège"),
        "colour:G": ("vert", "verte", "verts"), "colour:B": ("bleu", "bleue", "bleus"),
        "colour:R": ("rouge", "rouges"), "colour:K": ("noir", "noire", "noirs"),
        PIRATE: ("corsaire", "corsaires", "pirate", "navire pirate", "bateau pirate"),
        CAPTAIN: ("capitaine",),
        ADMIRAL: ("amiral",),
        MERCHANT: ("marchand", "navire marchand", "vaisseau marchand", "bateau marchand",
                   "navire de commerce"),
        SHIP: ("vaisseau", "vaisseaux", "navire", "bateau"),
        GOLD: ("or", "d'or", "pièces d'or", "pièce d'or", "pièces", "écus"),
        NUMWORD: ("n", "no", "num", "numéro", "coup", "coup numéro", "option", "choix"),
        CHOOSE: ("je choisis", "choisis", "je prends", "prends"),
        ON: ("sur", "au", "contre"),
        WITH: ("avec", "par"),
        OF: ("de", "du", "d"),
        MINE: ("mon", "ma", "mes", "votre", "vos", "ton", "ta", "tes", "le mien", "à moi"),
        ARTICLE: ("le", "la", "les", "l", "un", "une", "des", "ce", "cet", "cette"),
        CARD: ("carte", "cartes"),
        ONECARD: ("une carte", "1 carte", "une nouvelle carte", "une autre carte"),
        PRONOUN: ("je", "j", "moi", "moi je", "je vais", "vais", "je veux", "je voudrais", "alors",
                  "donc", "bon", "maintenant"),
        COURTESY: ("merci", "merci beaucoup", "merci bien", "mille mercis", "merci à toi", "merci à vous",
                   "svp", "stp", "s'il vous plaît", "s'il te plaît", "d'accord", "ok"),
        GREETING: ("bonjour", "bonsoir", "salut", "coucou", "cher", "chère", "chers"),
        CLOSING: ("cordialement", "bien cordialement", "bien à vous", "bises", "bisous", "grosses bises",
                  "amitiés", "amicalement", "à bientôt", "à plus", "à plus tard", "tchao", "ciao",
                  "bonne journée", "bonne soirée", "bonne nuit", "salutations"),
        OR: ("ou", "et"),
        SAY: ("dis", "dire", "dites"),
    },
    "vi": {
        DRAW: ("rút", "rút bài", "rút lá", "rút thêm", "bốc", "bốc bài", "bốc thêm", "lấy bài",
               "lấy một lá", "lấy 1 lá"),
        DISCARD: ("bỏ", "bỏ bài", "bỏ lá", "loại", "loại bỏ", "vứt", "vứt bài", "vứt bỏ"),
        PLAY: ("đặt", "đánh", "chơi", "ra", "ra bài", "dùng", "thả"),
        ATTACK: ("tấn công", "cướp"),
        DEFEND: ("phòng thủ", "bảo vệ", "giữ"),
        "colour:G": ("xanh lá", "xanh lá cây", "xanh lục"),
        "colour:B": ("xanh dương", "xanh lam", "xanh da trời", "xanh nước biển"),
        "colour:R": ("đỏ",), "colour:K": ("đen",),
        PIRATE: ("tàu hải tặc", "hải tặc", "tàu cướp biển", "cướp biển", "thuyền hải tặc"),
        CAPTAIN: ("thuyền trưởng",),
        ADMIRAL: ("đô đốc",),
        MERCHANT: ("tàu buôn", "thuyền buôn"),
        SHIP: ("tàu", "thuyền", "con tàu", "chiếc tàu"),
        GOLD: ("vàng", "đồng vàng"),
        NUMWORD: ("số", "nước", "nước đi", "nước số", "nước đi số", "lựa chọn", "phương án"),
        CHOOSE: ("chọn", "tôi chọn", "mình chọn", "em chọn"),
        ON: ("lên", "vào", "trên", "cho"),
        WITH: ("bằng", "với"),
        OF: ("của",),
        MINE: ("của tôi", "của mình", "của em", "của bạn", "của anh", "của chị", "của tớ"),
        ARTICLE: ("cái", "con", "chiếc", "quân"),
        CARD: ("lá", "lá bài", "bài", "thẻ", "quân bài"),
        ONECARD: ("một lá", "một lá bài", "1 lá", "1 lá bài", "một thẻ", "1 thẻ", "một quân"),
        PRONOUN: ("tôi", "mình", "em", "anh", "chị", "tớ", "sẽ", "tôi sẽ", "để tôi", "bây giờ", "giờ",
                  "luôn", "đi", "thôi", "xin"),
        COURTESY: ("nhé", "nha", "ạ", "nhá", "nhe", "cảm ơn", "cám ơn", "cảm ơn nhiều", "cám ơn nhiều",
                   "cảm ơn bạn", "cám ơn bạn", "xin cảm ơn", "làm ơn", "vâng", "dạ", "ok", "được"),
        GREETING: ("chào", "xin chào", "chào bạn", "chào cả nhà", "chào mọi người"),
        CLOSING: ("thân", "thân mến", "thân ái", "trân trọng"),
        OR: ("hoặc", "hay", "và"),
        SAY: ("nói",), TELL: ("nhắn",),
    },
}
LANGUAGES: tuple[str, ...] = tuple(VOCABULARIES)
_LATIN = frozenset({"en", "fr"})  # a word with accents may be matched folded only in these...
_FRENCH = frozenset("àâäçéèêëîïôöùûüÿœæ")  # ...and only when its accents are French ones

# ---------------------------------------------------------------- words and folding
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "°": " ", "º": " ", "#": " "})
_WORD = re.compile(r"[^\W_]+")
_RUN = re.compile(r"\d+|[^\W\d_]+")
_CODE = re.compile(r"m[2-8]|[gbrk][1-4c]|ad")
_MAX_NUMBER_DIGITS = 3


def fold(text: str) -> str:
    """Lower case, no diacritics (đ is d), punctuation as spaces: how a label is compared."""
    text = unicodedata.normalize("NFKD", text.lower().replace("đ", "d"))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^a-z0-9]+", " ", text).split())


@lru_cache(maxsize=65_536)
def _fold_word(word: str) -> str:
    return fold(word).replace(" ", "")


def words(line: str) -> list[str]:
    """The words of a line, lower case with their diacritics (NFKC): letters and digits apart
    ("n°2" is "n", "2"), a card code kept whole ("g2")."""
    text = unicodedata.normalize("NFKC", line.translate(_APOSTROPHES)).lower()
    out: list[str] = []
    for word in _WORD.findall(text):
        if word.isascii() and _CODE.fullmatch(word):
            out.append(word)
        else:
            out.extend(_RUN.findall(word))
    return out


class Token(NamedTuple):
    kind: str
    value: str  # a colour letter, a card code, a number's digits, the folded words of a WORD
    folded: tuple[str, ...]  # the folded words it was made of


@dataclass(frozen=True)
class _Entry:
    raw: tuple[str, ...]
    folded: tuple[str, ...]
    kind: str
    value: str
    rank: int  # the place of its language in `languages`
    latin: bool


@dataclass(frozen=True, eq=False)  # one per tuple of languages (`lexicon` caches it): hashed by identity
class Lexicon:
    """The phrases of some languages, indexed by their first word (raw and folded)."""

    by_raw: dict[str, list[_Entry]]
    by_folded: dict[str, list[_Entry]]


@lru_cache(maxsize=16)
def lexicon(languages: tuple[str, ...]) -> Lexicon:
    """The seat's languages' words, then the courtesy of every other language we know ("merci"
    under an English seat's move is courtesy too)."""
    by_raw: dict[str, list[_Entry]] = {}
    by_folded: dict[str, list[_Entry]] = {}
    spoken = list(dict.fromkeys(lang for lang in languages if lang in VOCABULARIES))
    others = [lang for lang in VOCABULARIES if lang not in spoken]
    for rank, lang in enumerate(spoken + others):
        for key, phrases in VOCABULARIES[lang].items():
            kind, _sep, value = key.partition(":")
            if lang in others and kind not in POLITE:
                continue
            for phrase in phrases:
                raw = tuple(words(phrase))
                entry = _Entry(raw, tuple(_fold_word(w) for w in raw), kind, value, rank, lang in _LATIN)
                by_raw.setdefault(raw[0], []).append(entry)
                by_folded.setdefault(entry.folded[0], []).append(entry)
    for index in (by_raw, by_folded):
        for entries in index.values():
            entries.sort(key=lambda e: (-len(e.raw), e.rank))  # "do doc" (admiral) before "do" (red)
    return Lexicon(by_raw, by_folded)


def _matches(entry: _Entry, raw: list[str], folded: list[str], at: int) -> bool:
    """A word typed with diacritics matches only the same word (or, in English and French, the
    same word folded when its accents are French: "dèfends"); a word typed without any matches the
    folded word."""
    if at + len(entry.raw) > len(raw):
        return False
    for j, want in enumerate(entry.raw):
        word = raw[at + j]
        if word.isascii():
            if folded[at + j] != entry.folded[j]:
                return False
        elif word != want and not (entry.latin and folded[at + j] == entry.folded[j]
                                   and _FRENCH.issuperset(c for c in word if not c.isascii())):
            return False
    return True


def lex(line: str, lex_: Lexicon) -> list[Token]:
    """The tokens of a line: the longest phrase of the vocabularies at each word, else a number,
    a card code or an unknown WORD."""
    raw = words(line)
    folded = [_fold_word(w) for w in raw]
    tokens: list[Token] = []
    i = 0
    while i < len(raw):
        word = raw[i]
        if word.isascii():
            entry = next((e for e in lex_.by_folded.get(folded[i], []) if _matches(e, raw, folded, i)), None)
        else:  # as typed first; folded only a French accent ("dèfends"; "lá" is not "la", "lấy" not "lay")
            entry = next((e for e in lex_.by_raw.get(word, []) if _matches(e, raw, folded, i)), None)
            if entry is None and _FRENCH.issuperset(c for c in word if not c.isascii()):
                entry = next((e for e in lex_.by_folded.get(folded[i], []) if e.latin and _matches(e, raw, folded, i)),
                             None)
        if entry is not None:
            tokens.append(Token(entry.kind, entry.value, tuple(folded[i:i + len(entry.raw)])))
            i += len(entry.raw)
            continue
        if word.isascii() and word.isdigit() and len(word) <= _MAX_NUMBER_DIGITS:
            tokens.append(Token(NUMBER, str(int(word)), (word,)))
        elif word.isascii() and _CODE.fullmatch(word):
            tokens.append(Token(CODE, word.upper(), (word,)))
        else:
            tokens.append(Token(WORD, folded[i], (folded[i],)))
        i += 1
    # "no", "move", "coup", "số" are number words only before a number: "no draw" is talk
    return [Token(WORD, " ".join(t.folded), t.folded) if t.kind in (NUMWORD, SAY, TELL) and not _numbered(tokens, i)
            else t for i, t in enumerate(tokens)]


def _numbered(tokens: list[Token], i: int) -> bool:
    """A number word with its number after it (a say word is never: inside a line it is talk)."""
    if tokens[i].kind != NUMWORD:
        return False
    for t in tokens[i + 1:]:
        if t.kind == NUMBER:
            return True
        if t.kind not in (NUMWORD, ARTICLE):
            return False
    return False


# ---------------------------------------------------------------- a line read as a move
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
_STRENGTHS = ("1", "2", "3", "4")
_COLOURS = ("G", "B", "R", "K")  # the colour letters of the card codes


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
    if not cards and len(ships) == 1 and not ships[0].definite and not fighting and not bare \
            and PLAY in verbs:  # a ship word played is the merchant card: "jouer le vaisseau 3", "je pose mon vaisseau"
        number = ships[0].number
        cards, ships = [_Card(code=f"M{number}", certain=False) if number else _Card(family="merchant")], []
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
        return Spec(PLAY, card=card.code, family=card.family, certain=card.certain and card.code is not None)
    target = aim.number if aim else None
    return Spec(PLAY, card=card.code, family=card.family, target=target,
                ship_value=aim.value if aim else None, owner=aim.owner if aim else (), verb=verb,
                own_ship=aim.mine if aim else False, certain=card.code is not None and target is not None)


def read_command(line: str, languages: tuple[str, ...] = LANGUAGES) -> Command | None:
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


# ---------------------------------------------------------------- a reply read against the moves
@dataclass(frozen=True)
class Reading:
    """A reply read against the moves the seat has: the move, or why nothing is played (with the
    numbers of the moves it could mean), and the words that are talk."""

    move: dict[str, Any] | None = None  # one of legal_moves, or a move named in full the rules refuse
    problem: str | None = None  # why nothing is played, in the current language
    choices: list[int] = field(default_factory=list)  # 1-based numbers of the candidate moves
    command: str | None = None  # the line read as the move
    said: list[str] = field(default_factory=list)  # what the writer explicitly addressed to the others
    remarks: list[str] = field(default_factory=list)  # other real talk: to pass on only with a played move


@dataclass(frozen=True)
class _Facts:
    """What our labels say of one legal move: their folded words and text, and attack or defend."""

    words: frozenset[str]
    texts: tuple[str, ...]
    verbs: frozenset[str]
    mine: bool  # a label says the ship is the writer's own ("your ship 1", "tàu 1 của bạn")


@dataclass(frozen=True)
class _Outcome:
    line: str
    move: dict[str, Any] | None = None
    number: int | None = None  # the move's number, when it is a legal one
    choices: tuple[int, ...] = ()
    problem: str | None = None
    ambiguous: bool = False  # the choices are the moves the line fits (not every move)


_SEPARATOR = re.compile(r"^(?:-{2,}|—+|–{2,}|_{2,}|={2,}|\*{3,})$")  # "-- ", "——", "____"
_SENT_FROM = re.compile(r"^(sent from|sent with|get outlook|envoy[ée] (de|depuis)|g[ửu]i t[ừu])\b", re.I)
_PIECE = re.compile(r"[\w-]+")
_SIGNED = (10, 4, 10)  # the shortest pieces of a signed token: payload.timestamp.signature
_PREFIX = re.compile(r"^\s*#?\s*(\d{1,3})\s*[.):]\s*(?=\S)")
_GREETING_WORDS = 3  # "Hi Bob", "Thanks again Bob": a courtesy phrase and two words more is courtesy


def read_reply(text: str, legal_moves: list[dict[str, Any]], *, labels: list[list[str]] | None = None,
               languages: tuple[str, ...] = LANGUAGES, own_names: Iterable[str] = ()) -> Reading:
    """Read a reply whose quotes are already stripped (see the module docstring).

    `labels[i]`: the label(s) our emails printed for `legal_moves[i]`, in the seat's language and
    English; `languages`: the seat's language first, then "en"; `own_names`: the writer's seat name
    and its parts (a line that is only that name is a signature, never talk)."""
    lex_ = lexicon(tuple(languages))
    printed_labels = [[_label_tokens(text, lex_) for text in (labels[i] if i < len(labels) else [])]
                      for i in range(len(legal_moves))] if labels is not None else None
    facts = _facts(labels, printed_labels)
    index = _label_index(printed_labels)
    names = frozenset(w for name in own_names for w in fold(name).split())
    outcomes: list[_Outcome] = []
    hands_only = True  # every command line so far is a card's name as our hands print it
    printed = _printed_cards(tuple(languages))
    said: list[str] = []
    remarks: list[str] = []
    in_say = False
    chars = 0
    for number, raw_line in enumerate(text[:MAX_TEXT].split("\n")[:MAX_LINES]):
        line = raw_line.strip()
        chars += len(raw_line) + 1
        if not line:
            in_say = False
            continue
        if _SEPARATOR.match(line) or _SENT_FROM.match(line):
            break  # a signature, or the client's own line: nothing after it is the writer's text
        if line.startswith(">"):
            continue  # a quoted line that reached us all the same: never the writer's
        spoken = _said(line, lex_)
        if spoken is not None:
            if spoken and not _secret(spoken):
                said.append(spoken)
            in_say = True
            continue
        tokens = lex(line, lex_) if len(line) <= MAX_COMMAND_LINE else []
        if tokens and _own_name(tokens, names):
            break  # the writer signs: the rest is their signature
        outcome = _command(line, tokens, legal_moves, facts, index, lex_) if tokens else None
        if outcome is not None:
            hand = _label_key(tokens)[1] in printed
            if hand and outcomes and not hands_only:
                break  # a line of the hand we printed under the writer's move: our email, quoted
            hands_only = hands_only and hand
            if number < COMMAND_LINES and chars <= COMMAND_CHARS:
                outcomes.append(outcome)
            in_say = False
            continue
        if tokens and all(t.kind in POLITE | FILLERS for t in tokens) and any(t.kind == CLOSING for t in tokens):
            break  # "Cheers", "Cordialement", "Thân": what follows is a signature
        if not any(w for w in words(line)) or (tokens and _courteous(tokens)) or _secret(line):
            continue
        (said if in_say else remarks).append(line)
    return _reading(outcomes, legal_moves, said, remarks)


@lru_cache(maxsize=16)
def _printed_cards(languages: tuple[str, ...]) -> frozenset[str]:
    """Every card's name as the hands in our emails print it ("Blue 3", "Vaisseau (5 or)"), folded."""
    names: set[str] = set()
    for lang in languages:
        if lang in VOCABULARIES:
            with i18n.using(lang):
                names.update(fold(card_name(code)) for code in set(engine.FULL_DECK))
    return frozenset(names)


def _secret(line: str) -> bool:
    """A signed token, a link of ours or a reply address in the line: never passed on (the quote
    stripper drops our email; this is the belt to its braces). Linear: no backtracking regex."""
    for word in line.split():
        at, plus = word.find("@"), word.find("+")
        if 0 <= plus < at:  # "play+1-0-0-rvn5dgxrym3rnh5e@korsar.test"
            return True
        if "://" in word and any(f"/{kind}/" in word for kind in "mgu"):
            return True
        for part in re.split(r"[^\w.-]", word):
            pieces = part.split(".")
            for i in range(len(pieces) - 2):
                if all(len(p) >= n and _PIECE.fullmatch(p) for p, n in zip(pieces[i:i + 3], _SIGNED)):
                    return True
    return False


def _said(line: str, lex_: Lexicon) -> str | None:
    """The words of a line that starts with a say word ("say well played", "nhắn: đợi nhé" ->
    "well played", "đợi nhé"); a "tell" word with no colon, or a "dis-moi", stays in: "tell Bob
    to wait"), else None."""
    head = re.match(r"\s*([^\W\d_]+)", line)
    kind = _say_kind(head.group(1), lex_) if head else None
    if head is None or kind is None:
        return None
    after = line[head.end():]
    rest = after.strip(" :,-–—\t")
    whole = not after.lstrip().startswith(":") and (kind == TELL or after.startswith("-"))
    return line.strip() if rest and whole else rest


def _say_kind(first: str, lex_: Lexicon) -> str | None:
    raw = words(first)
    if len(raw) != 1:
        return None
    folded = [_fold_word(raw[0])]
    entries = lex_.by_folded.get(folded[0], []) if raw[0].isascii() else lex_.by_raw.get(raw[0], [])
    entry = next((e for e in entries if len(e.raw) == 1 and _matches(e, raw, folded, 0)), None)
    return entry.kind if entry is not None and entry.kind in (SAY, TELL) else None


def _own_name(tokens: list[Token], names: frozenset[str]) -> bool:
    """ "Ann", "— Ann B.", "Cheers, Ann": the writer's name, with courtesy around it at most."""
    if not names:
        return False
    initials = {n[0] for n in names}
    seen = False
    for token in tokens:
        if all(w in names or (len(w) == 1 and w in initials) for w in token.folded):
            seen = seen or any(w in names for w in token.folded)
        elif token.kind not in POLITE:
            return False
    return seen


def _courteous(tokens: list[Token]) -> bool:
    """Courtesy only ("Merci !", "Thank you", "Cảm ơn nhé"), or a greeting or thanks and a name
    ("Hi Bob,", "Thanks again")."""
    if all(t.kind in POLITE | FILLERS for t in tokens):
        return True
    return tokens[0].kind in (COURTESY, GREETING) and len(tokens) <= _GREETING_WORDS


# ---------------------------------------------------------------- command lines against the moves
@lru_cache(maxsize=4_096)
def _label_tokens(label: str, lex_: Lexicon) -> tuple[Token, ...]:
    """A label's tokens (the same labels come with every reply of a turn)."""
    return tuple(lex(label, lex_))


def _facts(labels: list[list[str]] | None, printed: list[list[tuple[Token, ...]]] | None) -> list[_Facts] | None:
    if labels is None or printed is None:
        return None
    out = []
    for i, tokens in enumerate(printed):
        texts = tuple(fold(label) for label in (labels[i] if i < len(labels) else []))
        verbs = frozenset(t.kind for line in tokens for t in line if t.kind in (ATTACK, DEFEND))
        mine = any(isinstance(spec, Spec) and spec.own_ship for spec in (parse(list(line)) for line in tokens))
        out.append(_Facts(frozenset(w for t in texts for w in t.split()), texts, verbs, mine))
    return out


def _label_key(tokens: list[Token]) -> tuple[int | None, str]:
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


def _label_index(printed: list[list[tuple[Token, ...]]] | None) -> dict[str, set[int]]:
    index: dict[str, set[int]] = {}
    for i, lines in enumerate(printed or [], start=1):
        for tokens in lines:
            number, key = _label_key(list(tokens))
            if key and number is None:
                index.setdefault(key, set()).add(i)
    return index


def _command(line: str, tokens: list[Token], legal: list[dict[str, Any]], facts: list[_Facts] | None,
             index: dict[str, set[int]], lex_: Lexicon) -> _Outcome | None:
    """What a command line comes to against the legal moves; None when it is no command."""
    number, key = _label_key(tokens)
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


def _shown(line: str) -> str:
    return line if len(line) <= MAX_SHOWN_LINE else line[:MAX_SHOWN_LINE - 1].rstrip() + "…"


def _numbers_text(numbers: Sequence[int]) -> str:
    if len(numbers) == 1:
        return str(numbers[0])
    return _("%(some)s or %(last)s", some=", ".join(str(n) for n in numbers[:-1]), last=numbers[-1])


def _none_fits(line: str, legal: list[dict[str, Any]], inside: bool = False) -> _Outcome:
    if not legal:
        return _Outcome(line, problem=_("You have no moves to choose from now."))
    every = tuple(range(1, len(legal) + 1))
    if inside:
        return _Outcome(line, choices=every, problem=_(
            '"%(line)s" is none of your moves: a number inside other words is not read as a move '
            "number. Reply with the number alone on its line, from 1 to %(last)s.",
            line=_shown(line), last=len(legal)))
    return _Outcome(line, choices=every, problem=_(
        '"%(line)s" is none of your moves now: reply with one number from 1 to %(last)s.',
        line=_shown(line), last=len(legal)))


def _by_number(line: str, number: int, legal: list[dict[str, Any]]) -> _Outcome:
    if 1 <= number <= len(legal):
        return _Outcome(line, move=legal[number - 1], number=number)
    if not legal:
        return _Outcome(line, problem=_("You have no moves to choose from now."))
    return _Outcome(line, choices=tuple(range(1, len(legal) + 1)),
                    problem=_("There is no move %(number)s: reply with one number from 1 to %(last)s.",
                              number=number, last=len(legal)))


def _ambiguous(line: str, choices: Sequence[int], *, ship_only: bool = False) -> _Outcome:
    numbers = _numbers_text(choices)
    if ship_only:
        problem = _('"%(line)s" could be more than one move: reply with %(numbers)s (or name the ship too).',
                    line=_shown(line), numbers=numbers)
    else:
        problem = _('"%(line)s" could be more than one move: reply with %(numbers)s.',
                    line=_shown(line), numbers=numbers)
    return _Outcome(line, choices=tuple(choices), problem=problem, ambiguous=True)


def _disagree(line: str, number: int, outcome: _Outcome, legal: list[dict[str, Any]]) -> _Outcome:
    """ "3. Draw a card" when 3 is no draw: which one was meant is not ours to guess."""
    named = [outcome.number] if outcome.number else list(outcome.choices) if outcome.ambiguous else []
    choices = sorted({n for n in [number, *named] if n is not None and 1 <= n <= len(legal)})
    if not choices:
        return _none_fits(line, legal)
    return _Outcome(line, choices=tuple(choices), ambiguous=True, problem=_(
        '"%(line)s": its number and its words name different moves. Reply with %(numbers)s.',
        line=_shown(line), numbers=_numbers_text(choices)))


def _by_label(line: str, number: int | None, fits: list[int], legal: list[dict[str, Any]]) -> _Outcome:
    if number is not None and number not in fits:
        return _disagree(line, number, _Outcome(line, choices=tuple(fits), ambiguous=True), legal)
    if number is not None or len(fits) == 1:
        chosen = number if number is not None else fits[0]
        return _Outcome(line, move=legal[chosen - 1], number=chosen)
    return _ambiguous(line, fits)


def _by_spec(line: str, parsed: Spec | Failed | str, legal: list[dict[str, Any]],
             facts: list[_Facts] | None) -> _Outcome:
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
        return _Outcome(line, choices=tuple(fits), ambiguous=True, problem=_(
            '"%(line)s" does not say which card to play: reply with %(numbers)s.',
            line=_shown(line), numbers=_numbers_text(fits)))
    if len(fits) == 1:
        return _Outcome(line, move=legal[fits[0] - 1], number=fits[0])
    if fits:
        ship_only = parsed.card is not None and parsed.target is None
        return _ambiguous(line, fits, ship_only=ship_only)
    move = _whole_move(parsed)
    if move is not None and move not in legal:
        return _Outcome(line, move=move)  # named in full: the rules say why it cannot be played
    return _none_fits(line, legal)


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
    if spec.family in _COLOURS and not (card[:1] == spec.family and card[1:] in _STRENGTHS):
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


def _reading(outcomes: list[_Outcome], legal: list[dict[str, Any]], said: list[str],
             remarks: list[str]) -> Reading:
    if not outcomes:
        return Reading(said=said, remarks=remarks)
    first = outcomes[0]
    moves = [o.move for o in outcomes]
    if first.move is not None and all(m == first.move for m in moves):  # the same move said twice is one
        return Reading(move=first.move, command=first.line, said=said, remarks=remarks)
    if len(outcomes) == 1 or all(o == first or (o.move is None and o.problem == first.problem)
                                 for o in outcomes):
        return Reading(problem=first.problem, choices=list(first.choices), command=first.line, said=said,
                       remarks=remarks)
    other = next(o for o in outcomes if o.move != first.move or o.problem != first.problem)
    named = sorted({n for o in outcomes for n in ([o.number] if o.number else o.choices if o.ambiguous else [])})
    choices = named or list(range(1, len(legal) + 1))
    problem = _('Your reply names more than one move ("%(first)s" and "%(second)s"), so nothing was '
                "played: reply with %(numbers)s.", first=_shown(first.line), second=_shown(other.line),
                numbers=_numbers_text(choices)) if choices else _("You have no moves to choose from now.")
    return Reading(problem=problem, choices=choices, command=first.line, said=said, remarks=remarks)
