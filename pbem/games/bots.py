"""Bot seats played by the worker: the due bot moves, each thought outside the row lock when
given an Engine, then applied through the move pipeline (`service.apply_game_move`)."""
from __future__ import annotations

import hashlib
import hmac
import logging
import random
import time
from collections.abc import Callable
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

import engine
import engine.bots
from engine.bots.inference import observations
from engine.view_types import PlayerView
from pbem import metrics
from pbem.config import Config
from pbem.db import session_scope
from pbem.games.errors import StaleMove
from pbem.games.service import apply_game_move, is_bot_seat, lock_game_with_seats, seats_of
from pbem.models import Game, GameStatus, Seat, utcnow
from pbem.store import load_state

BOT_RETRY_DELAY = timedelta(minutes=5)  # after an unexpected error in one game's bot move
# A bot move's wall-clock cap (a search bot's own cap is twice its CPU budget, 0.9 s by default):
# play_due_bots starts a move only while this much of its budget is left, so a poll never holds
# past its limit; the first move of a poll thinks at most what is left.
BOT_MOVE_WALL_SECONDS = 0.9
# The wall time the bot thinking now may take (set by play_due_bots for each move it starts).
_think_limit: ContextVar[float | None] = ContextVar("bot_think_limit", default=None)
log = logging.getLogger("pbem.games")


def bot_rng(cfg: Config, game: Game, seat: Seat) -> random.Random:
    """The bot's random source for this game, version and seat: the same on every call with the
    same SECRET_KEY (the move planned and the move applied agree), but keyed with it, so a player
    who knows the game id and version cannot replay the bot's draws and read its hand from its
    choice (as with the old `random.Random(f"{id}:{version}:{position}")`)."""
    digest = hmac.new(cfg.SECRET_KEY.encode(), f"bot:{game.id}:{game.version}:{seat.position}".encode(),
                      hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def bot_move(game: Game, seat: Seat, state: engine.GameState,
             view: PlayerView | None = None, *, cfg: Config) -> dict[str, Any]:
    """The move the seat's bot picks (deterministic per game, version and SECRET_KEY: see
    `bot_rng`). `view`: the seat's view of `state` when the caller has it already."""
    limit = _think_limit.get()
    bot = engine.bots.get_bot(seat.bot or "greedy",
                              wall_ms=None if limit is None else max(limit, 0.0) * 1000.0)
    with metrics.timed(metrics.BOT_THINK):
        # A bot that reads the others' moves gets them as this seat saw them (never more).
        history = None
        if getattr(bot, "infer", False):
            try:
                history = observations(state, seat.position)
            except (ValueError, KeyError, IndexError):  # a record that no longer replays
                log.warning("bot history unreadable: uniform deals", extra={"game_id": game.id})
        return bot.choose(view or engine.player_view(state, seat.position), bot_rng(cfg, game, seat),
                          history)


def _play_one_bot(engine_or_session: Engine | Session, cfg: Config, game_id: int,
                  now: datetime) -> bool:
    """Play the game's due bot move, if it still is one; True if a move was played.

    Given an Engine, the bot thinks outside any transaction (a search bot takes up to a second:
    holding the game row that long, on SQLite the whole database's write lock, would hold up
    mail delivery and the clocks), then the move is applied under the row lock only if the game
    has not moved on meanwhile. Given a Session, all of it happens in the caller's transaction.
    """
    if isinstance(engine_or_session, Session):
        session = engine_or_session
        game, seats = lock_game_with_seats(session, game_id)
        if (game.status != GameStatus.RUNNING or game.bot_due_at is None or game.bot_due_at > now
                or game.to_move is None):
            return False
        seat = seats[game.to_move]
        if not is_bot_seat(seat):
            game.bot_due_at = None
            session.add(game)
            return False
        move = bot_move(game, seat, load_state(game), cfg=cfg)
        apply_game_move(session, cfg, game_id, seat.position, move, expected_version=game.version,
                        source="bot", now=now, game=game, seats=seats)
        return True
    with session_scope(engine_or_session) as s:  # a plain read: no row lock while thinking
        read = s.get(Game, game_id)
        if (read is None or read.status != GameStatus.RUNNING or read.bot_due_at is None
                or read.bot_due_at > now or read.to_move is None):
            return False
        seat = seats_of(s, game_id)[read.to_move]
        version = read.version
        state = load_state(read)
    planned = bot_move(read, seat, state, cfg=cfg) if is_bot_seat(seat) else None  # no transaction
    with session_scope(engine_or_session) as s:
        game, seats = lock_game_with_seats(s, game_id)
        if (game.version != version or game.status != GameStatus.RUNNING
                or game.bot_due_at is None or game.bot_due_at > now or game.to_move is None):
            return False  # moved on while the bot thought: the next poll looks again
        seat = seats[game.to_move]
        if planned is None or not is_bot_seat(seat):
            game.bot_due_at = None
            s.add(game)
            return False
        apply_game_move(s, cfg, game_id, seat.position, planned, expected_version=version,
                        source="bot", now=now, game=game, seats=seats)
        return True


def due_bot_games(session: Session, now: datetime, limit: int = 100) -> list[int]:
    """Ids of running games with a bot move due at `now`, the longest waiting first."""
    ids = session.exec(
        select(col(Game.id)).where(Game.status == GameStatus.RUNNING, col(Game.bot_due_at) <= now)
        .order_by(col(Game.bot_due_at)).limit(limit))
    return [game_id for game_id in ids if game_id is not None]  # a stored game has its id: narrows only


def _defer_bot(engine_or_session: Engine | Session, game_id: int, when: datetime) -> None:
    statement = update(Game).where(col(Game.id) == game_id).values(bot_due_at=when)
    if isinstance(engine_or_session, Session):
        engine_or_session.execute(statement)
    else:
        with session_scope(engine_or_session) as s:
            s.execute(statement)


def play_due_bots(engine_or_session: Engine | Session, cfg: Config, now: datetime | None = None,
                  max_moves: int = 1000, budget_seconds: float | None = None,
                  stop: Callable[[], bool] | None = None) -> int:
    """Play the bot moves due at `now`, oldest due first; returns how many were played.

    `budget_seconds`: the poll's wall time. One move is always played (it thinks at most that
    long); another starts only while a whole move's thinking (BOT_MOVE_WALL_SECONDS) fits in
    what is left, so a backlog of thinking bots drains over the worker's polls instead of holding
    up its other jobs, and what is left stays due. None: play everything that is due.
    `stop`: asked between moves; once true (the worker is stopping) no new move starts.
    Given an Engine, each move is its own transaction (two workers may run this at once: the
    row lock and version check make the second one skip). Given a Session, the caller commits.
    """
    now = now or utcnow()
    started = time.monotonic()
    played = 0
    while played < max_moves:
        progressed = False
        if isinstance(engine_or_session, Session):
            ids = due_bot_games(engine_or_session, now)
        else:
            with session_scope(engine_or_session) as s:
                ids = due_bot_games(s, now)
        for game_id in ids:
            if stop is not None and stop():
                return played
            limit = None
            if budget_seconds is not None:
                left = budget_seconds - (time.monotonic() - started)
                if played and left < BOT_MOVE_WALL_SECONDS:
                    return played
                limit = min(max(left, 0.0), BOT_MOVE_WALL_SECONDS)
            token = _think_limit.set(limit)
            try:
                if isinstance(engine_or_session, Session):
                    with engine_or_session.begin_nested():
                        ok = _play_one_bot(engine_or_session, cfg, game_id, now)
                else:
                    ok = _play_one_bot(engine_or_session, cfg, game_id, now)
            except StaleMove:  # another worker played it first
                ok = False
            except Exception:  # noqa: BLE001  (one broken game, an illegal bot move included, must not stop every other bot)
                log.exception("bot move failed", extra={"game_id": game_id})
                _defer_bot(engine_or_session, game_id, now + BOT_RETRY_DELAY)
                ok = False
            finally:
                _think_limit.reset(token)
            if ok:
                played += 1
                progressed = True
            if played >= max_moves:
                break
        if not progressed:
            break
    return played
