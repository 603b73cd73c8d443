"""outbox deferred writer and params

outbox.deferred: the name of the writer (pbem.mail.writers) that writes an email just before
it is sent, NULL for a finished email; outbox.params_json: what that writer needs (a JSON
object). They replace recognising such a row by its placeholder text and keeping its
parameters in X-Korsar-* entries of headers_json.

Data: rows still waiting to be written (pending, or sending under a lease) are recognised the
old way (their kind, their placeholder text) and get their writer and params; the X-Korsar-*
entries leave their headers, so rows queued before this revision still go out, and those
headers never do. The downgrade puts them back for the code before it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 11:52:53.835273
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op


revision: str = '0004'
down_revision: str | Sequence[str] | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The placeholder texts of the code before this revision, frozen here (the code's own may be
# reworded now: nothing recognises a row by its text any more).
_PLACEHOLDERS = {
    'reminder': ("This reminder is written from the game as it stands just before it is sent: "
                 "the player's hand, the table and fresh move links."),
    'turn': ("This turn email is written from the game as it stands just before it is "
             "sent: the player's hand, the table and fresh move links."),
    'timeout_autoplay': ("This email is written just before it is sent: it tells the player which "
                         "move the bot played for them when their deadline passed."),
    'game_over': ("This email is written just before it is sent: the final scores and "
                  "the winners, from the finished game."),
}
_TURN_HEADER = 'X-Korsar-Turn'  # "<version>:<since>"
_AUTOPLAY_HEADER = 'X-Korsar-Autoplay-Move'  # the move in words
_WAITING = ('pending', 'sending')

_outbox = sa.table(
    'outbox', sa.column('id', sa.Integer()), sa.column('kind', sa.String()),
    sa.column('status', sa.String()), sa.column('text_body', sa.Text()),
    sa.column('headers_json', sa.Text()), sa.column('deferred', sa.String()),
    sa.column('params_json', sa.Text()),
)


def _params(kind: str, headers: dict[str, str]) -> dict[str, Any]:
    if kind == 'turn':
        version, _, since = headers.pop(_TURN_HEADER, '').partition(':')
        try:
            return {'version': int(version), 'since': int(since)}
        except ValueError:
            return {}  # no mark: its writer cancels it ("lost its turn mark"), as before
    if kind == 'timeout_autoplay':
        return {'move_text': headers.pop(_AUTOPLAY_HEADER, '')}
    return {}


def upgrade() -> None:
    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.add_column(sa.Column('deferred', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True))
        batch_op.add_column(sa.Column('params_json', sa.Text(), nullable=True))

    connection = op.get_bind()
    for kind, text in _PLACEHOLDERS.items():
        found = connection.execute(
            sa.select(_outbox.c.id, _outbox.c.headers_json).where(
                _outbox.c.kind == kind, _outbox.c.text_body == text, _outbox.c.status.in_(_WAITING))
        ).all()
        updates = []
        for row_id, headers_json in found:
            headers = json.loads(headers_json or '{}')
            params = _params(kind, headers)
            updates.append({'b_id': row_id, 'b_deferred': kind,
                            'b_params': json.dumps(params, sort_keys=True),
                            'b_headers': json.dumps(headers, sort_keys=True)})
        if updates:
            connection.execute(
                _outbox.update().where(_outbox.c.id == sa.bindparam('b_id')).values(
                    deferred=sa.bindparam('b_deferred'), params_json=sa.bindparam('b_params'),
                    headers_json=sa.bindparam('b_headers')), updates)


def downgrade() -> None:
    connection = op.get_bind()
    found = connection.execute(
        sa.select(_outbox.c.id, _outbox.c.kind, _outbox.c.headers_json, _outbox.c.params_json).where(
            _outbox.c.deferred.is_not(None), _outbox.c.status.in_(_WAITING))
    ).all()
    updates = []
    for row_id, kind, headers_json, params_json in found:
        headers, params = json.loads(headers_json or '{}'), json.loads(params_json or '{}')
        if kind == 'turn' and 'version' in params:
            headers[_TURN_HEADER] = f"{params['version']}:{params['since']}"
        elif kind == 'timeout_autoplay':
            headers[_AUTOPLAY_HEADER] = params.get('move_text', '')
        updates.append({'b_id': row_id, 'b_headers': json.dumps(headers, sort_keys=True)})
    if updates:
        connection.execute(
            _outbox.update().where(_outbox.c.id == sa.bindparam('b_id')).values(
                headers_json=sa.bindparam('b_headers')), updates)

    with op.batch_alter_table('outbox', schema=None) as batch_op:
        batch_op.drop_column('params_json')
        batch_op.drop_column('deferred')
