"""canonical address keys

suppression.key: the mailbox an address on the never-list stands for (lower case, no +tag, no
dots on Gmail's domains: pbem.addresses.canonical_key), indexed; the never-list compares it, so
`hal+korsar@` is refused once `hal@` said never. The address stays as it was stored.

Data: every existing row gets its key, computed here by the rule as this revision defines it
(frozen below: the stored addresses are ASCII, the old check let no other through). rate_event
rows keep the keys they were counted under: they age out of every window within a day.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02 10:00:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision: str = '0009'
down_revision: str | Sequence[str] | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GMAIL_DOMAINS = ('gmail.com', 'googlemail.com')
_suppression = sa.table('suppression', sa.column('email', sa.String()), sa.column('key', sa.String()))


def _key(address: str) -> str:
    """pbem.addresses.canonical_key of a stored (ASCII, lower-case) address, as of 0009."""
    local, at, domain = address.strip().lower().rpartition('@')
    if not at:
        return address.strip().lower()
    local = local.split('+', 1)[0] or local
    if domain in _GMAIL_DOMAINS:
        local, domain = local.replace('.', '') or local, 'gmail.com'
    return f'{local}@{domain}'


def upgrade() -> None:
    with op.batch_alter_table('suppression', schema=None) as batch_op:
        batch_op.add_column(sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True))
    connection = op.get_bind()
    emails = connection.execute(sa.select(_suppression.c.email)).scalars().all()
    if emails:
        connection.execute(_suppression.update().where(_suppression.c.email == sa.bindparam('b_email'))
                           .values(key=sa.bindparam('b_key')),
                           [{'b_email': email, 'b_key': _key(email)} for email in emails])
    with op.batch_alter_table('suppression', schema=None) as batch_op:
        batch_op.alter_column('key', existing_type=sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False)
        batch_op.create_index(batch_op.f('ix_suppression_key'), ['key'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('suppression', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_suppression_key'))
        batch_op.drop_column('key')
