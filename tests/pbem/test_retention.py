"""Keep no longer than needed (issue 27): the worker's retention job forgets exactly what is due
and nothing else, table by table, in batches by primary key (SQLite here, PostgreSQL with
`-m db --db postgresql`): a received email's sender after 30 days (its outcome row stays), sent
emails' bodies after 90 days (date, kind, subject, status stay), a "my games" link email's body
once its link expired, rate events past their window, login attempts after 90 days, expired or
cancelled proposals with their invitations after 30 days, audit entries after a year."""
from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from game_helpers import make_cfg
from sqlmodel import select

from pbem.db import session_scope
from pbem.games import limits, retention
from pbem.games.unasked_mail import INVITATIONS_PER_PAIR
from pbem.models import (AuditLog, InboundMail, Invitation, InvitationStatus, LoginAttempt, OutboxMessage,
                         OutboxStatus, Proposal, ProposalStatus, RateEvent)
from pbem.worker import JOBS, run_job

NOW = datetime(2027, 6, 1, 12, 0, 0)
DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


@pytest.fixture
def cfg(database_url):
    return make_cfg(database_url)


def add(engine, *rows) -> list[int]:
    with session_scope(engine) as session:
        session.add_all(rows)
        session.flush()
        return [row.id for row in rows]


def every(engine, table) -> list:
    with session_scope(engine) as session:
        return list(session.exec(select(table).order_by(table.id)).all())


def email(n: int, created: datetime, *, kind: str = "turn", status: str = OutboxStatus.SENT) -> OutboxMessage:
    return OutboxMessage(kind=kind, to_addr=f"p{n}@example.com", subject=f"Subject {n}", text_body=f"text {n}",
                         html_body=f"<p>html {n}</p>", headers_json='{"List-Unsubscribe": "<x>"}',
                         params_json='{"seat": 1}' if n % 2 else None, message_id=f"<{n}@korsar.test>",
                         status=status, created_at=created, next_attempt_at=created,
                         sent_at=created if status == OutboxStatus.SENT else None)


def blank(row: OutboxMessage) -> bool:
    return (row.text_body, row.html_body, row.headers_json, row.params_json) == ("", "", "{}", None)


def test_a_received_email_forgets_its_sender_after_30_days_and_keeps_its_outcome(engine, cfg):
    due, kept = add(engine, InboundMail(message_id="<old@x>", from_addr="ann@example.com", outcome="played",
                                        received_at=NOW - 30 * DAY - SECOND),
                    InboundMail(message_id="<new@x>", from_addr="bob@example.com", outcome="refused",
                                received_at=NOW - 30 * DAY + SECOND))
    assert retention.forget_due(engine, cfg, NOW) == {"inbound_mail": 1}
    old, new = every(engine, InboundMail)
    assert (old.id, old.from_addr, old.message_id, old.outcome, old.received_at) == (
        due, "", retention.forgotten_message_id(cfg, due), "played", NOW - 30 * DAY - SECOND)
    assert (new.id, new.from_addr, new.message_id) == (kept, "bob@example.com", "<new@x>")
    assert retention.forget_due(engine, cfg, NOW) == {}  # forgotten once


def test_a_sender_cannot_write_a_message_id_that_stops_the_forgetting(engine, cfg):
    """The forgotten form is keyed: a sender who writes `forgotten:<anything>` cannot take it."""
    due, = add(engine, InboundMail(message_id="<old@x>", from_addr="ann@example.com", received_at=NOW - 40 * DAY))
    add(engine, *(InboundMail(message_id=f"forgotten:{guess}", from_addr="eve@example.com", received_at=NOW)
                  for guess in (due, str(due).zfill(40))))
    assert retention.forget_due(engine, cfg, NOW) == {"inbound_mail": 1}


def test_sent_emails_lose_their_bodies_after_90_days_and_keep_date_kind_subject_and_status(engine, cfg):
    old = NOW - 90 * DAY - SECOND
    ids = add(engine, email(1, old), email(2, old, status=OutboxStatus.FAILED),
              email(3, old, status=OutboxStatus.CANCELLED), email(4, NOW - 90 * DAY + SECOND),
              email(5, old, status=OutboxStatus.PENDING), email(6, old, status=OutboxStatus.SENDING))
    assert retention.forget_due(engine, cfg, NOW) == {"outbox_bodies": 3}
    rows = {row.id: row for row in every(engine, OutboxMessage)}
    assert [blank(rows[i]) for i in ids] == [True, True, True, False, False, False]
    assert [(rows[i].kind, rows[i].subject, rows[i].to_addr, rows[i].created_at) for i in ids[:1]] == [
        ("turn", "Subject 1", "p1@example.com", old)]
    assert [rows[i].status for i in ids[:3]] == [OutboxStatus.SENT, OutboxStatus.FAILED, OutboxStatus.CANCELLED]


def test_a_my_games_link_email_loses_its_body_when_its_link_expires(engine, cfg):
    """The /me tokens are signed, not stored: the email that carried one is where it lives."""
    expired, alive, other = add(engine, email(1, NOW - 7 * DAY - SECOND, kind="my_games_link"),
                                email(2, NOW - 7 * DAY + SECOND, kind="my_games_link"),
                                email(3, NOW - 8 * DAY, kind="turn"))
    assert retention.forget_due(engine, cfg, NOW) == {"my_games_links": 1}
    rows = {row.id: row for row in every(engine, OutboxMessage)}
    assert (blank(rows[expired]), blank(rows[alive]), blank(rows[other])) == (True, False, False)


def test_rate_events_go_once_past_their_limits_window(engine, cfg):
    hour, day = limits.LINKS_PER_ADDRESS, INVITATIONS_PER_PAIR
    rows = add(engine, RateEvent(kind=hour.kind, key="a", created_at=NOW - hour.window - SECOND),
               RateEvent(kind=hour.kind, key="a", created_at=NOW - hour.window + SECOND),
               RateEvent(kind=day.kind, key="b", created_at=NOW - hour.window - SECOND),  # within its day
               RateEvent(kind=day.kind, key="b", created_at=NOW - day.window - SECOND),
               RateEvent(kind="gone_kind", key="c", created_at=NOW - 2 * DAY),
               RateEvent(kind="gone_kind", key="c", created_at=NOW - hour.window - SECOND))
    assert retention.forget_due(engine, cfg, NOW) == {"rate_events": 3}
    assert [row.id for row in every(engine, RateEvent)] == [rows[1], rows[2], rows[5]]


def test_login_attempts_go_after_90_days(engine, cfg):
    rows = add(engine, LoginAttempt(email="admin@x", ip="1.2.3.4", created_at=NOW - 90 * DAY - SECOND),
               LoginAttempt(email="admin@x", ip="1.2.3.4", success=True, created_at=NOW - 90 * DAY + SECOND))
    assert retention.forget_due(engine, cfg, NOW) == {"login_attempts": 1}
    assert [row.id for row in every(engine, LoginAttempt)] == rows[1:]


def proposal(status: str, ended: datetime) -> Proposal:
    return Proposal(status=status, creator_email="ann@example.com", nonce="n", confirm_by=ended, created_at=ended,
                    updated_at=ended)


def test_expired_or_cancelled_proposals_go_with_their_invitations_after_30_days(engine, cfg):
    old, recent = NOW - 30 * DAY - SECOND, NOW - 30 * DAY + SECOND
    statuses = [(ProposalStatus.EXPIRED, old), (ProposalStatus.CANCELLED, old), (ProposalStatus.CANCELLED, recent),
                (ProposalStatus.INVITING, old), (ProposalStatus.UNCONFIRMED, old), (ProposalStatus.STARTED, old)]
    ids = add(engine, *(proposal(status, ended) for status, ended in statuses))
    add(engine, *(Invitation(proposal_id=pid, position=pos, name=f"P{pos}", email=f"p{pos}@example.com",
                             nonce="n", status=InvitationStatus.EXPIRED, created_at=old)
                  for pid in ids for pos in (0, 1)))
    assert retention.forget_due(engine, cfg, NOW) == {"proposals": 2}
    assert [row.id for row in every(engine, Proposal)] == ids[2:]
    assert sorted({row.proposal_id for row in every(engine, Invitation)}) == ids[2:]


def test_audit_entries_go_after_a_year(engine, cfg):
    rows = add(engine, AuditLog(actor="cli", action="pause", created_at=NOW - 365 * DAY - SECOND),
               AuditLog(actor="cli", action="resume", created_at=NOW - 365 * DAY + SECOND))
    assert retention.forget_due(engine, cfg, NOW) == {"audit_entries": 1}
    assert [row.id for row in every(engine, AuditLog)] == rows[1:]


def test_every_period_is_a_setting_and_0_keeps_forever(engine, cfg):
    add(engine, AuditLog(actor="cli", action="pause", created_at=NOW - 40 * DAY),
        LoginAttempt(email="admin@x", ip="1.2.3.4", created_at=NOW - 40 * DAY),
        email(1, NOW - 40 * DAY),
        InboundMail(message_id="<old@x>", from_addr="ann@example.com", received_at=NOW - 40 * DAY))
    cfg.RETENTION_AUDIT_DAYS, cfg.RETENTION_LOGIN_ATTEMPT_DAYS, cfg.RETENTION_OUTBOX_BODY_DAYS = 30, 30, 30
    cfg.RETENTION_INBOUND_DAYS = 0
    assert retention.forget_due(engine, cfg, NOW) == {"audit_entries": 1, "login_attempts": 1, "outbox_bodies": 1}


def test_many_rows_go_in_batches_by_primary_key_and_nothing_else_is_touched(engine, cfg):
    old, recent = NOW - 91 * DAY, NOW - 89 * DAY
    rows = [email(n, old if n % 3 else recent) for n in range(1, 26)]
    ids = add(engine, *rows)
    statements: list[str] = []
    from sqlalchemy import event

    def count(conn, cursor, statement, *args) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("UPDATE"):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", count)
    try:
        assert retention.forget_due(engine, cfg, NOW, batch_size=4) == {"outbox_bodies": 17}
    finally:
        event.remove(engine, "before_cursor_execute", count)
    # windows of 4 ids from each next due row (every third row is not due): 6 batches, one transaction each
    assert len(statements) == 6
    stored = {row.id: row for row in every(engine, OutboxMessage)}
    assert [blank(stored[i]) for i in ids] == [bool(n % 3) for n in range(1, 26)]


def test_a_run_with_a_budget_stops_starting_batches_and_the_next_run_goes_on(engine, cfg):
    add(engine, *(email(n, NOW - 100 * DAY) for n in range(10)))
    assert retention.forget_due(engine, cfg, NOW, batch_size=3, budget_seconds=0) == {}
    assert retention.forget_due(engine, cfg, NOW, batch_size=3) == {"outbox_bodies": 10}


def test_the_worker_runs_retention_as_one_of_its_jobs(engine, cfg):
    assert "retention" in JOBS
    add(engine, AuditLog(actor="cli", action="pause", created_at=NOW - 400 * DAY))
    assert run_job("retention", engine, cfg, NOW) == {"job": "retention", "audit_entries": 1}
    assert run_job("retention", engine, cfg, NOW) == {"job": "retention"}


def test_the_periodic_worker_runs_retention_every_retention_every_minutes_with_a_budget(app, monkeypatch):
    import pbem.worker as worker

    jobs: dict[str, dict] = {}

    class Scheduler:  # records what the worker schedules; starts nothing
        def __init__(self, **_settings) -> None:
            pass

        def add_job(self, func, trigger, **job) -> None:  # type: ignore[no-untyped-def]
            jobs[job["id"]] = job

        def start(self) -> None:
            pass

    monkeypatch.setattr("apscheduler.schedulers.blocking.BlockingScheduler", Scheduler)
    for quiet in ("configure_logging", "tune_gc", "log_event"):
        monkeypatch.setattr(worker, quiet, lambda *a, **k: None)
    monkeypatch.setattr(worker.signal, "signal", lambda *a: None)
    app.config["KORSAR"].RETENTION_EVERY_MINUTES = 30
    assert worker.run_worker(app)
    assert jobs["retention"]["seconds"] == 1800
    assert jobs["deliver"]["seconds"] == app.config["KORSAR"].WORKER_POLL_SECONDS
    budgets: list[float | None] = []
    monkeypatch.setattr(worker, "forget_due", lambda *a, budget_seconds=None, **k: budgets.append(budget_seconds) or {})
    worker.run_job("retention", app.extensions["korsar_db"], app.config["KORSAR"], sweep_budget=0.4)
    worker.run_job("retention", app.extensions["korsar_db"], app.config["KORSAR"])
    assert budgets == [worker.RETENTION_BUDGET_SECONDS, None]
