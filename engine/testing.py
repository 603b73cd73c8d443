"""Helpers for tests that need a chosen deal (also handy for pbem's tests)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from engine import core
from engine.cards import FULL_DECK
from engine.errors import ConfigError
from engine.events import Event
from engine.rules import apply_move
from engine.state import GameState, Options, state_from_json


def build_deck(hands: Sequence[Sequence[str]], pile: Sequence[str] = ()) -> list[str]:
    """A 78-card deck order (R2.2) that deals ``hands`` to seats 0, 1, ... and puts
    ``pile`` on top of the draw pile, top card first.

    A hand shorter than 6 cards and the rest of the pile are filled with the
    cards left over, in FULL_DECK order (merchants first)."""
    wanted = Counter(c for h in hands for c in h) + Counter(pile)
    left = Counter(FULL_DECK)
    left.subtract(wanted)
    if any(n < 0 for n in left.values()):
        extra = next(c for c, n in left.items() if n < 0)
        raise ConfigError(f"build_deck: too many {extra} asked for.")
    spare: list[str] = []
    for c in FULL_DECK:
        if left[c] > 0:
            spare.append(c)
            left[c] -= 1
    spare_iter = iter(spare)
    deck: list[str] = []
    for h in hands:
        if len(h) > 6:
            raise ConfigError("build_deck: a hand holds 6 cards.")
        deck += list(h) + [next(spare_iter) for _ in range(6 - len(h))]
    return deck + list(pile) + list(spare_iter)


def move_from_text(text: str) -> dict:
    """Short move notation for tests: "draw", "M5", "B3 on 2", "AD on 1", "discard G1"."""
    words = text.split()
    if words == ["draw"]:
        return {"action": "draw"}
    if len(words) == 2 and words[0] == "discard":
        return {"action": "discard", "card": words[1]}
    if len(words) == 1:
        return {"action": "play", "card": words[0]}
    if len(words) == 3 and words[1] == "on":
        return {"action": "play", "card": words[0], "target": int(words[2])}
    raise ValueError(f"Cannot read move {text!r}.")


def play(state: GameState, *moves: str) -> tuple[GameState, list[Event]]:
    """Apply moves (short notation) for whoever is to move; return (state, all events)."""
    events: list[Event] = []
    for text in moves:
        state, evs = apply_move(state, state.seat, move_from_text(text))
        events += evs
    return state, events


def position(players: Sequence[str], hands: Sequence[Sequence[str]], pile: Sequence[str] = (),
             table: Sequence[dict] = (), score_piles: Sequence[Sequence[int]] | None = None,
             teams: bool = False, options: Options | None = None, to_move: int = 0,
             last_ship: int | None = None) -> GameState:
    """A mid-game position, for rule tests that need one (its history is empty).

    ``table`` holds ships as ``{"id": 1, "owner": 0, "value": 5, "cards": [[seat, code],
    ...], "hold": -1}`` ("id" and "hold" optional); each side's lead is the seat
    of its first card there. Cards not placed anywhere are out of the game.
    The capture check of ``to_move`` is run, as at the start of a turn."""
    options = options or Options()
    n = len(players)
    n_sides = n // 2 if teams else n
    side_of = [s // 2 if teams else s for s in range(n)]
    used = Counter(c for h in hands for c in h) + Counter(pile)
    ships = []
    for i, t in enumerate(table):
        ship_id = t.get("id", i + 1)
        lead = [-1] * n_sides
        for seat, code in t.get("cards", []):
            if lead[side_of[seat]] < 0:
                lead[side_of[seat]] = seat
            used[code] += 1
        used[f"M{t['value']}"] += 1
        ships.append({"id": ship_id, "owner": t["owner"], "value": t["value"],
                      "cards": [list(c) for c in t.get("cards", [])], "lead": lead,
                      "hold": t.get("hold", -1)})
    piles = [list(p) for p in (score_piles or [[] for _ in range(n)])]
    for p in piles:
        used.update(f"M{v}" for v in p)
    left = Counter(FULL_DECK)
    left.subtract(used)
    if any(v < 0 for v in left.values()):
        extra = next(c for c, v in left.items() if v < 0)
        raise ConfigError(f"position: more {extra} than the deck has.")
    out: list[str] = []
    for c in FULL_DECK:
        if left[c] > 0:
            out.append(c)
            left[c] -= 1
    state = state_from_json({
        "format": 1, "players": list(players), "teams": teams, "options": options.to_json(),
        "deck": list(FULL_DECK), "version": 0, "seat": to_move, "finished": False,
        "hands": [list(h) for h in hands], "draw_pile": list(pile), "table": ships,
        "last_ship": last_ship if last_ship is not None else max([s["id"] for s in ships],
                                                                  default=0),
        "score_piles": piles, "out": out,
        "history": [], "winners": []})
    core.start_turn(state)
    return state

