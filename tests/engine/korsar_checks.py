"""Checks shared by the property and conformance tests (imported, not collected)."""
from __future__ import annotations

import json
import random
from collections import Counter

from engine import FULL_DECK, state_from_json, state_to_json
from engine.cards import KIND_CODES
from engine.state import GameState

COLOUR_OF = {"G": "green", "B": "blue", "R": "red", "K": "black"}


def all_cards(state: GameState) -> Counter:
    """I1: where every card is: hands, draw pile, table, score piles, out of the game."""
    d = state_to_json(state)
    cards = Counter()
    for hand in d["hands"]:
        cards.update(hand)
    cards.update(d["draw_pile"])
    for ship in d["table"]:
        cards[f"M{ship['value']}"] += 1
        cards.update(code for _, code in ship["cards"])
    for pile in d["score_piles"]:
        cards.update(f"M{v}" for v in pile)
    cards.update(d["out"])
    return cards


def gold_everywhere(state: GameState) -> int:
    """I3: score piles + ships on the table + merchant ships in hands."""
    d = state_to_json(state)
    return (sum(sum(p) for p in d["score_piles"]) + sum(s["value"] for s in d["table"])
            + sum(int(c[1:]) for h in d["hands"] for c in h if c.startswith("M")))


def internals(state: GameState) -> dict:
    """Every internal field, derived ones included (incremental bookkeeping must match)."""
    return {
        "key": state.key(), "kinds_mask": state.kinds_mask, "hand_size": state.hand_size,
        "gold": state.gold, "holds": state.holds, "capturable": state.capturable,
        "ships": [{name: getattr(sh, name) for name in sh.__slots__} for sh in state.table],
        "ship_ids": sorted(state.ships), "table_ids": [sh.id for sh in state.table],
    }


def round_trip(state: GameState) -> GameState:
    return state_from_json(json.loads(json.dumps(state_to_json(state))))


def oracle_moves(view: dict) -> set[str]:
    """The legal moves worked out naively from a player's view, as JSON strings."""
    seat = view["seat"]
    side = view["team_of"][seat] if view["teams"] else seat
    hand = set(view["hand"])
    moves = []
    if view["draw_pile"]:
        moves.append({"action": "draw"})
    for card in hand:
        if card.startswith("M"):
            moves.append({"action": "play", "card": card})
        elif not view["draw_pile"]:
            moves.append({"action": "discard", "card": card})
    for ship in view["table"]:
        mine = [s["colour"] for s in ship["sides"] if s["side"] == side and s["colour"]]
        taken = {s["colour"] for s in ship["sides"] if s["side"] != side and s["colour"]}
        for card in hand:
            if card.startswith("M"):
                continue
            if card == "AD":
                ok = ship["owner"] == seat
            elif card[1] == "C":
                ok = COLOUR_OF[card[0]] in mine
            else:
                colour = COLOUR_OF[card[0]]
                ok = colour in mine if mine else colour not in taken
            if ok:
                moves.append({"action": "play", "card": card, "target": ship["id"]})
    return {json.dumps(m, sort_keys=True) for m in moves}


def candidate_moves(state: GameState) -> list[dict]:
    """Every well-formed move worth trying now: each card on each ship, and more."""
    ids = [sh.id for sh in state.table] + [state.last_ship + 1]
    moves: list[dict] = [{"action": "draw"}]
    for code in KIND_CODES:
        moves.append({"action": "discard", "card": code})
        if code.startswith("M"):
            moves.append({"action": "play", "card": code})
        else:
            moves += [{"action": "play", "card": code, "target": i} for i in ids]
    return moves


def perturb_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same game as ``seat`` sees it: other sides' hands and the pile order reshuffled."""
    d = state_to_json(state)
    mine = {seat} | ({seat ^ 1} if state.teams else set())
    hidden = [s for s in range(len(d["hands"])) if s not in mine]
    pool = list(d["draw_pile"]) + [c for s in hidden for c in d["hands"][s]]
    rng.shuffle(pool)
    pos = 0
    for s in hidden:
        n = len(d["hands"][s])
        d["hands"][s] = pool[pos:pos + n]
        pos += n
    d["draw_pile"] = pool[pos:]
    return state_from_json(d)


def full_deck() -> Counter:
    return Counter(FULL_DECK)
