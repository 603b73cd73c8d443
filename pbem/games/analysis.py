"""The expert's analysis of finished games, run by the worker (job "analysis").

- `queue_analysis` is a `finish.HOOKS` hook: in the transaction that ends a game played to its
  end (not an abort) with a human seat, one `analysis_job` row, with the time the game-over
  email promises (`ready_by`: the jobs ahead of it, at the benchmark's time a game).
- `run_analyses` (the worker): claims one due job with a lease (as the outbox does: FOR UPDATE
  SKIP LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite, then a conditional UPDATE), loads the
  record, releases the database, computes with `engine.analysis` OUTSIDE any transaction, and
  stores the moves only if its claim still holds: two workers never store one game twice. A job
  whose worker died is claimed again when its lease runs out.
- Only the moves a human played (move log source "player") of a human seat are judged; the
  seat's view at each step is all the engine reads (engine/analysis.py). A running game is
  never analysed: its job is queued only by `finish_game`, and the engine refuses a record
  that does not end the game.
- Stored: the emails "your analysis is ready" to the seats whose address chose them on /me
  (`AnalysisPreference`), queued through the outbox in the transaction that stores the moves.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

import engine
from engine.analysis import GOOD, AnalysisError, Budget, GameAnalysis, analyse_game
from pbem.config import Config
from pbem.db import session_scope
from pbem.games import finish
from pbem.games.errors import GameNotOver, declare_refusals
from pbem.games.seated import SeatedGame
from pbem.games.finish import How
from pbem.games.records import export_record, moves_of
from pbem.letters import analysis as analysis_letters
from pbem.models import Game, GameStatus, Seat, SeatKind, utcnow
from pbem.i18n import lazy
from pbem.models_analysis import AnalysisJob, AnalysisMove, AnalysisPreference, AnalysisStatus
from pbem.present import analysis as present
from pbem.present.names import named_view, reader_names
from pbem.present.replay import replay_states

log = logging.getLogger("pbem.games")
declare_refusals({
    "analysis_of_live_game": (lazy("This game is still being played: the expert's analysis comes "
                                   "once it is over."), 409),
    "no_analysis_of_aborted_game": (lazy("This game was stopped before its end: there is no "
                                         "analysis of it."), 409),
})
# A claim holds this long: far more than the per-game CPU cap (engine.analysis: 60 s).
LEASE = timedelta(minutes=10)
MAX_ATTEMPTS = 3  # a job that fails (or whose worker dies) this often is marked failed
# What the game-over email promises, from benchmarks/analysis_bench.py at the default budget:
# p95 CPU seconds of one game's analysis with every seat human (2 to 5 players: 3.2 to 5.4 s on
# the shared 2-core machine), about 1.5 times for a busy worker; plus the worker's poll.
SECONDS_PER_GAME = 8.0
T = AnalysisJob


def analysis_key(cfg: Config, game_id: int) -> str:
    """The key that seeds a game's analysis (engine.analysis.step_rng): the same for every run of
    one game with the same SECRET_KEY, so a stored analysis can be computed again identically."""
    return hmac.new(cfg.SECRET_KEY.encode(), f"analysis:{game_id}".encode(), hashlib.sha256).hexdigest()[:32]


def budget(cfg: Config) -> Budget:
    """The default budget (engine.analysis.Budget): 64 samples a position, 300 ms of CPU a move
    at most, a minute a game."""
    return Budget()


def human_positions(seats: list[Seat]) -> list[int]:
    """The seats analysed: the humans' (a seat a bot took over keeps its human moves)."""
    return [s.position for s in seats if s.kind == SeatKind.HUMAN]


# ---------------------------------------------------------------- queued when a game ends
def queue_analysis(session: Session, cfg: Config, game: Game, seats: list[Seat],
                   state: engine.GameState | None, how: How) -> None:
    """The `finish.HOOKS` hook: a game played to its end with a human seat gets one job."""
    if how != "played" or game.id is None or not human_positions(seats):
        return
    if session.exec(select(T.id).where(T.game_id == game.id)).first() is not None:
        return
    now = utcnow()
    ahead = session.exec(select(func.count()).select_from(T).where(
        col(T.status).in_((AnalysisStatus.PENDING, AnalysisStatus.RUNNING)))).one()
    wait = cfg.WORKER_POLL_SECONDS + (int(ahead) + 1) * SECONDS_PER_GAME
    session.add(AnalysisJob(game_id=game.id, queued_at=now, ready_by=now + timedelta(seconds=wait)))


def register() -> None:
    """Hook the analysis into the one end of a game (from `create_app`; once)."""
    if queue_analysis not in finish.HOOKS:
        finish.HOOKS.append(queue_analysis)


# ---------------------------------------------------------------- the worker's job
def _due(now: datetime) -> Any:
    return or_(col(T.status) == AnalysisStatus.PENDING,
               and_(col(T.status) == AnalysisStatus.RUNNING, col(T.claimed_until) < now))


def claim_job(db: Engine, worker_id: str, now: datetime) -> int | None:
    """Lease the oldest due job to `worker_id` in one short transaction; its game id, or None."""
    with session_scope(db) as session:
        found = session.exec(select(T.id, T.game_id).where(_due(now))
                             .order_by(col(T.queued_at), col(T.id)).limit(1)
                             .with_for_update(skip_locked=True)).first()
        if found is None:
            return None
        job_id, game_id = found
        taken = session.exec(update(T).where(col(T.id) == job_id).where(_due(now)).values(
            status=AnalysisStatus.RUNNING, claimed_by=worker_id, claimed_until=now + LEASE,
            attempts=T.attempts + 1))
        return game_id if taken.rowcount == 1 else None


def _steps_to_judge(session: Session, game_id: int, humans: list[int]) -> set[int]:
    """The move log's steps a human played (not a bot, a timeout, a forced move or an admin)."""
    return {m.number - 1 for m in moves_of(session, game_id)
            if m.seat in humans and m.source == "player"}


def run_analyses(db: Engine, cfg: Config, worker_id: str, now: datetime | None = None,
                 max_games: int = 1) -> dict[str, int]:
    """The worker's job: analyse up to `max_games` due games, one at a time (each: claim, load,
    release, compute, store). Returns counts."""
    report = {"analysed": 0, "failed": 0}
    for _ in range(max_games):
        now = now or utcnow()
        game_id = claim_job(db, worker_id, now)
        if game_id is None:
            break
        outcome = analyse_one(db, cfg, game_id, worker_id)
        if outcome in report:
            report[outcome] += 1
    return report


def analyse_one(db: Engine, cfg: Config, game_id: int, worker_id: str) -> str:
    """Analyse one claimed game: "analysed", "failed", "retry" or "lost" (another worker holds
    it now: nothing stored)."""
    with session_scope(db) as session:  # load, then release the database
        game = session.get(Game, game_id)
        if game is None or game.status != GameStatus.FINISHED:
            return _fail(db, game_id, worker_id, "the game is not finished")
        seats = list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))))
        humans = human_positions(seats)
        record = export_record(session, game_id)
        steps = _steps_to_judge(session, game_id, humans)
    try:  # no transaction open: a game takes seconds of CPU
        result = analyse_game(record, humans, analysis_key(cfg, game_id), budget(cfg), steps=steps)
    except AnalysisError as exc:
        return _fail(db, game_id, worker_id, f"{exc.code}: {exc}")
    except Exception:  # noqa: BLE001  (a broken game must not stop the others: retried, then failed)
        log.exception("analysis failed", extra={"game_id": game_id})
        return _retry(db, game_id, worker_id)
    return "analysed" if store(db, cfg, game_id, worker_id, result) else "lost"


def _mine(game_id: int, worker_id: str) -> Any:
    return and_(col(T.game_id) == game_id, col(T.claimed_by) == worker_id,
                col(T.status) == AnalysisStatus.RUNNING)


def store(db: Engine, cfg: Config, game_id: int, worker_id: str, result: GameAnalysis) -> bool:
    """Store the moves if this worker's claim still holds (a conditional UPDATE first: a second
    worker that took over an expired lease stores nothing twice); queue the opted-in emails."""
    with session_scope(db) as session:
        done = session.exec(update(T).where(_mine(game_id, worker_id)).values(
            status=AnalysisStatus.DONE, finished_at=utcnow(), claimed_by=None, claimed_until=None,
            moves=len(result.moves), stopped_at=result.stopped_at, cpu_ms=result.cpu_ms,
            playouts=result.playouts, last_error=None))
        if done.rowcount != 1:
            return False
        for m in result.moves:
            session.add(AnalysisMove(
                game_id=game_id, step=m.step, seat=m.seat, played_json=json.dumps(m.played),
                best_json=json.dumps(m.best), played_margin=m.played_margin,
                best_margin=m.best_margin, loss=m.loss, mark=m.mark, samples=m.samples,
                legal=m.legal, forced=m.forced, capped=m.capped))
        game = session.get(Game, game_id)
        assert game is not None  # the job's game: a foreign key
        seats = list(session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))))
        for seat in seats:
            if seat.kind == SeatKind.HUMAN and wants_ready_email(session, seat):
                analysis_letters.queue_ready(session, cfg, game, seat)
    return True


def _fail(db: Engine, game_id: int, worker_id: str, reason: str) -> str:
    with session_scope(db) as session:
        session.exec(update(T).where(_mine(game_id, worker_id)).values(
            status=AnalysisStatus.FAILED, finished_at=utcnow(), claimed_by=None,
            claimed_until=None, last_error=reason[:500]))
    return "failed"


def _retry(db: Engine, game_id: int, worker_id: str) -> str:
    with session_scope(db) as session:
        job = session.exec(select(T).where(_mine(game_id, worker_id))).first()
        if job is None:
            return "lost"
        if job.attempts >= MAX_ATTEMPTS:
            job.status, job.last_error = AnalysisStatus.FAILED, "failed too often"
        else:
            job.status = AnalysisStatus.PENDING
        job.claimed_by = job.claimed_until = None
        session.add(job)
    return "failed" if job.status == AnalysisStatus.FAILED else "retry"


# ---------------------------------------------------------------- reading, and the /me choice
def job_of(session: Session, game_id: int) -> AnalysisJob | None:
    return session.exec(select(T).where(T.game_id == game_id)).first()


def moves_analysed(session: Session, game_id: int) -> list[AnalysisMove]:
    return list(session.exec(select(AnalysisMove).where(AnalysisMove.game_id == game_id)
                             .order_by(col(AnalysisMove.step))))


def wants_ready_email(session: Session, seat: Seat) -> bool:
    """Did the seat's address choose "email me when the analysis is ready" on /me? (Off unless
    chosen; a seat that left the game or unsubscribed gets none.)"""
    if not seat.email or seat.left_game or seat.unsubscribed:
        return False
    pref = session.get(AnalysisPreference, seat.email.strip().lower())
    return bool(pref and pref.ready_email)


def ready_email_chosen(session: Session, email: str) -> bool:
    pref = session.get(AnalysisPreference, email.strip().lower())
    return bool(pref and pref.ready_email)


def set_ready_email(session: Session, email: str, chosen: bool) -> None:
    """The address's choice on /me, stored."""
    key = email.strip().lower()
    pref = session.get(AnalysisPreference, key) or AnalysisPreference(email=key)
    pref.ready_email = chosen
    pref.updated_at = utcnow()
    session.add(pref)


@dataclass(frozen=True)
class AnalysisPage:
    """What a seat's analysis page shows: the job's state (`ready`, `minutes` until it should be,
    `late` once that time has passed and it is still not done, `failed`), every analysed human
    move in words (`steps`), the reader's own (`mine`) with their counts by mark and their chart."""

    ready: bool
    failed: bool
    minutes: int
    late: bool
    steps: list[present.StepAnalysis]
    mine: list[present.StepAnalysis]
    counts: str
    chart: present.Chart | None
    stopped_at: int | None


def analysis_page(session: Session, seated: SeatedGame, now: datetime | None = None) -> AnalysisPage:
    """The analysis of the seat's finished game, read (GameNotOver while it runs or if aborted:
    a running game's analysis would read every hand)."""
    game, seats, seat = seated.game, seated.seats, seated.seat
    if game.status == GameStatus.ABORTED:
        raise GameNotOver("no_analysis_of_aborted_game")
    if game.status != GameStatus.FINISHED or game.id is None:
        raise GameNotOver("analysis_of_live_game")
    job = job_of(session, game.id)
    now = now or utcnow()
    ready = job is not None and job.status == AnalysisStatus.DONE
    failed = job is None or job.status == AnalysisStatus.FAILED
    minutes = 0 if job is None else max(1, math.ceil((job.ready_by - now).total_seconds() / 60))
    late = job is not None and not ready and job.ready_by < now  # promised "about 1 minute" ago
    steps = step_analyses(session, game.id, seats, reader=seat.position) if ready else []
    mine = [s for s in steps if s.seat == seat.position]
    names = reader_names(seats)
    return AnalysisPage(ready=ready, failed=failed and not ready, minutes=minutes, late=late, steps=steps,
                        mine=mine, counts=present.counts_text(mine),
                        chart=present.chart(mine, names[seat.position]),
                        stopped_at=job.stopped_at if job is not None else None)


def step_analyses(session: Session, game_id: int, seats: list[Seat],
                  states: Sequence[engine.GameState] | None = None, *,
                  reader: int | None) -> list[present.StepAnalysis]:
    """Every stored move of a finished game in words, each from its mover's view at that step
    (the record replayed: the game is over, so its record may be read), spoken to seat `reader`
    (None: the admin). `states`: the state at every step when the caller has them already (the
    replay's cache), so nothing is replayed."""
    rows = {row.step: row for row in moves_analysed(session, game_id)}
    if not rows:
        return []
    if states is None:
        states = replay_states(export_record(session, game_id))
    names = reader_names(seats)
    return [present.present_step(row, named_view(engine.player_view(states[step], row.seat), seats), names, reader)
            for step, row in sorted(rows.items()) if step < len(states)]


@dataclass(frozen=True)
class AdminAnalysis:
    """A game's analysis as the admin's game page shows it: the job, and per human seat its marks
    counted (`counts`: seat -> mark -> moves); `first_flagged` the first move (0-based step) not
    marked good, for the link into the admin's replay."""

    status: str
    moves: int
    cpu_ms: float
    stopped_at: int | None
    last_error: str | None
    counts: dict[int, dict[str, int]]
    first_flagged: int | None


def admin_summary(session: Session, game_id: int) -> AdminAnalysis | None:
    """The analysis of `game_id` for the admin (None: never queued), in two queries."""
    job = job_of(session, game_id)
    if job is None:
        return None
    counts: dict[int, dict[str, int]] = {}
    first: int | None = None
    for seat, mark, n, earliest in session.exec(
            select(AnalysisMove.seat, AnalysisMove.mark, func.count(), func.min(AnalysisMove.step))
            .where(AnalysisMove.game_id == game_id).group_by(col(AnalysisMove.seat), col(AnalysisMove.mark))):
        counts.setdefault(seat, {})[mark] = n
        if mark != GOOD and (first is None or earliest < first):
            first = earliest
    return AdminAnalysis(status=job.status, moves=job.moves, cpu_ms=job.cpu_ms, stopped_at=job.stopped_at,
                         last_error=job.last_error, counts=dict(sorted(counts.items())), first_flagged=first)


def step_analysis(steps: list[present.StepAnalysis], step: int) -> present.StepAnalysis | None:
    """The analysis of one step (the replay's `analysis`), None for a step not analysed."""
    return next((s for s in steps if s.step == step), None)


def replay_analysis(session: Session, seated: SeatedGame, number: int,
                    states: Sequence[engine.GameState] | None = None,
                    ) -> tuple[present.StepAnalysis | None, present.Chart | None]:
    """For the replay at move `number` (1-based: the move that led to the step shown; 0, the
    deal): that move's analysis (`analysis` of replay/_analysis.html, None if it is not a human
    move analysed) and the reader's chart (`analysis_chart`). (None, None) while the game runs
    (nothing is analysed then) or before the analysis is stored. `states`: as step_analyses."""
    game = seated.game
    if game.status != GameStatus.FINISHED or game.id is None:
        return None, None
    steps = step_analyses(session, game.id, seated.seats, states, reader=seated.seat.position)
    mine = [s for s in steps if s.seat == seated.seat.position]
    names = reader_names(seated.seats)
    return step_analysis(steps, number - 1), present.chart(mine, names[seated.seat.position])
