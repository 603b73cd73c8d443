"""A game step by step, as one reader may see it: the replay pages (pbem/web/replay.py).

Step 0 is the deal; step k is the game after its k-th stored move. `replay_states(record)`
replays a record (`pbem.games.records.export_record`) with the engine, one state per step.
`replay_step` pictures one step for one reader, built ONLY from what that reader may see:
`Reader.everything()` (a game that is over, or the admin) gets `engine.admin_view` at that
step, every hand; `Reader.seat(n)` (a seat while the game is played) gets
`engine.player_view(state, n)` at that step: its own hand and, in team play, its partner's.
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


@dataclass(frozen=True)
class Reader:
    """Who reads the replay: `seat` None sees every hand (the game is over, or the admin)."""

    seat: int | None
    # the seat whose words the log speaks ("You drew a card."), when every hand is shown
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
    if reader.seat is None:
        view: Any = named_view(engine.admin_view(state), seats)
        picture = admin_board(view)
    else:
        view = named_view(engine.player_view(state, reader.seat), seats)
        picture = board(view)
    # The log in the words of the reader's seat, whatever hands the board shows.
    speaker = reader.speaking_to
    log_view: Any = view if speaker is None or reader.seat == speaker else \
        named_view(engine.player_view(state, speaker), seats)
    log = move_log(list(records), log_view)
    hands = [{"position": p["position"], "name": p["name"], "label": p.get("label", p["name"]),
              "is_you": p["position"] == speaker, "is_partner": p.get("is_partner", False),
              "cards": p["hand"]}
             for p in picture["players"] if p["hand"] is not None]
    return {
        "step": step,
        "last": len(records),
        "board": picture,
        "hands": hands,
        "move": log[step - 1] if step > 0 else None,
        "log": log,
        "finished": state.finished,
    }
