"""The words of a reply's line, and the phrases of the vocabularies they make (`lex`): how a
line is cut into tokens before it is read as a move or as talk."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from pbem.inbound.vocabulary import (ARTICLE, CODE, FRENCH, LATIN, NUMBER, NUMWORD, POLITE, SAY, TELL,
                                     VOCABULARIES, WORD)

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
def fold_word(word: str) -> str:
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
                entry = _Entry(raw, tuple(fold_word(w) for w in raw), kind, value, rank, lang in LATIN)
                by_raw.setdefault(raw[0], []).append(entry)
                by_folded.setdefault(entry.folded[0], []).append(entry)
    for index in (by_raw, by_folded):
        for entries in index.values():
            entries.sort(key=lambda e: (-len(e.raw), e.rank))  # "do doc" (admiral) before "do" (red)
    return Lexicon(by_raw, by_folded)


def matches(entry: _Entry, raw: list[str], folded: list[str], at: int) -> bool:
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
                                   and FRENCH.issuperset(c for c in word if not c.isascii())):
            return False
    return True


def lex(line: str, lex_: Lexicon) -> list[Token]:
    """The tokens of a line: the longest phrase of the vocabularies at each word, else a number,
    a card code or an unknown WORD."""
    raw = words(line)
    folded = [fold_word(w) for w in raw]
    tokens: list[Token] = []
    i = 0
    while i < len(raw):
        word = raw[i]
        if word.isascii():
            entry = next((e for e in lex_.by_folded.get(folded[i], []) if matches(e, raw, folded, i)), None)
        else:  # as typed first; folded only a French accent ("dèfends"; "lá" is not "la", "lấy" not "lay")
            entry = next((e for e in lex_.by_raw.get(word, []) if matches(e, raw, folded, i)), None)
            if entry is None and FRENCH.issuperset(c for c in word if not c.isascii()):
                entry = next((e for e in lex_.by_folded.get(folded[i], []) if e.latin and matches(e, raw, folded, i)),
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

