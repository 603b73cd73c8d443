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


_ZWJ = "\u200d"
_REGIONAL = range(0x1F1E6, 0x1F200)  # flag letters: a flag is two of them


def _extends(char: str) -> bool:
    """Does `char` belong to the character before it (a combining accent, a variation selector,
    a skin tone, a flag's tag, a joiner)?"""
    code = ord(char)
    return (unicodedata.category(char) in ("Mn", "Me", "Mc") or char == _ZWJ or 0xFE00 <= code <= 0xFE0F
            or 0x1F3FB <= code <= 0x1F3FF or 0xE0020 <= code <= 0xE007F or 0xE0100 <= code <= 0xE01EF)


def graphemes(text: str) -> list[str]:
    """The characters a reader sees (Unicode's extended grapheme clusters, for the sequences
    names hold): "é" typed as e and an accent is one, the pirate flag (four code points) is one,
    a flag of two regional letters is one. No library for it is installed (no `regex`, no
    `grapheme`): this covers accents, emoji sequences and flags, which is what names hold."""
    out: list[str] = []
    for char in text:
        joined = bool(out) and (_extends(char) or out[-1].endswith(_ZWJ)
                                or (ord(char) in _REGIONAL and len(out[-1]) == 1 and ord(out[-1]) in _REGIONAL))
        if joined:
            out[-1] += char
        else:
            out.append(char)
    return out


def shortened(text: str, limit: int) -> str:
    """`text` as echoed back: whole if it has at most `limit` visible characters, else cut at
    the last space before the limit (never inside a word or an emoji sequence) with "…"."""
    chars = graphemes(text)
    if len(chars) <= limit:
        return text
    kept = chars[:limit - 1]
    space = max((i for i, c in enumerate(kept) if c.isspace()), default=0)
    return "".join(kept[:space] if space else kept).rstrip() + "…"


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
    if len(graphemes(name)) > limit:  # what the reader sees: the pirate flag is one character
        raise GameError(f"{what}too_long", {"limit": limit})
    return name


def check_name(name: str) -> str:
    """A player's display name safe for headers and pages, or GameError."""
    return _check_text_name(name, "name_", MAX_NAME_LENGTH)


def check_game_name(name: str) -> str:
    """A game's name (subjects and pages), or GameError with the game name's own sentence."""
    return _check_text_name(name, "game_name_", MAX_GAME_NAME_LENGTH)
