"""A game's record: its move log and the export `python -m engine replay` reads (once the game is
over: `finish.is_over`)."""
from __future__ import annotations

import json
from typing import Any

from sqlmodel import Session, col, select

import engine
from pbem.games.errors import GameNotOver, NotFound
from pbem.games.service import seats_of
from pbem.models import Game, MoveRecord
from pbem.games.finish import is_over


def moves_of(session: Session, game_id: int) -> list[MoveRecord]:
    return list(session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)
                             .order_by(col(MoveRecord.number))))


def export_record(session: Session, game_id: int, *, live: bool = False) -> dict[str, Any]:
    """The game as a record `python -m engine replay` reads: players, teams, options, deck, moves.

    The deck is the order of every hand and of the draw pile, so the record of a game still being
    played is refused (GameNotOver, 409) unless `live=True`: the server's own consistency checks,
    whose record nobody sees.
    """
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound("no_game_numbered", {"game": game_id})
    if not live and not is_over(game):
        raise GameNotOver("record_of_live_game", {"game": game_id})
    seats = seats_of(session, game_id)
    return {
        "players": [s.name for s in seats],
        "teams": game.teams,
        "options": json.loads(game.options_json),
        "deck": json.loads(game.deck_json),
        "moves": [{"player": m.seat, **json.loads(m.move_json)} for m in moves_of(session, game_id)],
    }


def replay_record(record: dict[str, Any]) -> engine.GameState:
    """Replay an exported record with the engine, as `python -m engine replay` does."""
    from engine.replay import replay_state

    state, error = replay_state(record)
    if error is not None:
        raise engine.IllegalMove(f"move {error['move_index']}: {error['message']}")
    return state
