"""outbox address lower

ix_outbox_to_addr_lower: a bounce report without a token of ours finds the latest email sent to
its failed address (pbem/inbound/bounces.py `_latest_sent`) by index, not by a scan of the outbox.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02 10:35:00
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0015'
down_revision: str | Sequence[str] | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_outbox_to_addr_lower', 'outbox', [sa.text('lower(to_addr)')], unique=False)


def downgrade() -> None:
    op.drop_index('ix_outbox_to_addr_lower', table_name='outbox')
