"""The engine's refusals of a move in the player's language.

`engine.IllegalMove` carries a code and its parameters (docs/engine-api.md, "Refusals"); here each
code is a whole sentence of the `pages` catalog, filled from the parameters in the language in
force (`pbem.i18n.current()`: the seat's on its pages, the recipient's in a reply email). The
English msgids are the engine's own sentences, so English output is `str(exc)` word for word.
"""
from __future__ import annotations

from typing import Any

import engine

from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.present.phrases import card_name, colour_in_text

# code -> sentence; `%(card)s` is the card's name, `%(colour)s` a colour word (as the board
# writes it), `%(ship)s` its number.
SENTENCES: dict[str, str] = {
    "not_a_move": lazy('A move must be an object such as {"action": "draw"}.'),
    "unknown_action": lazy("Unknown action %(action)s: choose draw, play or discard."),
    "draw_names_card": lazy("Drawing takes the top card of the draw pile: name no card."),
    "card_missing": lazy("Say which card to play."),
    "card_missing_discard": lazy("Say which card to discard."),
    "unknown_card": lazy("Unknown card %(card)s."),
    "discard_names_ship": lazy("A discarded card goes out of the game: name no ship."),
    "merchant_names_ship": lazy("A merchant ship is played in front of you: name no ship."),
    "target_missing": lazy("Say which ship to play the %(card)s on."),
    "bad_target": lazy("The target must be a ship number, not %(target)s."),
    "game_over": lazy("The game is over."),
    "no_such_seat": lazy("There is no seat %(seat)s in this game."),
    "not_your_turn": lazy("It is %(player)s's turn, not yours."),
    "draw_pile_empty": lazy("The draw pile is empty: play or discard a card instead."),
    "not_in_hand": lazy("You have no %(card)s in your hand."),
    "merchant_discard": lazy("A merchant ship cannot be discarded: play it in front of you instead."),
    "discard_too_early": lazy("You may discard only when the draw pile is empty."),
    "no_such_ship": lazy("There is no ship %(ship)s on the table."),
    "admiral_not_own_ship": lazy("The Admiral may only be played on your own ship; ship %(ship)s is %(owner)s's."),
    "captain_without_pirate": lazy("The %(card)s may only join %(colour)s pirates: "
                                   "you have no %(colour)s pirate on ship %(ship)s."),
    "captain_without_pirate_team": lazy("The %(card)s may only join %(colour)s pirates: "
                                        "your team has no %(colour)s pirate on ship %(ship)s."),
    "keep_your_colour": lazy("You already fight for ship %(ship)s with %(colour)s: play %(colour)s there."),
    "keep_your_colour_team": lazy("Your team already fights for ship %(ship)s with %(colour)s: "
                                  "play %(colour)s there."),
    "colour_taken": lazy("%(colour)s is already fighting for ship %(ship)s: attack it with another colour."),
}
# The sentence of a code the engine may add later: still in the player's language.
FALLBACK = lazy("This move is not allowed now.")


def _first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def move_refusal(exc: engine.IllegalMove) -> str:
    """Why the engine refused a move, in the current language."""
    params: dict[str, Any] = dict(exc.params)
    code = exc.code
    if params.get("teams") and f"{code}_team" in SENTENCES:
        code = f"{code}_team"
    if code == "card_missing" and params.get("action") == "discard":
        code = "card_missing_discard"
    sentence = SENTENCES.get(code)
    if sentence is None:  # a code this table does not know yet: the engine's English, or a plain "no"
        return str(exc) if i18n.current() == i18n.DEFAULT else _(FALLBACK)
    card = params.get("card")
    if isinstance(card, str) and code != "unknown_card":
        params["card"] = card_name(card)
    if "colour" in params:
        params["colour"] = colour_in_text(params["colour"])
    if "owner_name" in params:
        params["owner"] = params["owner_name"]
    return _first_upper(_(sentence, **params))
