"""Which lines of a reply are talk: a say line and what it says, the writer's own name,
courtesy, our cards as the hands print them, and the secrets never passed on."""
from __future__ import annotations

import re
from functools import lru_cache

import engine

from pbem import i18n
from pbem.inbound.lexer import Lexicon, Token, fold, fold_word, matches, words
from pbem.inbound.vocabulary import COURTESY, FILLERS, GREETING, POLITE, SAY, TELL, VOCABULARIES
from pbem.present import phrases

_PIECE = re.compile(r"[\w-]+")
_SIGNED = (10, 4, 10)  # the shortest pieces of a signed token: payload.timestamp.signature
_GREETING_WORDS = 3  # "Hi Bob", "Thanks again Bob": a courtesy phrase and two words more is courtesy


@lru_cache(maxsize=16)
def printed_cards(languages: tuple[str, ...]) -> frozenset[str]:
    """Every card's name as the hands in our emails print it ("Blue 3", "Vaisseau (5 or)"), folded."""
    names: set[str] = set()
    for lang in languages:
        if lang in VOCABULARIES:
            with i18n.using(lang):
                names.update(fold(phrases.card_name(code)) for code in set(engine.FULL_DECK))
    return frozenset(names)


def secret(line: str) -> bool:
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


def said_words(line: str, lex_: Lexicon) -> str | None:
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
    folded = [fold_word(raw[0])]
    entries = lex_.by_folded.get(folded[0], []) if raw[0].isascii() else lex_.by_raw.get(raw[0], [])
    entry = next((e for e in entries if len(e.raw) == 1 and matches(e, raw, folded, 0)), None)
    return entry.kind if entry is not None and entry.kind in (SAY, TELL) else None


def own_name(tokens: list[Token], names: frozenset[str]) -> bool:
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


def courteous(tokens: list[Token]) -> bool:
    """Courtesy only ("Merci !", "Thank you", "Cảm ơn nhé"), or a greeting or thanks and a name
    ("Hi Bob,", "Thanks again")."""
    if all(t.kind in POLITE | FILLERS for t in tokens):
        return True
    return tokens[0].kind in (COURTESY, GREETING) and len(tokens) <= _GREETING_WORDS

