"""The move path writes the game row once: state, version and the next turn's clock in one
versioned UPDATE (the clock fields are not flushed again afterwards)."""
from __future__ import annotations

from sqlalchemy import event

from clockkit import T0, game_row, start_game
from pbem.db import session_scope
from pbem.games.service import apply_game_move, lock_game_with_seats, seats_of
from pbem.games.bots import bot_move
from pbem.store import load_state


def test_a_move_updates_the_game_row_once_with_the_next_turns_clock(engine, cfg):
    game_id = start_game(engine, cfg)
    statements: list[str] = []
    with session_scope(engine) as session:
        game = lock_game_with_seats(session, game_id)[0]
        seats = seats_of(session, game_id)
        seat = seats[game.to_move]
        move = bot_move(game, seat, load_state(game), cfg=cfg)

        def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
            statements.append(" ".join(statement.split()).upper())

        event.listen(engine, "before_cursor_execute", record)
        try:
            apply_game_move(session, cfg, game_id, seat.position, move, expected_version=game.version,
                            now=T0, game=game, seats=seats)
        finally:
            event.remove(engine, "before_cursor_execute", record)
    assert len([s for s in statements if s.startswith("UPDATE GAME ")]) == 1
    assert not [s for s in statements if s.startswith("SELECT") and " FROM SEAT" in s]
    game = game_row(engine, game_id)
    assert game.to_move != seat.position and game.turn_started_at == T0 and game.deadline_at is not None
