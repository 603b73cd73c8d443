"""Moves as JSON dicts, their shape check, and the core's int encoding."""
from __future__ import annotations

from typing import Any

from engine.cards import CODE_KIND, KIND_CODES, N_MERCHANT_KINDS
from engine.core import DRAW, KIND_MASK, MAX_SHIPS, SHIP_SHIFT
from engine.errors import IllegalMove
from engine.text import card_name

ACTIONS = ("draw", "play", "discard")
NO_SHIP = -1  # encode() result for a target that can never exist


def normalize_move(obj: object) -> dict[str, Any]:
    """The canonical dict for a move; IllegalMove for malformed input.

    Only the shape is checked here (action, card code, target); whether the
    move is allowed now is rules.check_move's business. Keys other than
    action, card and target (such as "player" in a game record) are ignored.
    """
    if not isinstance(obj, dict):
        raise IllegalMove('A move must be an object such as {"action": "draw"}.', "not_a_move")
    action = obj.get("action")
    if action not in ACTIONS:
        raise IllegalMove(f"Unknown action {action!r}: choose draw, play or discard.", "unknown_action",
                          {"action": repr(action)})
    card = obj.get("card")
    target = obj.get("target")
    if action == "draw":
        if card is not None or target is not None:
            raise IllegalMove("Drawing takes the top card of the draw pile: name no card.", "draw_names_card")
        return {"action": "draw"}
    if card is None:
        raise IllegalMove(f"Say which card to {action}.", "card_missing", {"action": action})
    if not isinstance(card, str) or card not in CODE_KIND:
        raise IllegalMove(f"Unknown card {card!r}.", "unknown_card",
                          {"card": repr(card)})
    if action == "discard":
        if target is not None:
            raise IllegalMove("A discarded card goes out of the game: name no ship.", "discard_names_ship")
        return {"action": "discard", "card": card}
    if CODE_KIND[card] < N_MERCHANT_KINDS:
        if target is not None:
            raise IllegalMove("A merchant ship is played in front of you: name no ship.", "merchant_names_ship",
                              {"card": card})
        return {"action": "play", "card": card}
    if target is None:
        raise IllegalMove(f"Say which ship to play the {card_name(card)} on.", "target_missing", {"card": card})
    if isinstance(target, bool) or not isinstance(target, int):
        raise IllegalMove(f"The target must be a ship number, not {target!r}.", "bad_target",
                          {"target": repr(target)})
    return {"action": "play", "card": card, "target": target}


def encode(move: dict[str, Any]) -> int:
    """Core int of a NORMALIZED move (NO_SHIP if its target cannot exist)."""
    action = move["action"]
    if action == "draw":
        return DRAW
    kind = CODE_KIND[move["card"]]
    if action == "discard":
        return kind if kind >= N_MERCHANT_KINDS else NO_SHIP
    target = move.get("target")
    if target is None:
        return kind
    if not 1 <= target <= MAX_SHIPS:
        return NO_SHIP
    return target << SHIP_SHIFT | kind


def decode(m: int) -> dict[str, Any]:
    """The JSON dict of a core int."""
    if m == DRAW:
        return {"action": "draw"}
    kind = m & KIND_MASK
    ship = m >> SHIP_SHIFT
    if ship:
        return {"action": "play", "card": KIND_CODES[kind], "target": ship}
    if kind < N_MERCHANT_KINDS:
        return {"action": "play", "card": KIND_CODES[kind]}
    return {"action": "discard", "card": KIND_CODES[kind]}
