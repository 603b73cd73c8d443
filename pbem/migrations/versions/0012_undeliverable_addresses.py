"""undeliverable addresses

bounce: one bounce or complaint about a mailbox (pbem/mail/undeliverable.py): its kind
(permanent, temporary, relay, complaint), reason and the outbox row that bounced; the row that
made the mailbox undeliverable carries the mark until the person or an admin clears it.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02 03:47:17.181903
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel.sql.sqltypes.AutoString)
from alembic import op


revision: str = '0012'
down_revision: str | Sequence[str] | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('bounce',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
    sa.Column('outbox_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('undeliverable', sa.Boolean(), nullable=False),
    sa.Column('cleared_at', sa.DateTime(), nullable=True),
    sa.Column('announced_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['outbox_id'], ['outbox.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('bounce', schema=None) as batch_op:
        batch_op.create_index('ix_bounce_key_created', ['key', 'created_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('bounce', schema=None) as batch_op:
        batch_op.drop_index('ix_bounce_key_created')

    op.drop_table('bounce')
