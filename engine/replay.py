"""Game records: replay a list of moves and report the resulting state.

A record is ``{"players": [...], "teams": false, "options": {...},
"deck": [78 codes] | "seed": 17, "moves": [{"player": 0, "action": "draw"}, ...]}``.
A malformed record raises RecordError; an illegal move stops the replay
and is reported, with the state as it was before that move.
"""
from __future__ import annotations

from typing import Any

from engine import core, rules
from engine.errors import ConfigError, IllegalMove
from engine.moves import decode, normalize_move
from engine.state import GameState, Options, hand_codes
from engine.view import table_json


class RecordError(ValueError):
    """The record itself is malformed (not an illegal move inside a good record)."""


def parse_record(record: object) -> tuple[GameState, list[tuple[int, dict[str, Any]]]]:
    """The new game and the (player, move) list of a record; RecordError if malformed."""
    if not isinstance(record, dict):
        raise RecordError("The record must be a JSON object.")
    players = record.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError('"players" must be a list of names.')
    teams = record.get("teams", False)
    if not isinstance(teams, bool):
        raise RecordError('"teams" must be true or false.')
    if ("deck" in record) == ("seed" in record):
        raise RecordError('The record needs exactly one of "deck" and "seed".')
    moves = record.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError('"moves" must be a list.')
    parsed = []
    for i, m in enumerate(moves):
        if not isinstance(m, dict):
            raise RecordError(f"Move {i} is not an object.")
        player = m.get("player")
        if isinstance(player, bool) or not isinstance(player, int):
            raise RecordError(f'Move {i} needs an integer "player".')
        try:
            parsed.append((player, normalize_move(m)))
        except IllegalMove as exc:
            raise RecordError(f"Move {i}: {exc}") from None
    try:
        options = Options.from_json(record.get("options"))
        state = rules.new_game(players, teams=teams, options=options,
                               seed=record.get("seed"), deck=record.get("deck"))
    except ConfigError as exc:
        raise RecordError(str(exc)) from None
    return state, parsed


def replay_state(record: object) -> tuple[GameState, dict[str, Any] | None]:
    """The state after the record's moves, stopping at the first illegal one (then the error)."""
    state, moves = parse_record(record)
    for i, (player, move) in enumerate(moves):
        try:
            state, _ = rules.apply_move(state, player, move)
        except IllegalMove as exc:
            return state, {"move_index": i, "message": str(exc)}
    return state, None


def replay(record: object) -> dict[str, Any]:
    """Apply the record's moves in order, stopping at the first illegal one."""
    return summary(*replay_state(record))


def summary(state: GameState, error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The replay report of a state (every hand included: this is a server-side tool)."""
    return {
        "ok": error is None,
        "error": error,
        "players": list(state.players),
        "teams": state.teams,
        "options": state.options.to_json(),
        "version": state.version,
        "finished": state.finished,
        "to_move": state.to_move,
        "draw_pile": len(state.pile),
        "hands": [hand_codes(state, s) for s in range(state.n_seats)],
        "captured": [sorted(p) for p in state.score_piles],
        "scores": rules.scores(state),
        "team_scores": rules.team_scores(state),
        "winners": rules.winners(state),
        "legal_moves": rules.legal_moves(state),
        "table": table_json(state),
    }


def game_record(state: GameState) -> dict[str, Any]:
    """The record of a game so far (deck and moves), which ``replay`` turns back into it."""
    moves = []
    probe = rules.new_game(state.players, teams=state.teams, options=state.options,
                           deck=state.deck)
    for m in state.history:
        moves.append({"player": probe.seat, **decode(m)})
        core.step(probe, m)
    return {"players": list(state.players), "teams": state.teams,
            "options": state.options.to_json(), "deck": list(state.deck), "moves": moves}
