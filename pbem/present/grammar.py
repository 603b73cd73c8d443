"""Grammar, not string glue: a name or a card entering a sentence, and agreement with winners.

How a catalog stays translatable: a msgid keeps a named param for the whole phrase that
changes with what enters it, and the one function of this module for that construction
supplies the phrase in the reader's language as the param. "Waiting for %(whose)s move",
`whose=possessive("Élodie")`: "Élodie's" in English, "d'Élodie" in French, "của Élodie" in
Vietnamese; the French msgstr reads "En attente du coup %(whose)s". The words of each phrase
("of %(name)s", "%(owner)s's", "the %(card)s") are msgids of their own; French elision and
contraction are then applied here to the phrase they built, never to a whole sentence:

- "de" and "le" elide before a vowel sound: "d'Élodie", "d'Yves", "d'Hélène", "l'amiral";
  "de le" contracts to "du", "à le" to "au", "de les" to "des", "à les" to "aux";
- a vowel sound: a vowel with or without its accent (Á, É, Ê, Î, Ô, Û ...), "y" before a
  consonant ("Yves", not "Yann"), and "h": a name starting with "h" is taken as mute
  ("d'Hélène", "d'Hugo"), as French treats most first names, unless it is in ASPIRATED_H or
  is written with a letter French does not have (a Vietnamese "Hà", "Hồ", "Hương": that "h" is
  sounded, "de Hương");
- every card is masculine in French (le corsaire, le capitaine, l'amiral, le vaisseau
  marchand) and lower case in running text, as the rules page writes it; a card chip keeps
  its label (`phrases.card_name`).

Agreement: one winner "a gagné", a team or several "ont gagné" (`won`), the tag "(won)" by the
number of people it names (`won_tag`); templates agree "Winner"/"Winners" with the board's
`winning_people` by `ngettext`.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import ngettext

# Words whose "h" is aspirated in French ("le héros", "de Hollande"): no elision before them.
ASPIRATED_H = frozenset({"hache", "haine", "hasard", "haut", "héros", "hibou", "honte", "huit",
                         "hollande", "hongrie", "hambourg", "havane", "hawaï", "hyundai"})
_VOWELS = frozenset("aeiouœæ")
_FRENCH_LETTERS = frozenset("àâäéèêëîïôöùûüÿçœæ")
_ISOLATES = "\u2066\u2067\u2068\u2069"  # a right-to-left name arrives isolated (phrases.shown_name)
# Contractions of a preposition with the article that follows it.
_CONTRACTED = {("de", "le"): "du", ("à", "le"): "au", ("de", "les"): "des", ("à", "les"): "aux"}


def _base_letter(char: str) -> str:
    """"É" -> "e", "Ồ" -> "o": the letter under its accents."""
    return unicodedata.normalize("NFD", char)[:1].lower()


def _foreign(word: str) -> bool:
    """Written with a letter French does not have (Vietnamese ơ, ư, ă, đ, ồ, ạ ...)."""
    return any(not char.isascii() and char.isalpha() and char not in _FRENCH_LETTERS
               for char in unicodedata.normalize("NFC", word.lower()))


def starts_with_vowel_sound(word: str) -> bool:
    """Whether French elides before `word` ("Élodie", "Yves", "Hélène", "amiral": yes;
    "Paul", "Yann", "héros", "Hương": no)."""
    word = word.lstrip(_ISOLATES + " ")
    if not word:
        return False
    first = _base_letter(word[0])
    if first in _VOWELS:
        return True
    if first == "y":
        return len(word) > 1 and _base_letter(word[1]) not in _VOWELS | {"y"}
    if first == "h":
        bare = word.lower().split(" ")[0].strip(".,;:!?")
        return bare not in ASPIRATED_H and not _foreign(word)
    return False


def french_join(preposition: str, phrase: str) -> str:
    """A French preposition or article before `phrase`, elided or contracted: ("de", "Élodie")
    -> "d'Élodie", ("le", "amiral") -> "l'amiral", ("de", "le corsaire") -> "du corsaire",
    ("à", "le capitaine") -> "au capitaine", ("de", "les vaisseaux") -> "des vaisseaux",
    ("de", "Paul") -> "de Paul"."""
    head, _space, rest = phrase.partition(" ")
    if (preposition, head) in _CONTRACTED and rest:
        return f"{_CONTRACTED[preposition, head]} {rest}"
    if preposition in ("de", "le", "la") and starts_with_vowel_sound(phrase):
        return f"{preposition[0]}'{phrase}"
    return f"{preposition} {phrase}"


def _fit(phrase: str) -> str:
    """The phrase a catalog gave ("de Élodie", "le Amiral"), as the reader's language says it."""
    if i18n.current() != "fr":
        return phrase
    head, space, rest = phrase.partition(" ")
    if space and head.lower() in ("de", "le", "la", "à"):
        joined = french_join(head.lower(), rest)
        return joined if head.islower() else joined[:1].upper() + joined[1:]
    return phrase


# ---------------------------------------------------------------- a name entering a sentence
def of(name: str) -> str:
    """A name after a noun, English "of": "the Admiral of Élodie" -> "l'amiral d'Élodie"
    (msgids "... %(of_who)s")."""
    return _fit(_("of %(name)s", name=name))


def possessive(name: str) -> str:
    """A name that owns what follows, English "Élodie's": "Élodie's ship 3" -> "le vaisseau 3
    d'Élodie", "tàu 3 của Élodie" (msgids "%(whose)s ship ...")."""
    return _fit(_("%(owner)s's", owner=name))


def together(names: Sequence[str]) -> str:
    """Names (or words) as one list, the one way every sentence and table joins them: "Anne",
    "Anne and Bob", "Anne, Bob and Carl"; "Élodie et Paul", "Élodie và Paul" (never "&")."""
    if len(names) < 2:
        return "".join(names)
    return _("%(first)s and %(last)s", first=", ".join(names[:-1]), last=names[-1])


# ---------------------------------------------------------------- a card entering a sentence
def the_card(name: str, code: str) -> str:
    """Card `code`, named `name` (its label), as the object of a sentence: English "Blue 3",
    "the Blue captain", "the Admiral" (the engine's English); French "le corsaire bleu 3",
    "le capitaine bleu", "l'amiral"; Vietnamese its label."""
    if i18n.current() == "fr":
        return french_join("le", name[:1].lower() + name[1:])
    if code == "AD" or code[1:] == "C":
        return _("the %(card)s", card=name)
    return name


def discarded_card(name: str, code: str) -> str:
    """Card `code` after "discard": English names it bare ("Discard Admiral", as the engine
    does), French with its article ("Défausser l'amiral")."""
    return the_card(name, code) if i18n.current() == "fr" else name


# ---------------------------------------------------------------- agreement with winners
def won(who: str, people: int) -> str:
    """"Élodie won", "Élodie et Paul ont gagné": the verb agrees with the people `who` names."""
    return ngettext("%(who)s won", "%(who)s won", people, who=who)


def won_tag(people: int) -> str:
    """The tag beside a winning side in the final scores: "(won)", French "(gagnant)"/"(gagnants)"."""
    return ngettext("(won)", "(won)", people)
