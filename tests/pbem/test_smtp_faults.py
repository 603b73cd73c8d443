"""SMTP faults against real servers on 127.0.0.1: outages, slowness, 4xx, 5xx, hang-ups,
and two workers at once. Time moves by passing `now`, never by sleeping."""
from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from smtp_fakes import RawSmtp, ScriptedSmtp, free_port, mail_config, queue_emails
from game_helpers import outbox

from pbem.mail.delivery import RetryPolicy, deliver_due
from pbem.models import OutboxStatus

T0 = datetime(2026, 5, 1, 12, 0, 0)
LATER = T0 + timedelta(hours=2)  # past any backoff (capped at one hour)


@pytest.fixture
def server():
    server = ScriptedSmtp().start()
    yield server
    server.stop()


def statuses(engine) -> list[str]:
    return [row.status for row in outbox(engine)]


def test_server_down_then_up_delivers_every_email_exactly_once(engine, database_url):
    port = free_port()  # nothing listens here yet
    ids = queue_emails(engine, 5, created_at=T0)
    cfg = mail_config(database_url, port)

    down = deliver_due(engine, cfg, now=T0)

    assert (down.sent, down.deferred) == (0, 5)
    rows = outbox(engine)
    assert all(r.status == OutboxStatus.PENDING and r.attempts == 0 for r in rows)  # an outage is not the mail's fault
    assert all(r.next_attempt_at > T0 and "unavailable" in r.last_error for r in rows)
    assert deliver_due(engine, cfg, now=T0 + timedelta(seconds=1)).claimed == 0  # no hammering

    server = ScriptedSmtp(port=port).start()
    try:
        up = deliver_due(engine, cfg, now=LATER)
        again = deliver_due(engine, cfg, now=LATER + timedelta(hours=2))
    finally:
        server.stop()
    assert up.sent == 5 and again.claimed == 0
    assert sorted(server.message_ids().values()) == [1] * 5
    assert len(server.message_ids()) == len(ids)


def test_a_slow_server_times_out_and_the_email_is_retried_later(engine, database_url, server):
    server.stall_on, server.stall_seconds = (lambda msg: True), 5
    queue_emails(engine, 1, created_at=T0)
    cfg = mail_config(database_url, server.port, SMTP_TIMEOUT=0.3)

    slow = deliver_due(engine, cfg, now=T0)

    assert slow.retried == 1 and server.stalled.is_set()
    [row] = outbox(engine)
    assert row.status == OutboxStatus.PENDING and row.attempts == 1 and "timed out" in row.last_error
    assert T0 + timedelta(seconds=45) <= row.next_attempt_at <= T0 + timedelta(seconds=75)
    server.stall_on = lambda msg: False
    server.release.set()
    assert deliver_due(engine, cfg, now=LATER).sent == 1
    assert len(server.messages) == 1


def test_a_server_that_never_greets_defers_the_batch_without_counting_attempts(engine, database_url):
    silent = RawSmtp("silent").start()
    try:
        queue_emails(engine, 3, created_at=T0)
        report = deliver_due(engine, mail_config(database_url, silent.port, SMTP_TIMEOUT=0.3), now=T0)
    finally:
        silent.stop()
    assert (report.deferred, report.retried) == (3, 0) and silent.connections == 1
    assert [r.attempts for r in outbox(engine)] == [0, 0, 0]


@pytest.mark.parametrize("where", ["rcpt", "data"])
def test_4xx_replies_are_retried_with_growing_backoff_then_delivered(engine, database_url, server, where):
    busy = "451 4.3.0 Mailbox busy, try later"
    if where == "rcpt":
        server.rcpt_reply["player0@example.test"] = busy
    else:
        server.data_reply = lambda msg: busy
    queue_emails(engine, 1, created_at=T0)
    cfg = mail_config(database_url, server.port)

    first = deliver_due(engine, cfg, now=T0)
    [row1] = outbox(engine)
    assert deliver_due(engine, cfg, now=T0 + timedelta(seconds=40)).claimed == 0  # still backing off
    second = deliver_due(engine, cfg, now=row1.next_attempt_at)
    [row2] = outbox(engine)

    assert first.retried == second.retried == 1
    assert "451 4.3.0 Mailbox busy" in row1.last_error
    assert (row1.attempts, row2.attempts) == (1, 2)
    assert row2.next_attempt_at - row1.next_attempt_at >= timedelta(seconds=90)  # doubled
    server.rcpt_reply.clear()
    server.data_reply = lambda msg: None
    assert deliver_due(engine, cfg, now=LATER).sent == 1 and len(server.messages) == 1


def test_5xx_marks_the_email_failed_with_the_reason_and_the_others_are_sent(engine, database_url, server):
    server.rcpt_reply["player1@example.test"] = "550 5.1.1 No such user here"
    server.data_reply = lambda msg: "554 5.7.1 Looks like spam" if msg["Subject"] == "Mail 3" else None
    queue_emails(engine, 5, created_at=T0)

    report = deliver_due(engine, mail_config(database_url, server.port), now=T0)

    assert (report.sent, report.failed, report.retried) == (3, 2, 0)
    assert sorted(server.subjects()) == ["Mail 0", "Mail 2", "Mail 4"]
    assert server.connections == 1  # a refusal does not cost the connection
    rows = outbox(engine)
    assert statuses(engine) == ["sent", "failed", "sent", "failed", "sent"]
    assert "550 5.1.1 No such user here" in rows[1].last_error
    assert "554 5.7.1 Looks like spam" in rows[3].last_error
    assert deliver_due(engine, mail_config(database_url, server.port), now=LATER).claimed == 0


def test_a_connection_dropped_after_data_is_retried_counted_and_reconnected_once(engine, database_url):
    dropper = RawSmtp("drop_after_data").start()
    try:
        queue_emails(engine, 3, created_at=T0)
        report = deliver_due(engine, mail_config(database_url, dropper.port), now=T0)
    finally:
        dropper.stop()
    assert (report.retried, report.deferred) == (2, 1)
    assert (dropper.connections, dropper.data_received) == (2, 2)  # one reconnect, then the batch is released
    rows = outbox(engine)
    assert [r.attempts for r in rows] == [1, 1, 0]
    assert all("connection" in r.last_error.lower() for r in rows)

    server = ScriptedSmtp().start()
    try:
        assert deliver_due(engine, mail_config(database_url, server.port), now=LATER).sent == 3
    finally:
        server.stop()
    assert sorted(server.message_ids().values()) == [1, 1, 1]


def test_an_email_is_given_up_after_the_maximum_number_of_attempts(engine, database_url, server):
    server.data_reply = lambda msg: "421 4.7.0 Try again later"
    queue_emails(engine, 1, created_at=T0)
    cfg, policy = mail_config(database_url, server.port), RetryPolicy(max_attempts=3)

    reports = [deliver_due(engine, cfg, now=T0 + timedelta(hours=2 * i), policy=policy) for i in range(4)]

    assert [(r.retried, r.failed) for r in reports] == [(1, 0), (1, 0), (0, 1), (0, 0)]
    [row] = outbox(engine)
    assert row.status == OutboxStatus.FAILED and row.attempts == 3
    assert "gave up after 3 attempts" in row.last_error and "421" in row.last_error


def test_two_workers_at_once_never_send_one_email_twice(engine, database_url, server):
    ids = queue_emails(engine, 60)
    cfg = mail_config(database_url, server.port)
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            idle = 0
            while idle < 2:
                idle = idle + 1 if deliver_due(engine, cfg, worker_id=name, batch_size=4).claimed == 0 else 0
        except BaseException as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(f"worker-{i}",)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)

    assert errors == []
    counts = server.message_ids()
    assert len(counts) == len(ids) and set(counts.values()) == {1}
    assert set(statuses(engine)) == {OutboxStatus.SENT}
    assert server.connections >= 3


def test_an_address_the_server_cannot_take_fails_and_the_others_go(engine, database_url):
    server = ScriptedSmtp(smtputf8=False).start()
    queue_emails(engine, 1, to="jörg@example.test", created_at=T0)  # needs SMTPUTF8, which it lacks
    queue_emails(engine, 1, to="ann@example.test", created_at=T0)

    try:
        report = deliver_due(engine, mail_config(database_url, server.port), now=T0)
    finally:
        server.stop()

    assert (report.sent, report.failed) == (1, 1)
    assert [m["To"] for m in server.messages] == ["ann@example.test"]
    assert "SMTPUTF8" in outbox(engine)[0].last_error
