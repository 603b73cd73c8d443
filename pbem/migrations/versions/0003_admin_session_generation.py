"""admin session generation

admin_user.session_generation: stored in the session cookie at login and compared on every
admin request; logout and a new password increment it, which ends every session of that admin
(copied cookies too). Existing rows start at 0; sessions opened before this revision carry no
generation and are refused once (the admin logs in again).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 10:24:18.906341
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0003'
down_revision: str | Sequence[str] | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('admin_user', schema=None) as batch_op:
        batch_op.add_column(sa.Column('session_generation', sa.Integer(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('admin_user', schema=None) as batch_op:
        batch_op.drop_column('session_generation')
