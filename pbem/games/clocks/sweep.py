"""The clock sweep: every due timeout, reminder and notice, done once.

Due work is found with indexed queries on UTC columns (game.status + deadline_at,
game.status + next_reminder_at, notice.status + due_at); each piece is done in its own short
transaction and claimed so that two workers running at once never do it twice:
- timeouts are done a chunk of games at a time (TIMEOUT_CHUNK): the games still due at the
  version the sweep saw are locked (SKIP LOCKED: another worker, or a player's move in
  progress, keeps them), the autoplayed moves are planned by the engine and stored together
  (pbem.games.service.store_moves: one versioned UPDATE, one INSERT into the move log, one
  INSERT of emails); if that fails, each game of the chunk is retried alone in a savepoint;
- reminders are claimed a chunk of games at a time (pbem.games.clocks.reminders): the chunk's still-due
  rows are locked (SKIP LOCKED: another worker skips them), moved to their next step with one
  UPDATE and their emails queued with one INSERT, in one transaction; each email is rendered
  by the delivery worker just before it is sent (or cancelled if that turn is over by then);
- notices are claimed with `UPDATE notice SET status='sent' ... RETURNING`.
A worker that was down catches up once: overdue ladder steps are passed over (one reminder,
not the whole ladder) and a passed deadline is applied once (no reminder after it).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import engine as korsar
from sqlalchemy import update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from pbem.present.names import named_view
from pbem.games import notices
from pbem.games.clocks import reminders
import pbem.i18n as i18n
from pbem.letters import emails
from pbem.present.phrases import describe_move
from pbem.schedule import is_clocked
from pbem.config import Config
from pbem.db import batched_writes, read_scope
from pbem.games import lifecycle
from pbem.games.service import PlannedMove, lock_game_with_seats, plan_move, start_turn, store_moves
from pbem.games.bots import bot_move
from pbem.games.errors import GameError
from pbem.store import load_state
from pbem.models import Game, GameStatus, Seat, utcnow

log = logging.getLogger("pbem.games.clocks")
BATCH = 5000
# Timeouts done per transaction: one commit (an fsync on PostgreSQL) and a few statements per
# chunk. SQLite's write lock stops every player's move meanwhile, so its chunks stay short
# (about 30 ms); PostgreSQL locks only the chunk's own game rows.
TIMEOUT_CHUNK = {"sqlite": 100, "postgresql": 250}


# ---------------------------------------------------------------- timeouts
def due_timeouts(session: Session, now: datetime, limit: int = BATCH) -> list[tuple[int, int]]:
    return [(r[0], r[1]) for r in session.exec(
        select(Game.id, Game.version).where(Game.status == GameStatus.RUNNING,
                                            col(Game.deadline_at) <= now)
        .order_by(col(Game.deadline_at), col(Game.id)).limit(limit))
        if r[0] is not None]  # one lock order for all workers; (a stored game has its id: narrows only)


def apply_timeouts(session: Session, cfg: Config, due: list[tuple[int, int]], now: datetime) -> int:
    """Apply a chunk of due timeouts together (one lock query, one seat query, the moves stored
    with one UPDATE and one INSERT, the emails with one INSERT); how many were applied.

    Should that fail, each game is done again alone in its own savepoint, so one bad game
    rolls back alone and the others still move.
    """
    try:
        with session.begin_nested():
            return _apply_timeouts_together(session, cfg, due, now)
    except Exception:  # noqa: BLE001  (retried one by one just below)
        log.exception("timeouts failed together, applying them one by one: games %s",
                      [game_id for game_id, _ in due])
    done = 0
    for game_id, seen_version in due:
        try:
            with session.begin_nested():
                done += apply_timeout(session, cfg, game_id, seen_version, now) is not None
        except GameError:  # the game moved meanwhile (a player's move won the race): nothing to do
            pass
        except Exception:  # noqa: BLE001  (one bad game must not stop the others; retried next sweep)
            log.exception("timeout failed for game %s", game_id)
    return done


def _apply_timeouts_together(session: Session, cfg: Config, due: list[tuple[int, int]],
                             now: datetime) -> int:
    seen = dict(due)
    games = session.exec(  # still due and not taken by another worker (SKIP LOCKED)
        select(Game).where(col(Game.id).in_(list(seen)), Game.status == GameStatus.RUNNING,
                           col(Game.deadline_at) <= now)
        .order_by(col(Game.deadline_at), col(Game.id))
        .with_for_update(skip_locked=True).execution_options(populate_existing=True)).all()
    # Moved since the read: next sweep. (The ignore: a stored game's id is never None.)
    games = [g for g in games if g.version == seen[g.id]]  # type: ignore[index]
    seats: dict[int, list[Seat]] = {g.id: [] for g in games}  # type: ignore[misc]  # stored: its id is set
    for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(list(seats)))
                             .order_by(col(Seat.game_id), col(Seat.position))):
        seats[seat.game_id].append(seat)
    timeouts = []
    with batched_writes(session):
        for game in games:
            timeout = _timeout(session, cfg, game, seats[game.id], now)  # type: ignore[index]  # stored: its id is set
            if timeout is not None:
                timeouts.append(timeout)
        store_moves(session, cfg, [t.move for t in timeouts if t.move is not None])
    _count_timeouts(session, [t.seat for t in timeouts])
    return len(timeouts)


def apply_timeout(session: Session, cfg: Config, game_id: int, seen_version: int,
                  now: datetime) -> str | None:
    """Apply the game's timeout policy to the seat whose deadline passed; None if not due (any more)."""
    game, seats = lock_game_with_seats(session, game_id)
    if (game.status != GameStatus.RUNNING or game.version != seen_version
            or game.deadline_at is None or game.deadline_at > now):
        return None
    with batched_writes(session):
        timeout = _timeout(session, cfg, game, seats, now)
        if timeout is None:
            return None
        store_moves(session, cfg, [timeout.move] if timeout.move is not None else [])
    _count_timeouts(session, [timeout.seat])
    return timeout.policy


@dataclass(frozen=True)
class _Timeout:
    policy: str  # autoplay | pause | bot
    seat: Seat  # whose deadline passed
    move: PlannedMove | None  # the move played for them (autoplay), to store


def _timeout(session: Session, cfg: Config, game: Game, seats: list[Seat],
             now: datetime) -> _Timeout | None:
    """The timeout of a locked, due game (None: nobody to wait for, the clock is cleared)."""
    seat = next((s for s in seats if s.position == game.to_move), None)
    if not is_clocked(seat):
        start_turn(game, seats, cfg, now)
        session.add(game)
        return None
    assert seat is not None
    policy, planned = game.on_timeout, None
    if policy == "pause":
        lifecycle.pause_game(session, cfg, game.id, now=now, actor="clock", reason="timeout")  # type: ignore[arg-type]  # stored: its id is set
    elif policy == "bot":
        # The expert stands in for the rest of the game (a partner deserves a good one); it
        # thinks in the bots job, outside this lock.
        lifecycle.hand_seat_to_bot(session, cfg, game.id, seat.position, now=now, actor="clock",  # type: ignore[arg-type]  # stored: its id is set
                                   bot="expert", reason="timeout")
    else:
        policy = "autoplay"
        state = load_state(game)
        view = korsar.player_view(state, seat.position)  # what the bot sees, and the email's words
        planned = plan_move(session, cfg, game, seats, seat.position, bot_move(game, seat, state, view, cfg=cfg),
                            expected_version=game.version, source="timeout", now=now, state=state)
        with i18n.using(seat.language):  # the email says what was played in the seat's words
            move_text = describe_move(planned.move, named_view(view, seats))
        emails.queue_timeout_autoplay(session, cfg, game, seat, move_text=move_text, now=now)
    log.info("timeout game=%s seat=%s policy=%s", game.id, seat.position, policy)
    return _Timeout(policy, seat, planned)


_SEATS = Seat.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__


def _count_timeouts(session: Session, seats: list[Seat]) -> None:
    """One more missed deadline for each seat (one UPDATE for them all)."""
    if not seats:
        return
    session.connection().execute(update(_SEATS).where(_SEATS.c.id.in_([s.id for s in seats]))
                                 .values(timeouts=_SEATS.c.timeouts + 1))
    for seat in seats:
        set_committed_value(seat, "timeouts", seat.timeouts + 1)


# ---------------------------------------------------------------- reminders
def due_reminders(session: Session, now: datetime, limit: int = BATCH) -> list[tuple[int, datetime]]:
    return [(r[0], r[1]) for r in session.exec(
        select(Game.id, Game.next_reminder_at).where(Game.status == GameStatus.RUNNING,
                                                     col(Game.next_reminder_at) <= now)
        .order_by(col(Game.next_reminder_at)).limit(limit))
        if r[0] is not None and r[1] is not None]  # the WHERE has no NULL: narrows only


# ---------------------------------------------------------------- the sweep
class _Budget:
    """Stops a sweep from taking new pieces of work after `seconds` (None: no limit)."""

    def __init__(self, seconds: float | None) -> None:
        self.until = None if seconds is None else time.monotonic() + seconds
        self.deferred = 0

    def spent(self) -> bool:
        return self.until is not None and time.monotonic() >= self.until


def _each(conn: Connection, work: list[Any], do: Any, budget: _Budget,
          size: Any = lambda item: 1) -> int:
    """Do each piece in its own transaction on one connection (no pool round trip per piece).

    `do` returns a bool or a count; `size(item)` is how many due items a piece holds.
    """
    done = 0
    for index, item in enumerate(work):
        if budget.spent():  # left due: the next sweep takes it (nothing was claimed)
            budget.deferred += sum(size(rest) for rest in work[index:])
            break
        try:
            with conn.begin(), Session(bind=conn, expire_on_commit=False) as session:
                done += int(do(session, *item))
                session.flush()
        except Exception:  # noqa: BLE001  (one bad game must not stop the others; retried next sweep)
            log.exception("clock work failed for %r", item[0])
    return done


def _chunks(items: list[Any], size: int) -> list[tuple[list[Any]]]:
    return [(items[i:i + size],) for i in range(0, len(items), size)]


def run_sweep(engine: Engine, cfg: Config, now: datetime | None = None, *,
              budget_seconds: float | None = None) -> dict[str, int]:
    """Do every due timeout, reminder and notice once (idempotent; safe with two workers).

    One read-only transaction finds all the due work (three indexed queries); each piece (a chunk
    of timeouts, a chunk of reminders, a seat's notices) is then claimed and done in its own
    transaction. Work that becomes due meanwhile waits for the next
    sweep. With `budget_seconds`, no new piece is started after that time: the rest stays due
    (unclaimed) for the next sweep and is counted in "deferred" (a periodic worker job stays short;
    `worker --once` passes no budget and does everything).
    """
    now = now or utcnow()
    budget = _Budget(budget_seconds)
    with read_scope(engine) as session:
        timeouts = due_timeouts(session, now)
        reminder_ids = [gid for gid, _ in due_reminders(session, now)]
        seats = [(sid,) for sid in notices.due_notice_seats(session, now, BATCH)]
    if not (timeouts or reminder_ids or seats):
        return {"timeouts": 0, "reminders": 0, "notice_emails": 0, "deferred": 0}
    with engine.connect() as conn:
        report = {
            "timeouts": _each(conn, _chunks(timeouts, TIMEOUT_CHUNK.get(engine.dialect.name, 100)),
                              lambda s, due: apply_timeouts(s, cfg, due, now), budget,
                              size=lambda item: len(item[0])),
            "reminders": _each(conn, _chunks(reminder_ids, reminders.CHUNK),
                               lambda s, ids: reminders.queue_due_reminders(s, cfg, ids, now), budget,
                               size=lambda item: len(item[0])),
            "notice_emails": _each(conn, seats,
                                   lambda s, sid: notices.send_due_notices(s, cfg, sid, now), budget),
        }
    report["deferred"] = budget.deferred
    return report
