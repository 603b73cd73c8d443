"""Keep no longer than needed (issue 27): the worker's `retention` job forgets, on a schedule,
what we no longer need about people (docs/privacy.md lists what we store and for how long):

- a received email's sender and Message-ID after RETENTION_INBOUND_DAYS: its outcome row stays
  (when, which game, played or refused), so the figures do; no raw email is stored at all;
- a sent email's bodies (text, HTML, headers with their links, a deferred writer's params) after
  RETENTION_OUTBOX_BODY_DAYS: its date, kind, subject, recipient and status stay (what the
  person's data export lists); a "my games" link email's as soon as its link expires
  (`links.MY_GAMES_MAX_AGE`: the /me tokens are signed, not stored, so that email is the one
  place one lives);
- rate events once past their limit's window (`pbem/games/limits.py`);
- admin login attempts after RETENTION_LOGIN_ATTEMPT_DAYS;
- expired or cancelled game proposals, with their invitations, RETENTION_PROPOSAL_DAYS after
  they ended;
- audit entries after RETENTION_AUDIT_DAYS.

A setting of 0 keeps that kind forever. Rows go in windows of BATCH_SIZE primary keys, one short
transaction each, so a busy database (SQLite's one writer, PostgreSQL's row locks) is never held
long; each statement checks its condition again, so two workers at once do no harm. A run stops
starting batches after `budget_seconds`; the rest is due at the next run."""
from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, or_, update
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from pbem import links
from pbem.config import Config
from pbem.db import read_scope, session_scope
from pbem.games import limits, unasked_mail
from pbem.letters.invitations import MY_GAMES_KIND
from pbem.models import (AuditLog, InboundMail, Invitation, LoginAttempt, OutboxMessage, OutboxStatus, Proposal,
                         ProposalStatus, RateEvent, utcnow)

BATCH_SIZE = 1000
DONE = (OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.CANCELLED)  # never a row still to send
FORGOTTEN_MESSAGE_ID = "forgotten:"  # what a forgotten Message-ID becomes (forgotten_message_id)
# Every limit counted in rate_event: each kind's events go once past its window (the longest
# window for a kind nobody declares any more).
LIMITS = (limits.GAMES_PER_CREATOR, limits.INVITATIONS_PER_CREATOR, limits.INVITATIONS_PER_ADDRESS,
          limits.CONFIRMATIONS_PER_ADDRESS, limits.LINKS_PER_ADDRESS, limits.LINKS_PER_IP,
          unasked_mail.UNASKED, unasked_mail.UNASKED_KNOWN, unasked_mail.INVITATIONS_PER_PAIR)


@dataclass(frozen=True)
class Rule:
    """One kind of row that ages out: which rows are due, and what becomes of them."""

    name: str  # the count's name in the job's log line
    table: Any  # the SQLModel class (its `id` is the primary key batches go by)
    due: ColumnElement[bool]  # which rows are due now
    act: Callable[[Any, list[int]], None]  # (session, ids): forget them


def rules(cfg: Config, now: datetime) -> list[Rule]:
    """What is due at `now` under `cfg`'s settings, in the order the job forgets it."""
    found: list[Rule] = []

    def older(days: float) -> datetime | None:
        return now - timedelta(days=days) if days > 0 else None

    if (before := older(cfg.RETENTION_INBOUND_DAYS)) is not None:
        found.append(Rule("inbound_mail", InboundMail, and_(col(InboundMail.received_at) < before,
                                                            col(InboundMail.from_addr) != ""), _forget_sender(cfg)))
    bodies = [col(OutboxMessage.text_body) != "", col(OutboxMessage.html_body) != "",
              col(OutboxMessage.headers_json) != "{}", col(OutboxMessage.params_json).is_not(None)]
    done_with_body = and_(_unindexed(OutboxMessage.status).in_(DONE), or_(*bodies))
    if (before := older(cfg.RETENTION_OUTBOX_BODY_DAYS)) is not None:
        found.append(Rule("outbox_bodies", OutboxMessage,
                          and_(col(OutboxMessage.created_at) < before, done_with_body), _blank_bodies))
    link_dead = now - timedelta(seconds=links.MY_GAMES_MAX_AGE)
    found.append(Rule("my_games_links", OutboxMessage, and_(
        col(OutboxMessage.kind) == MY_GAMES_KIND, col(OutboxMessage.created_at) < link_dead, done_with_body),
        _blank_bodies))
    found.append(Rule("rate_events", RateEvent, _past_windows(now), _delete(RateEvent)))
    if (before := older(cfg.RETENTION_LOGIN_ATTEMPT_DAYS)) is not None:
        found.append(Rule("login_attempts", LoginAttempt, col(LoginAttempt.created_at) < before,
                          _delete(LoginAttempt)))
    if (before := older(cfg.RETENTION_PROPOSAL_DAYS)) is not None:
        found.append(Rule("proposals", Proposal, and_(
            _unindexed(Proposal.status).in_((ProposalStatus.EXPIRED, ProposalStatus.CANCELLED)),
            col(Proposal.updated_at) < before), _delete_proposals))
    if (before := older(cfg.RETENTION_AUDIT_DAYS)) is not None:
        found.append(Rule("audit_entries", AuditLog, col(AuditLog.created_at) < before, _delete(AuditLog)))
    return found


def _unindexed(column: Any) -> ColumnElement[str]:
    """`column` as an expression no index serves (`status || ''`): SQLite's planner, which keeps no
    statistics, would otherwise walk the whole index of a status for every window of primary keys
    (a million sent emails each time) instead of the window itself."""
    return col(column).concat("")


def _past_windows(now: datetime) -> ColumnElement[bool]:
    windows: dict[str, timedelta] = {}
    for limit in LIMITS:
        windows[limit.kind] = max(windows.get(limit.kind, limit.window), limit.window)
    longest = max(windows.values())
    return or_(*(and_(col(RateEvent.kind) == kind, col(RateEvent.created_at) < now - window)
                 for kind, window in sorted(windows.items())),
               and_(col(RateEvent.kind).not_in(sorted(windows)), col(RateEvent.created_at) < now - longest))


def _forget_sender(cfg: Config) -> Callable[[Any, list[int]], None]:
    """The outcome row stays; who sent it and its Message-ID go. The column is unique and
    required: it becomes `forgotten:<a keyed digest of the row id>`, which no sender can write
    in a Message-ID of theirs to make this update fail."""
    def act(session: Any, ids: list[int]) -> None:
        session.execute(update(InboundMail), [  # by primary key, one executemany
            {"id": row_id, "from_addr": "", "message_id": forgotten_message_id(cfg, row_id)} for row_id in ids])
    return act


def forgotten_message_id(cfg: Config, row_id: int) -> str:
    digest = hmac.new(cfg.SECRET_KEY.encode(), f"korsar.forgotten|{row_id}".encode(), hashlib.sha256).hexdigest()
    return f"{FORGOTTEN_MESSAGE_ID}{digest[:40]}"


def _blank_bodies(session: Any, ids: list[int]) -> None:
    session.execute(update(OutboxMessage).where(col(OutboxMessage.id).in_(ids)).values(
        text_body="", html_body="", headers_json="{}", params_json=None))


def _delete(table: Any) -> Callable[[Any, list[int]], None]:
    def act(session: Any, ids: list[int]) -> None:
        session.execute(delete(table).where(col(table.id).in_(ids)))
    return act


def _delete_proposals(session: Any, ids: list[int]) -> None:
    session.execute(delete(Invitation).where(col(Invitation.proposal_id).in_(ids)))
    session.execute(delete(Proposal).where(col(Proposal.id).in_(ids)))


def forget_due(engine: Engine, cfg: Config, now: datetime | None = None, *, batch_size: int = BATCH_SIZE,
               budget_seconds: float | None = None) -> dict[str, int]:
    """Forget every row due at `now` (see the module docstring); how many rows of each rule.
    Each batch is a window of `batch_size` primary keys from the next due row, in its own write
    transaction; the walk of the primary key to that row is a read that blocks no writer (a run
    with nothing due reads each table once).
    With `budget_seconds`, no batch starts after that long."""
    now = now or utcnow()
    started = time.monotonic()
    counts: dict[str, int] = {}
    for rule in rules(cfg, now):
        key = col(rule.table.id)
        after = 0
        while budget_seconds is None or time.monotonic() - started < budget_seconds:
            with read_scope(engine) as session:  # the walk to the next due row holds no write lock
                first = session.exec(select(func.min(key)).where(key > after, rule.due)).one()
            if first is None:
                break
            after = first - 1 + batch_size
            with session_scope(engine) as session:
                # A row another worker holds is skipped (PostgreSQL): it is due again next run.
                ids = list(session.exec(select(key).where(key >= first, key <= after, rule.due)
                                        .order_by(key).with_for_update(skip_locked=True)).all())
                if ids:
                    rule.act(session, ids)
            counts[rule.name] = counts.get(rule.name, 0) + len(ids)
    return {name: n for name, n in counts.items() if n}
