"""One real illegal move for every refusal code of `engine.check_move` (imported, not collected).

Found by playing seeded random games and trying every well-formed move (korsar_checks
.candidate_moves) and a few malformed ones at each turn: each example is a state, a seat and a
move that `check_move` really refuses. The pbem tests word each of them in every language.
"""
from __future__ import annotations

import random
from functools import lru_cache

from engine import IllegalMove, apply_move, check_move, legal_moves, new_game
from engine.state import GameState
from korsar_checks import candidate_moves

# Every code check_move may give (docs/engine-api.md, "Refusals").
CODES = (
    "not_a_move", "unknown_action", "draw_names_card", "card_missing", "unknown_card",
    "discard_names_ship", "merchant_names_ship", "target_missing", "bad_target",
    "game_over", "no_such_seat", "not_your_turn", "draw_pile_empty", "not_in_hand",
    "merchant_discard", "discard_too_early", "no_such_ship", "admiral_not_own_ship",
    "captain_without_pirate", "keep_your_colour", "colour_taken",
)

MALFORMED: tuple[object, ...] = (
    "draw", {"action": "pass"}, {"action": "draw", "card": "G1"}, {"action": "play"},
    {"action": "play", "card": "ZZ"}, {"action": "discard", "card": "G1", "target": 1},
    {"action": "play", "card": "M5", "target": 1}, {"action": "play", "card": "G1"},
    {"action": "play", "card": "G1", "target": "1"},
)


def refusal(state: GameState, seat: int, move: object) -> IllegalMove | None:
    try:
        check_move(state, seat, move)
    except IllegalMove as exc:
        return exc
    return None


Example = tuple[GameState, int, object]


def _collect(found: dict[str, Example], state: GameState, seat: int, moves: list) -> None:
    for move in moves:
        exc = refusal(state, seat, move)
        if exc is not None and exc.code not in found:
            found[exc.code] = (state, seat, move)


@lru_cache(maxsize=1)
def examples() -> dict[str, Example]:
    """code -> (state, seat, move) that check_move refuses with that code."""
    found: dict[str, Example] = {}
    for seed in range(40):
        teams = seed % 2 == 1
        players = ["Ann", "Bob", "Cyd", "Dee"] if teams else ["Ann", "Bob", "Cyd"]
        state = new_game(players, teams=teams, seed=seed)
        rng = random.Random(seed)
        while not state.finished:
            seat = state.to_move
            assert seat is not None
            _collect(found, state, seat, candidate_moves(state) + list(MALFORMED))
            _collect(found, state, (seat + 1) % len(players), [{"action": "draw"}])
            _collect(found, state, 9, [{"action": "draw"}])
            state, _ = apply_move(state, seat, rng.choice(legal_moves(state)))
        _collect(found, state, 0, [{"action": "draw"}])
        if len(found) == len(CODES):
            break
    return found
