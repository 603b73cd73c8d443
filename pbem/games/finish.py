"""The end of a game, whichever way it comes: the last move (a player's, a bot's, a forced or a
timed-out one: the move pipeline), or an admin's abort. A game whose players all left ends by
its bots' last move, so through the pipeline too.

`finish_game` is the one place a game ends: it sets the status and `finished_at`, records the
final notices, queues the game-over emails, then calls the hooks in `HOOKS`: where a rating,
statistics or a rematch offer hook in (lichess's `Finisher`). "Is the game over" is `is_over`.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Literal

import engine
from sqlmodel import Session

from pbem.config import Config
from pbem.games.notices import record_attacks
from pbem.letters import emails, notify
from pbem.models import Game, GameStatus, Seat
from pbem.schedule import plan_turn

How = Literal["played", "aborted"]  # the last move was played; an admin stopped the game
OVER = (GameStatus.FINISHED, GameStatus.ABORTED)  # the statuses of a game that is over
# Called last by `finish_game`, in its transaction, with what it was given. Empty by default.
Hook = Callable[[Session, Config, Game, list[Seat], engine.GameState | None, How], None]
HOOKS: list[Hook] = []


def is_over(game: Game) -> bool:
    """Finished by its last move or aborted: no move, seat change or clock any more."""
    return game.status in OVER


def finish_game(session: Session, cfg: Config, game: Game, seats: list[Seat], state: engine.GameState | None,
                how: How, *, now: datetime, events: Sequence[dict[str, Any]] = (), reason: str = "") -> None:
    """End the locked game: `state` is the final state of a game played to its end (`how`
    "played": the move pipeline stored its status and clock with the last move, in that move's
    one UPDATE, and `events` are that move's); an abort stops the game's clocks here and tells
    the players `reason`."""
    status = GameStatus.FINISHED if how == "played" else GameStatus.ABORTED
    if game.status != status:  # not stored with a last move: the row is changed here
        game.status = status
        game.finished_at = game.updated_at = now
        plan_turn(game, None, now)
        game.bot_due_at = None
        game.paused_at = None
        session.add(game)
    if how == "played":
        assert state is not None and state.finished, "a game is played to its end by its last move"
        record_attacks(session, cfg, game, seats, list(events), now)
        notify.queue_game_over(session, cfg, game, seats, state)
    else:
        emails.queue_aborted(session, cfg, game, seats, reason=reason, now=now)
    for hook in HOOKS:
        hook(session, cfg, game, seats, state, how)
