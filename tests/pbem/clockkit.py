"""Helpers of the clock tests: a config, a game started at a known instant, the outbox."""
from __future__ import annotations

import json
from datetime import datetime

from game_helpers import game_row, make_cfg, outbox, with_settings  # noqa: F401  (make_cfg: imported from here too)
from sqlalchemy.engine import Engine
from sqlmodel import select

from pbem.schedule import plan_turn
from pbem.games.clocks.sweep import run_sweep
from pbem.config import Config
from pbem.db import session_scope
from pbem.games.service import apply_game_move, create_game, lock_game_with_seats, seats_of
from pbem.games.bots import bot_move
from pbem.store import load_state
from pbem.models import OutboxMessage, Seat

T0 = datetime(2026, 1, 12, 10, 0)  # a Monday, 10:00 UTC
PLAYERS = ["Ann <ann@example.com>", "Bob <bob@example.com>"]


def start_game(engine: Engine, cfg: Config, *, now: datetime = T0, deadline_hours: float = 10,
               reminders: str = "50,85", on_timeout: str = "autoplay", tz: str = "UTC",
               players: list[str] | None = None, seed: int = 7) -> int:
    """A game whose first player (seat 0, Ann) is to move from `now`, in zone `tz`."""
    with session_scope(engine) as session:
        game = create_game(session, cfg, players or PLAYERS, seed=seed, now=now, **with_settings(
            {"deadline_hours": deadline_hours, "reminders": reminders, "on_timeout": on_timeout}))
        seats = seats_of(session, game.id)
        for seat in seats:
            seat.timezone = tz
            session.add(seat)
        plan_turn(game, seats[game.to_move], now)
        session.add(game)
        return game.id  # type: ignore[return-value]


def seat_row(engine: Engine, game_id: int, position: int) -> Seat:
    with session_scope(engine) as session:
        return session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()


def mails(engine: Engine, kind: str | None = None, to: str | None = None) -> list[OutboxMessage]:
    """Queued emails (a reminder's bodies are filled in only when it is delivered: `deliver`)."""
    where = {"kind": kind, "to_addr": to}
    return outbox(engine, **{key: value for key, value in where.items() if value})


def headers(row: OutboxMessage) -> dict[str, str]:
    return json.loads(row.headers_json)


def sweep(engine: Engine, cfg: Config, at: datetime) -> dict[str, int]:
    return run_sweep(engine, cfg, at)


def deliver(engine: Engine, cfg: Config, smtp_server, at: datetime) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """What the worker does at `at`: send the due outbox (reminders are rendered then) to the
    test SMTP server."""
    from dataclasses import replace

    from pbem.mail.delivery import deliver_due

    smtp_cfg = replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port)
    return deliver_due(engine, smtp_cfg, now=at, batch_size=500).as_dict()


def mover(engine: Engine, game_id: int) -> Seat:
    """The seat to move now."""
    game = game_row(engine, game_id)
    assert game.to_move is not None
    return seat_row(engine, game_id, game.to_move)


def other(engine: Engine, game_id: int) -> Seat:
    """The (first) seat not to move."""
    game = game_row(engine, game_id)
    return seat_row(engine, game_id, 1 if game.to_move == 0 else 0)


def play_the_turn(engine: Engine, cfg: Config, game_id: int, at: datetime = T0) -> None:
    """The player to move plays (the greedy bot's choice), as a click at `at` would."""
    with session_scope(engine) as session:
        game = lock_game_with_seats(session, game_id)[0]
        seat = seats_of(session, game_id)[game.to_move]
        apply_game_move(session, cfg, game_id, seat.position, bot_move(game, seat, load_state(game), cfg=cfg),
                        expected_version=game.version, now=at)
