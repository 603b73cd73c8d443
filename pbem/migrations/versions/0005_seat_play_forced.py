"""seat play forced

seat.play_forced: the seat's "play my forced moves for me" preference. When the only legal
move of its turn is a draw (or its only legal move at all), the service plays it at once and
the seat's next email says what was played for it. On by default: existing seats get it too.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:50:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0005'
down_revision: str | Sequence[str] | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('play_forced', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('play_forced')
