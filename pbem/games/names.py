"""What a player's or a game's name may hold: they lead subject lines, headers and pages, so no
character that hides itself or reorders the text around it, and a length that fits."""
from __future__ import annotations

import re
import unicodedata

from pbem.games.errors import GameError, declare_refusals
from pbem.i18n import lazy

MAX_NAME_LENGTH = 40  # a player's name (the admin form's maxlength is this)
MAX_GAME_NAME_LENGTH = 80  # a game's name: it leads every subject line
NAME_NEEDED = lazy("Every player needs a name. Give this player a name.")

# The bidirectional controls: embeddings, overrides, isolates and the marks (LRM, RLM, ALM).
# They reorder the text around them on a page or in an email: refused in names and in talk.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
BIDI_CONTROLS = re.compile(f"[{_BIDI}]")

# What a name may not hold: control characters (C0, DEL, C1: line breaks and tabs included),
# the line and paragraph separators and the bidirectional controls; nor the invisible spaces
# (zero-width space, word joiner, byte order mark: "Ann" and "An\u200bn" would be two players
# who look alike). Every other character is fine, the zero-width joiner of emoji sequences
# (U+200D, the pirate flag) and the non-joiner of Persian and Indic scripts (U+200C) included,
# when they stand inside a word (`_STRAY_JOINER`).
NOT_IN_NAMES = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_INVISIBLE_IN_NAMES = re.compile("[\u200b\u2060\ufeff]")
# A joiner at either end of a name, beside a space or beside another joiner joins nothing.
_STRAY_JOINER = re.compile("(?<![^\\s\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?![^\\s\u200c\u200d])")
HIDDEN_IN_NAME = lazy("A name may not hold invisible characters, such as zero-width spaces or text "
                      "direction marks: type it again by hand.")


def hides_characters(name: str) -> bool:
    """Does `name` hold a character nobody sees (an invisible space, a stray joiner, a bidi control)?"""
    return bool(BIDI_CONTROLS.search(name) or _INVISIBLE_IN_NAMES.search(name) or _STRAY_JOINER.search(name))


# Why a name is refused, by code: a player's ("name_...") and a game's ("game_name_...").
declare_refusals({
    "name_needed": (NAME_NEEDED, 400),
    "name_control": (lazy("A player name may not contain line breaks or control characters."), 400),
    "name_invisible": (lazy("A player name may not contain invisible characters such as zero-width spaces."), 400),
    "name_too_long": (lazy("A player name may have at most %(limit)d characters."), 400),
    "game_name_needed": (lazy("A game name may not be empty."), 400),
    "game_name_control": (lazy("A game name may not contain line breaks or control characters."), 400),
    "game_name_invisible": (lazy("A game name may not contain invisible characters such as zero-width spaces."), 400),
    "game_name_too_long": (lazy("A game name may have at most %(limit)d characters."), 400),
})


def _check_text_name(name: str, what: str, limit: int) -> str:
    """`name` normalised (NFC, outer spaces off), or GameError with a code of `what` ("name_",
    "game_name_")."""
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        raise GameError(f"{what}needed")
    if NOT_IN_NAMES.search(name):
        raise GameError(f"{what}control")
    if _INVISIBLE_IN_NAMES.search(name) or _STRAY_JOINER.search(name):
        raise GameError(f"{what}invisible")
    if len(name) > limit:
        raise GameError(f"{what}too_long", {"limit": limit})
    return name


def check_name(name: str) -> str:
    """A player's display name safe for headers and pages, or GameError."""
    return _check_text_name(name, "name_", MAX_NAME_LENGTH)


def check_game_name(name: str) -> str:
    """A game's name (subjects and pages), or GameError with the game name's own sentence."""
    return _check_text_name(name, "game_name_", MAX_GAME_NAME_LENGTH)
