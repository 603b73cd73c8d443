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

The parts: `vocabulary` (the words per language), `lexer` (a line into tokens), `move_line` (a
line read as a move), `move_match` (a command line against the legal moves), `talk_lines` (which
lines are talk); this module reads a whole reply with them.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pbem.i18n import LANGUAGES
from pbem.i18n import gettext as _
from pbem.inbound.lexer import fold, lex, lexicon, words
from pbem.inbound.move_match import (Outcome, label_index, label_key, label_tokens, line_outcome, move_facts,
                                     numbers_text, shown)
from pbem.inbound.talk_lines import courteous, own_name, printed_cards, said_words, secret
from pbem.inbound.vocabulary import CLOSING, FILLERS, POLITE

MAX_TEXT = 20_000  # characters of a reply looked at at all
MAX_LINES = 200  # lines of a reply looked at at all
COMMAND_LINES = 50  # a move is looked for in the first 50 lines...
COMMAND_CHARS = 2_000  # ...and the first 2,000 characters
MAX_COMMAND_LINE = 300  # a longer line is never a move


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


_SEPARATOR = re.compile(r"^(?:-{2,}|—+|–{2,}|_{2,}|={2,}|\*{3,})$")  # "-- ", "——", "____"
_SENT_FROM = re.compile(r"^(sent from|sent with|get outlook|envoy[ée] (de|depuis)|g[ửu]i t[ừu])\b", re.I)


def read_reply(text: str, legal_moves: list[dict[str, Any]], *, labels: list[list[str]] | None = None,
               languages: tuple[str, ...] = tuple(LANGUAGES), own_names: Iterable[str] = ()) -> Reading:
    """Read a reply whose quotes are already stripped (see the module docstring).

    `labels[i]`: the label(s) our emails printed for `legal_moves[i]`, in the seat's language and
    English; `languages`: the seat's language first, then "en"; `own_names`: the writer's seat name
    and its parts (a line that is only that name is a signature, never talk)."""
    lex_ = lexicon(tuple(languages))
    printed_labels = [[label_tokens(text, lex_) for text in (labels[i] if i < len(labels) else [])]
                      for i in range(len(legal_moves))] if labels is not None else None
    facts = move_facts(labels, printed_labels)
    index = label_index(printed_labels)
    names = frozenset(w for name in own_names for w in fold(name).split())
    outcomes: list[Outcome] = []
    hands_only = True  # every command line so far is a card's name as our hands print it
    printed = printed_cards(tuple(languages))
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
        spoken = said_words(line, lex_)
        if spoken is not None:
            if spoken and not secret(spoken):
                said.append(spoken)
            in_say = True
            continue
        tokens = lex(line, lex_) if len(line) <= MAX_COMMAND_LINE else []
        if tokens and own_name(tokens, names):
            break  # the writer signs: the rest is their signature
        outcome = line_outcome(line, tokens, legal_moves, facts, index, lex_) if tokens else None
        if outcome is not None:
            hand = label_key(tokens)[1] in printed
            if hand and outcomes and not hands_only:
                break  # a line of the hand we printed under the writer's move: our email, quoted
            hands_only = hands_only and hand
            if number < COMMAND_LINES and chars <= COMMAND_CHARS:
                outcomes.append(outcome)
            in_say = False
            continue
        if tokens and all(t.kind in POLITE | FILLERS for t in tokens) and any(t.kind == CLOSING for t in tokens):
            break  # "Cheers", "Cordialement", "Thân": what follows is a signature
        if not any(w for w in words(line)) or (tokens and courteous(tokens)) or secret(line):
            continue
        (said if in_say else remarks).append(line)
    return _reading(outcomes, legal_moves, said, remarks)


def _reading(outcomes: list[Outcome], legal: list[dict[str, Any]], said: list[str],
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
                "played: reply with %(numbers)s.", first=shown(first.line), second=shown(other.line),
                numbers=numbers_text(choices)) if choices else _("You have no moves to choose from now.")
    return Reading(problem=problem, choices=choices, command=first.line, said=said, remarks=remarks)
