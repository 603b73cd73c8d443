"""seat language

seat.language: what the seat's player reads (emails and pages), "en", "fr" or "vi"; every
existing seat keeps English. address_preference: the language an address chose last, keyed by
the lower-case address, so the next game that address joins starts in it.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 14:30:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision: str = '0007'
down_revision: str | Sequence[str] | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8),
                                      server_default='en', nullable=False))
    op.create_table(
        'address_preference',
        sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
        sa.Column('updated_at', sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint('email'),
    )


def downgrade() -> None:
    op.drop_table('address_preference')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('language')
