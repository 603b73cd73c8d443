"""A game step by step, as one reader may see it: the replay pages (pbem/web/replay.py).

Step 0 is the deal; step k is the game after its k-th stored move. `replay_states(record)`
replays a record (`pbem.games.records.export_record`) with the engine, one state per step.
`replay_step` pictures one step for one reader, built ONLY from what that reader may see:
`Reader.at_seat(n)` (a seat while the game is played) gets `engine.player_view(state, n)` at
that step: its own hand and, in team play, its partner's; `Reader.everything(n)` (seat n of a
game that is over) the same board with every other hand of `engine.admin_view` beside it;
`Reader.everything()` (the admin) `engine.admin_view`'s board.
The move of the step and its events are the move log's sentences (`board.move_log`).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import engine
from engine.replay import parse_record
from pbem.present.board import admin_board, board, move_log
from pbem.present.names import Named, named_view
from pbem.present.phrases import card


@dataclass(frozen=True)
class Reader:
    """Who reads the replay: `seat` None sees every hand (the game is over, or the admin)."""

    seat: int | None
    # the seat the page speaks to ("You drew a card.", "Your hand"), when every hand is shown;
    # None: the admin
    speaking_to: int | None = None

    @classmethod
    def everything(cls, speaking_to: int | None = None) -> Reader:
        return cls(None, speaking_to)

    @classmethod
    def at_seat(cls, seat: int) -> Reader:
        return cls(seat, seat)


def replay_states(record: dict[str, Any]) -> list[engine.GameState]:
    """The state at every step of a record: [the deal, after move 1, ..., after the last]."""
    state, moves = parse_record(record)
    states = [state]
    for player, move in moves:
        state, _events = engine.apply_move(state, player, move)
        states.append(state)
    return states


def replay_step(states: Sequence[engine.GameState], records: Sequence[Any], step: int,
                seats: Sequence[Named], reader: Reader) -> dict[str, Any]:
    """Step `step` (0 to len(records)) for `reader`: the board at that step (`board` with
    `hands`: the hands this reader may see, each with its seat), the step's move in words
    (`move`: None at the deal) and every move of the game in words (`log`, to link to any step)."""
    state = states[step]
    every_hand: list[list[str]] | None = None
    if reader.seat is None and reader.speaking_to is None:  # the admin
        view: Any = named_view(engine.admin_view(state), seats)
        picture = admin_board(view)
    else:  # a seat: its own board ("you"), and every other hand too once the game is over
        me = reader.seat if reader.seat is not None else reader.speaking_to
        assert me is not None
        view = named_view(engine.player_view(state, me), seats)
        picture = board(view)
        if reader.seat is None:
            every_hand = engine.admin_view(state)["hands"]
    log = move_log(list(records), view)
    hands = []
    for p in picture["players"]:
        cards = p["hand"] if p["hand"] is not None or every_hand is None else \
            [card(c) for c in every_hand[p["position"]]]
        if cards is not None:
            hands.append({"position": p["position"], "name": p["name"], "is_you": p["is_you"],
                          "is_partner": p["is_partner"], "cards": cards})
    return {
        "step": step,
        "last": len(records),
        "board": picture,
        "hands": hands,
        "move": log[step - 1] if step > 0 else None,
        "log": log,
        "finished": state.finished,
    }
