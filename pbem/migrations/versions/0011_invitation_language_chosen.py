"""invitation.language_chosen: whether somebody chose the invitee's language

False when the invitation speaks its creator's language only because nobody chose one for the
invitee: the invitation page then speaks the browser's. Rows made before are taken as chosen
(the server default), as they were read until now.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02 04:00:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0011'
down_revision: str | Sequence[str] | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.add_column(sa.Column('language_chosen', sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.drop_column('language_chosen')
