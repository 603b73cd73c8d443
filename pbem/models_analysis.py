"""The tables of the expert's analysis of finished games (beside pbem/models.py): one job per
game, queued when it ends and claimed by one worker (pbem/games/analysis.py), its per-move
results, and an address's choice of an email when an analysis is ready (/me)."""
from __future__ import annotations

from typing import Optional

from pydantic import NaiveDatetime
from sqlalchemy import Column, Index, Text, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.models import utcnow


class AnalysisStatus:
    PENDING = "pending"  # queued when the game ended (or its lease ran out: a worker died)
    RUNNING = "running"  # claimed by `claimed_by` until `claimed_until`
    DONE = "done"  # its moves are stored (`stopped_at`: where the per-game cap stopped it)
    FAILED = "failed"  # the record could not be analysed (`last_error`)


class AnalysisJob(SQLModel, table=True):
    """The analysis of one finished game: queued in the transaction that ends the game, claimed
    with a lease like an outbox row, computed outside any transaction, stored once."""

    __tablename__ = "analysis_job"
    __table_args__ = (
        UniqueConstraint("game_id", name="uq_analysis_job_game"),
        Index("ix_analysis_job_status_queued", "status", "queued_at"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found through uq_analysis_job_game
    status: str = Field(default=AnalysisStatus.PENDING, max_length=16)
    queued_at: NaiveDatetime = Field(default_factory=utcnow)
    # When the game-over email says it will be ready (the queue ahead of it, estimated at queueing).
    ready_by: NaiveDatetime = Field(default_factory=utcnow)
    attempts: int = 0
    claimed_by: Optional[str] = Field(default=None, max_length=64)
    claimed_until: Optional[NaiveDatetime] = None
    finished_at: Optional[NaiveDatetime] = None
    moves: int = 0  # moves analysed
    stopped_at: Optional[int] = None  # the step where the per-game CPU cap stopped it
    cpu_ms: float = 0.0
    playouts: int = 0
    last_error: Optional[str] = Field(default=None, sa_column=Column(Text))


class AnalysisMove(SQLModel, table=True):
    """One analysed move of a human seat: the move played and the expert's best one (move JSON),
    their expected final margins from that seat's view, the gold lost and the mark."""

    __tablename__ = "analysis_move"
    __table_args__ = (UniqueConstraint("game_id", "step", name="uq_analysis_move_game_step"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found through uq_analysis_move_game_step
    step: int  # 0-based index in the move log: the state before it is after `step` moves
    seat: int
    played_json: str = Field(sa_column=Column(Text, nullable=False))
    best_json: str = Field(sa_column=Column(Text, nullable=False))
    played_margin: float
    best_margin: float
    loss: float
    mark: str = Field(max_length=16)  # engine.analysis.MARKS
    samples: int = 0
    legal: int = 0
    forced: bool = False
    capped: bool = False


class AnalysisPreference(SQLModel, table=True):
    """An address's choice on /me: one email "your analysis is ready" after each game (off
    unless chosen)."""

    __tablename__ = "analysis_preference"

    email: str = Field(primary_key=True, max_length=254)  # normalised: lower-case address
    ready_email: bool = False
    updated_at: NaiveDatetime = Field(default_factory=utcnow)
