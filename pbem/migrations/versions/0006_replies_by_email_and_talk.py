"""replies by email and talk

inbound_mail: every email received by the SMTP receiver or the IMAP poller (pbem/inbound), its
Message-ID unique (a second delivery of the same message acts not) and its sender, counted per
hour to rate-limit floods. talk: a player's words to their partner, or to the table where the
game allows it (game.table_talk, off for every existing game).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 14:00:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision: str = '0006'
down_revision: str | Sequence[str] | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'inbound_mail',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('message_id', sqlmodel.sql.sqltypes.AutoString(length=255), nullable=False),
        sa.Column('from_addr', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=True),
        sa.Column('outcome', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column('received_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('message_id'),
    )
    op.create_index('ix_inbound_mail_from_received', 'inbound_mail', ['from_addr', 'received_at'], unique=False)
    op.create_table(
        'talk',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('game_id', sa.Integer(), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('to_team', sa.Integer(), nullable=True),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('delivered_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['game_id'], ['game.id']),
        sa.PrimaryKeyConstraint('id'),
    )
    op.create_index('ix_talk_game_created', 'talk', ['game_id', 'created_at'], unique=False)
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.add_column(sa.Column('table_talk', sa.Boolean(), server_default='0', nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('game', schema=None) as batch_op:
        batch_op.drop_column('table_talk')
    op.drop_index('ix_talk_game_created', table_name='talk')
    op.drop_table('talk')
    op.drop_index('ix_inbound_mail_from_received', table_name='inbound_mail')
    op.drop_table('inbound_mail')
