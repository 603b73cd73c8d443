"""self-service games

proposal and invitation: games players set up at /new (and rematches) until every invited human
accepts; suppression: addresses that asked never to be emailed again; rate_event: counted
actions for the abuse limits; address_preference gains the "my games" preferences (NULL: not
chosen); seat.left_game: the player left, a bot plays the seat and no more mail goes to them.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 16:07:29.134274
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel.sql.sqltypes.AutoString)
from alembic import op


revision: str = '0008'
down_revision: str | Sequence[str] | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('rate_event',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('rate_event', schema=None) as batch_op:
        batch_op.create_index('ix_rate_event_created', ['created_at'], unique=False)
        batch_op.create_index('ix_rate_event_kind_key_created', ['kind', 'key', 'created_at'], unique=False)

    op.create_table('suppression',
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('email')
    )
    op.create_table('proposal',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('creator_email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('creator_position', sa.Integer(), nullable=False),
    sa.Column('nonce', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
    sa.Column('teams', sa.Boolean(), nullable=False),
    sa.Column('options_json', sa.Text(), nullable=False),
    sa.Column('deadline_hours', sa.Float(), nullable=False),
    sa.Column('reminders', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('on_timeout', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('table_talk', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('confirm_by', sa.DateTime(), nullable=False),
    sa.Column('confirmed_at', sa.DateTime(), nullable=True),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=True),
    sa.Column('rematch_of', sa.Integer(), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.ForeignKeyConstraint(['rematch_of'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('proposal', schema=None) as batch_op:
        batch_op.create_index('ix_proposal_creator_email', ['creator_email'], unique=False)
        batch_op.create_index('ix_proposal_status_confirm_by', ['status', 'confirm_by'], unique=False)

    op.create_table('invitation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('proposal_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('email', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('bot', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('nonce', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
    sa.Column('language', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('invited_at', sa.DateTime(), nullable=True),
    sa.Column('expires_at', sa.DateTime(), nullable=True),
    sa.Column('answered_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['proposal_id'], ['proposal.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('proposal_id', 'position', name='uq_invitation_proposal_position')
    )
    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.create_index('ix_invitation_email_created', ['email', 'created_at'], unique=False)
        batch_op.create_index('ix_invitation_status_expires', ['status', 'expires_at'], unique=False)

    with op.batch_alter_table('address_preference', schema=None) as batch_op:
        batch_op.add_column(sa.Column('timezone', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch_op.add_column(sa.Column('reminders', sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column('digest', sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column('play_forced', sa.Boolean(), nullable=True))

    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(sa.Column('left_game', sa.Boolean(), server_default='0', nullable=False))
    op.create_index('ix_seat_email_lower', 'seat', [sa.text('lower(email)')], unique=False)



def downgrade() -> None:
    op.drop_index('ix_seat_email_lower', table_name='seat')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('left_game')

    with op.batch_alter_table('address_preference', schema=None) as batch_op:
        batch_op.drop_column('play_forced')
        batch_op.drop_column('digest')
        batch_op.drop_column('reminders')
        batch_op.drop_column('timezone')

    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.drop_index('ix_invitation_status_expires')
        batch_op.drop_index('ix_invitation_email_created')

    op.drop_table('invitation')
    with op.batch_alter_table('proposal', schema=None) as batch_op:
        batch_op.drop_index('ix_proposal_status_confirm_by')
        batch_op.drop_index('ix_proposal_creator_email')

    op.drop_table('proposal')
    op.drop_table('suppression')
    with op.batch_alter_table('rate_event', schema=None) as batch_op:
        batch_op.drop_index('ix_rate_event_kind_key_created')
        batch_op.drop_index('ix_rate_event_created')

    op.drop_table('rate_event')
