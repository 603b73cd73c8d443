"""analysis of finished games

analysis_job: one per finished game (queued when it ends, claimed with a lease by one worker);
analysis_move: the expert's judgement of each human move; analysis_preference: an address's
choice of an email when an analysis is ready.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02 07:02:23.557415
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel.sql.sqltypes.AutoString)
from alembic import op


revision: str = '0014'
down_revision: str | Sequence[str] | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('analysis_preference',
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('ready_email', sa.Boolean(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('email')
    )
    op.create_table('analysis_job',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('queued_at', sa.DateTime(), nullable=False),
    sa.Column('ready_by', sa.DateTime(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('claimed_by', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
    sa.Column('claimed_until', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('moves', sa.Integer(), nullable=False),
    sa.Column('stopped_at', sa.Integer(), nullable=True),
    sa.Column('cpu_ms', sa.Float(), nullable=False),
    sa.Column('playouts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', name='uq_analysis_job_game')
    )
    with op.batch_alter_table('analysis_job', schema=None) as batch_op:
        batch_op.create_index('ix_analysis_job_status_queued', ['status', 'queued_at'], unique=False)

    op.create_table('analysis_move',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('step', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('played_json', sa.Text(), nullable=False),
    sa.Column('best_json', sa.Text(), nullable=False),
    sa.Column('played_margin', sa.Float(), nullable=False),
    sa.Column('best_margin', sa.Float(), nullable=False),
    sa.Column('loss', sa.Float(), nullable=False),
    sa.Column('mark', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('samples', sa.Integer(), nullable=False),
    sa.Column('legal', sa.Integer(), nullable=False),
    sa.Column('forced', sa.Boolean(), nullable=False),
    sa.Column('capped', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'step', name='uq_analysis_move_game_step')
    )


def downgrade() -> None:
    op.drop_table('analysis_move')
    with op.batch_alter_table('analysis_job', schema=None) as batch_op:
        batch_op.drop_index('ix_analysis_job_status_queued')

    op.drop_table('analysis_job')
    op.drop_table('analysis_preference')
