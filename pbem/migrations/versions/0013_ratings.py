"""ratings

rating: each mailbox's (pbem.addresses.canonical_key) openskill rating per mode, with its games
and wins; rated_game: a rated game's line-up (sides, ranks, bots) and whether an admin excluded
it; rating_change: what one game did to one mailbox's rating, unique per (game, mailbox);
leaderboard_entry: the mailboxes that asked to be on the leaderboard, under their chosen name
(one mailbox's, whatever its case: uq_leaderboard_entry_name_lower).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 07:01:26.924449
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes  # noqa: F401  (autogenerate writes sqlmodel.sql.sqltypes.AutoString)
from alembic import op


revision: str = '0013'
down_revision: str | Sequence[str] | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('leaderboard_entry',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('display_name', sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
    sa.Column('joined_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('key')
    )
    op.create_index('uq_leaderboard_entry_name_lower', 'leaderboard_entry', [sa.text('lower(display_name)')],
                    unique=True)
    op.create_table('rating',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('mu', sa.Float(), nullable=False),
    sa.Column('sigma', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('wins', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(), nullable=False),
    sa.PrimaryKeyConstraint('key', 'mode')
    )
    op.create_table('rated_game',
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=False),
    sa.Column('lineup_json', sa.Text(), nullable=False),
    sa.Column('excluded', sa.Boolean(), nullable=False),
    sa.Column('rated_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('game_id')
    )
    op.create_table('rating_change',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('game_id', sa.Integer(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('mode', sqlmodel.sql.sqltypes.AutoString(length=16), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=False),
    sa.Column('won', sa.Boolean(), nullable=False),
    sa.Column('mu_before', sa.Float(), nullable=False),
    sa.Column('sigma_before', sa.Float(), nullable=False),
    sa.Column('mu_after', sa.Float(), nullable=False),
    sa.Column('sigma_after', sa.Float(), nullable=False),
    sa.Column('games_before', sa.Integer(), nullable=False),
    sa.Column('excluded', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.ForeignKeyConstraint(['game_id'], ['game.id'], ),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('game_id', 'key', name='uq_rating_change_game_key')
    )
    with op.batch_alter_table('rating_change', schema=None) as batch_op:
        batch_op.create_index('ix_rating_change_key_mode', ['key', 'mode', 'id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('rating_change', schema=None) as batch_op:
        batch_op.drop_index('ix_rating_change_key_mode')

    op.drop_table('rating_change')
    op.drop_table('rated_game')
    op.drop_table('rating')
    op.drop_index('uq_leaderboard_entry_name_lower', table_name='leaderboard_entry')
    op.drop_table('leaderboard_entry')
