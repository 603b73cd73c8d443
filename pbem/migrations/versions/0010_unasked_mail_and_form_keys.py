"""mail an address did not ask for, one proposal per form, addresses the creator typed

address_standing: per mailbox (pbem.addresses.canonical_key), whether it ever answered us
(confirmed a game or accepted an invitation: its daily budget of mail it did not ask for grows)
and whether it said "I did not ask for this" (nobody's request mails it). proposal.form_key:
unique, one proposal per /new form however fast it is sent again. invitation.creator_typed: the
creator typed the address, so the creator's page may show it back (a rematch's it did not).

Data: the rows of rematches are marked not typed; every mailbox that confirmed a game or
accepted an invitation before gets its answered_at, its key computed here by the rule as 0009
froze it.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02 14:00:00.000000
"""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision: str = '0010'
down_revision: str | Sequence[str] | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_GMAIL_DOMAINS = ('gmail.com', 'googlemail.com')
_proposal = sa.table('proposal', sa.column('id', sa.Integer()), sa.column('creator_email', sa.String()),
                     sa.column('creator_position', sa.Integer()), sa.column('confirmed_at', sa.DateTime()),
                     sa.column('rematch_of', sa.Integer()))
_invitation = sa.table('invitation', sa.column('proposal_id', sa.Integer()), sa.column('position', sa.Integer()),
                       sa.column('email', sa.String()), sa.column('kind', sa.String()),
                       sa.column('status', sa.String()), sa.column('invited_at', sa.DateTime()),
                       sa.column('answered_at', sa.DateTime()), sa.column('creator_typed', sa.Boolean()))
_standing = sa.table('address_standing', sa.column('key', sa.String()), sa.column('answered_at', sa.DateTime()),
                     sa.column('blocked_at', sa.DateTime()))


def _key(address: str) -> str:
    """pbem.addresses.canonical_key of a stored (ASCII) address, as of 0009."""
    local, at, domain = address.strip().lower().rpartition('@')
    if not at:
        return address.strip().lower()
    local = local.split('+', 1)[0] or local
    if domain in _GMAIL_DOMAINS:
        local, domain = local.replace('.', '') or local, 'gmail.com'
    return f'{local}@{domain}'


def upgrade() -> None:
    op.create_table('address_standing',
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(length=254), nullable=False),
    sa.Column('answered_at', sa.DateTime(), nullable=True),
    sa.Column('blocked_at', sa.DateTime(), nullable=True),
    sa.PrimaryKeyConstraint('key')
    )
    with op.batch_alter_table('proposal', schema=None) as batch_op:
        batch_op.add_column(sa.Column('form_key', sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True))
        batch_op.create_unique_constraint('uq_proposal_form_key', ['form_key'])
    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.add_column(sa.Column('creator_typed', sa.Boolean(), server_default=sa.true(), nullable=False))

    connection = op.get_bind()
    rematches = sa.select(_proposal.c.id).where(_proposal.c.rematch_of.is_not(None))
    connection.execute(_invitation.update().where(_invitation.c.proposal_id.in_(rematches))
                       .values(creator_typed=False))
    answered: dict[str, datetime] = {}
    confirmed = connection.execute(sa.select(_proposal.c.creator_email, _proposal.c.confirmed_at).where(
        _proposal.c.confirmed_at.is_not(None), _proposal.c.creator_position >= 0,
        _proposal.c.rematch_of.is_(None))).all()
    accepted = connection.execute(sa.select(_invitation.c.email, _invitation.c.answered_at)
                                  .join(_proposal, _proposal.c.id == _invitation.c.proposal_id).where(
        _invitation.c.status == 'accepted', _invitation.c.kind == 'human', _invitation.c.email.is_not(None),
        _invitation.c.invited_at.is_not(None), _invitation.c.position != _proposal.c.creator_position)).all()
    for email, when in [*confirmed, *accepted]:
        key = _key(email)
        if when is not None and (key not in answered or when < answered[key]):
            answered[key] = when
    if answered:
        connection.execute(_standing.insert(), [{'key': key, 'answered_at': when, 'blocked_at': None}
                                                for key, when in sorted(answered.items())])


def downgrade() -> None:
    with op.batch_alter_table('invitation', schema=None) as batch_op:
        batch_op.drop_column('creator_typed')
    with op.batch_alter_table('proposal', schema=None) as batch_op:
        batch_op.drop_constraint('uq_proposal_form_key', type_='unique')
        batch_op.drop_column('form_key')
    op.drop_table('address_standing')
