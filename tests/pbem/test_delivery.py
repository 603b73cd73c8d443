"""Building emails from outbox rows and delivering them over a real SMTP server."""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

import pytest
from smtp_fakes import ScriptedSmtp, mail_config, queue_emails
from game_helpers import outbox

from pbem.config import Config
from pbem.db import session_scope
from pbem.mail.delivery import RetryPolicy, deliver_due
from pbem.mail.verp import bounce_address, bounced_row
from pbem.mail.mime import MessageError, build_message
from pbem.models import OutboxMessage, OutboxStatus

T0 = datetime(2026, 5, 1, 12, 0, 0)
CFG = Config(MAIL_FROM="Korsar by mail <korsar@korsar.test>", KORSAR_ENV="testing")


def outbox_row(**fields: object) -> OutboxMessage:
    values: dict[str, object] = dict(
        id=1, kind="turn", to_addr="Ann Ärger <ann@example.test>", subject="Your turn in Korsar: ship 3 ⚓",
        text_body="Hello Ann,\nit is your turn. Gold: 5 €\n", html_body="<p>Hello Ann, <b>your turn</b> €</p>",
        message_id="<m1@korsar.test>", in_reply_to="<root@korsar.test>", references="<root@korsar.test>",
        headers_json=json.dumps({"List-Unsubscribe": "<https://korsar.test/u/abc>",
                                 "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}),
        created_at=T0,
    )
    values.update(fields)
    return OutboxMessage(**values)


# ---------------------------------------------------------------- the message
def test_message_carries_the_rows_headers_and_threading():
    msg, envelope = build_message(outbox_row(), CFG)
    assert msg["From"] == "Korsar by mail <korsar@korsar.test>"
    assert msg["To"] == "Ann Ärger <ann@example.test>"
    assert msg["Subject"] == "Your turn in Korsar: ship 3 ⚓"
    assert msg["Message-ID"] == "<m1@korsar.test>"
    assert msg["In-Reply-To"] == msg["References"] == "<root@korsar.test>"
    assert msg["List-Unsubscribe"] == "<https://korsar.test/u/abc>"
    assert msg["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert msg["Date"].datetime.replace(tzinfo=None) == T0
    # The envelope sender is the row's signed bounce address (VERP), so its bounce names it.
    assert (envelope.mail_from, envelope.rcpt_to) == (bounce_address(CFG, 1), "ann@example.test")
    assert bounced_row(CFG, envelope.mail_from) == 1


def test_message_is_utf8_text_and_html_alternatives_with_short_lines():
    msg, _ = build_message(outbox_row(text_body="x" * 2000 + " €", html_body="<p>" + "y" * 2000 + "</p>"), CFG)
    assert msg.get_content_type() == "multipart/alternative"
    text, html = msg.get_payload()
    assert (text.get_content_type(), html.get_content_type()) == ("text/plain", "text/html")
    assert text.get_content_charset() == html.get_content_charset() == "utf-8"
    assert text.get_content().rstrip("\n").endswith(" €")
    wire = msg.as_bytes()
    assert max(len(line) for line in wire.split(b"\r\n")) <= 998
    assert wire.isascii()


@pytest.mark.parametrize("fields", [
    {"subject": "Hi\r\nBcc: thief@evil.test"},
    {"subject": "Hi\nX-Evil: 1"},
    {"to_addr": "ann@example.test\r\nBcc: thief@evil.test"},
    {"to_addr": "ann@example.test, thief@evil.test"},
    {"to_addr": "not an address"},
    {"headers_json": json.dumps({"X-Ok\r\nBcc": "thief@evil.test"})},
    {"headers_json": json.dumps({"List-Unsubscribe": "<x>\r\nBcc: thief@evil.test"})},
    {"headers_json": json.dumps({"Bcc": "thief@evil.test"})},
    {"headers_json": json.dumps({"Subject": "another subject"})},
    {"headers_json": "[1, 2]"},
    {"headers_json": json.dumps({"List-Unsubscribe": "<https://korsar.test/u/abc>\nBcc: thief@evil.test"})},
    {"headers_json": json.dumps({"List-Unsubscribe": "<https://korsar.test/u/ä>"})},
    {"headers_json": json.dumps({"List-Unsubscribe": "<https://korsar.test/u/" + "a" * 960 + ">"})},
    {"headers_json": json.dumps({"List-Unsubscribe": "<a>", "list-unsubscribe": "<b>"})},
    {"headers_json": json.dumps({"List-Unsubscribe-Post": "List-Unsubscribe=One-Click\r\nBcc: x@y.test"})},
    {"headers_json": json.dumps({"Content-Language": "fr\r\nBcc: thief@evil.test"})},
    {"headers_json": json.dumps({"Content-Language": "français"})},
], ids=["crlf-subject", "lf-subject", "crlf-to", "two-recipients", "no-address", "crlf-header-name",
        "crlf-header-value", "extra-bcc", "extra-subject", "headers-not-object",
        "lf-list-unsubscribe", "non-ascii-list-unsubscribe", "list-unsubscribe-over-998",
        "two-list-unsubscribe", "crlf-list-unsubscribe-post", "crlf-content-language",
        "content-language-not-a-tag"])
def test_header_injection_and_malformed_rows_are_refused(fields):
    with pytest.raises(MessageError):
        build_message(outbox_row(**fields), CFG)


def test_list_unsubscribe_goes_out_verbatim_on_one_line_up_to_998_octets():
    # RFC 2047 encoded-words (what the 78-column folding makes of a long URL) are not decoded by
    # Gmail or Yahoo in this header: one-click unsubscribe would silently not work.
    url = "<https://korsar.example.org/u/" + "A1b2-_." * 130 + ">"  # no legal fold point inside
    line = b"List-Unsubscribe: " + url.encode()
    assert 78 < len(line) <= 998
    msg, _ = build_message(outbox_row(headers_json=json.dumps({
        "List-Unsubscribe": url, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"})), CFG)
    wire = msg.as_bytes()
    assert line + b"\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n" in wire
    assert b"=?utf-8?q?=3C" not in wire
    assert wire.isascii()
    assert msg["Subject"] == "Your turn in Korsar: ship 3 ⚓"  # other headers are still encoded/folded
    assert b"=?utf-8?" in wire.split(b"\r\nSubject: ", 1)[1].split(b"\r\n", 1)[0]


@pytest.mark.parametrize("tag", ["fr", "vi", "en-XX"])
def test_the_letters_language_is_a_header_of_the_whole_message_not_of_a_part(tag):
    msg, _ = build_message(outbox_row(headers_json=json.dumps({"Content-Language": tag})), CFG)
    assert msg["Content-Language"] == tag and msg.get_content_type() == "multipart/alternative"
    assert all(part["Content-Language"] is None for part in msg.iter_parts())


@pytest.mark.parametrize("attempts, low, high", [
    (1, 45, 75), (2, 90, 150), (3, 180, 300), (6, 1440, 2400), (7, 2880, 3600), (30, 3600, 3600),
])
def test_backoff_doubles_with_jitter_and_stays_under_an_hour(attempts, low, high):
    policy, rng = RetryPolicy(), random.Random(attempts)
    for _ in range(50):
        assert low <= policy.delay(attempts, rng).total_seconds() <= high


# ---------------------------------------------------------------- delivery
def test_a_due_email_is_delivered_once_and_marked_sent(engine, database_url, smtp_server):
    [row_id] = queue_emails(engine, 1, to="Bob <bob@example.test>", created_at=T0)
    cfg = mail_config(database_url, smtp_server.port)

    report = deliver_due(engine, cfg, now=T0)
    again = deliver_due(engine, cfg, now=T0 + timedelta(hours=5))

    assert (report.sent, report.retried, report.failed) == (1, 0, 0)
    assert again.claimed == 0
    [msg] = smtp_server.to("bob@example.test")
    assert len(smtp_server.messages) == 1 and msg["Subject"] == "Mail 0"
    assert smtp_server.envelopes == [(bounce_address(cfg, row_id), ["bob@example.test"])]
    [row] = outbox(engine)
    assert (row.id, row.status, row.sent_at, row.attempts) == (row_id, OutboxStatus.SENT, T0, 1)
    assert row.claimed_by is None and row.last_error is None


def test_a_batch_goes_over_one_connection_oldest_first(engine, database_url):
    server = ScriptedSmtp().start()
    try:
        queue_emails(engine, 7, created_at=T0)
        report = deliver_due(engine, mail_config(database_url, server.port), now=T0)
    finally:
        server.stop()
    assert report.sent == 7 and server.connections == 1
    assert server.subjects() == [f"Mail {i}" for i in range(7)]


def test_an_email_not_yet_due_waits_for_its_time(engine, database_url, smtp_server):
    queue_emails(engine, 1, created_at=T0 + timedelta(minutes=10))
    cfg = mail_config(database_url, smtp_server.port)
    assert deliver_due(engine, cfg, now=T0).claimed == 0
    assert deliver_due(engine, cfg, now=T0 + timedelta(minutes=10)).sent == 1


def test_batch_size_limits_one_run(engine, database_url, smtp_server):
    queue_emails(engine, 5, created_at=T0)
    cfg = mail_config(database_url, smtp_server.port)
    assert [deliver_due(engine, cfg, now=T0, batch_size=2).sent for _ in range(4)] == [2, 2, 1, 0]


def test_a_row_leased_by_a_live_worker_is_left_alone_until_the_lease_expires(engine, database_url, smtp_server):
    [row_id] = queue_emails(engine, 1, created_at=T0)
    with session_scope(engine) as session:
        row = session.get(OutboxMessage, row_id)
        row.status, row.claimed_by, row.claimed_until = OutboxStatus.SENDING, "other", T0 + timedelta(minutes=5)
        row.attempts = 1
    cfg = mail_config(database_url, smtp_server.port)

    assert deliver_due(engine, cfg, now=T0 + timedelta(minutes=4)).claimed == 0
    report = deliver_due(engine, cfg, now=T0 + timedelta(minutes=6), worker_id="me")

    assert report.sent == 1 and len(smtp_server.messages) == 1
    [row] = outbox(engine)
    assert row.status == OutboxStatus.SENT and row.attempts == 2


def test_sent_and_failed_rows_are_never_sent_again(engine, database_url, smtp_server):
    ids = queue_emails(engine, 2, created_at=T0)
    with session_scope(engine) as session:
        for row_id, status in zip(ids, [OutboxStatus.SENT, OutboxStatus.FAILED]):
            session.get(OutboxMessage, row_id).status = status
    assert deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0 + timedelta(days=3)).claimed == 0
    assert smtp_server.messages == []


def test_a_malformed_row_fails_and_the_others_still_go(engine, database_url, smtp_server):
    ids = queue_emails(engine, 3, created_at=T0)
    with session_scope(engine) as session:
        session.get(OutboxMessage, ids[1]).headers_json = json.dumps({"Bcc": "thief@evil.test"})

    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0)

    assert (report.sent, report.failed) == (2, 1)
    assert sorted(m["Subject"] for m in smtp_server.messages) == ["Mail 0", "Mail 2"]
    failed = outbox(engine)[1]
    assert failed.status == OutboxStatus.FAILED and "Bcc" in failed.last_error


def test_a_stop_request_finishes_the_current_email_and_gives_the_rest_back(engine, database_url, smtp_server):
    queue_emails(engine, 4, created_at=T0)
    asked = iter([False, False, True])

    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0, stop=lambda: next(asked))

    assert (report.sent, report.deferred) == (2, 2)
    rows = outbox(engine)
    assert [(r.status, r.attempts) for r in rows] == [("sent", 1), ("sent", 1), ("pending", 0), ("pending", 0)]
    assert all(r.claimed_by is None for r in rows)
    assert deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0).sent == 2


def test_a_row_taken_over_by_another_worker_mid_batch_is_not_sent(engine, database_url, smtp_server, monkeypatch):
    import pbem.mail.delivery as delivery

    ids = queue_emails(engine, 3, created_at=T0)
    monkeypatch.setattr(delivery, "lease_seconds", lambda cfg: 0.0)  # every send re-checks its claim
    calls = iter(range(10))

    def takeover_before_second_send() -> bool:
        if next(calls) == 1:  # the lease ran out and another worker claimed the row
            with session_scope(engine) as session:
                session.get(OutboxMessage, ids[1]).claimed_by = "other-worker"
        return False

    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0,
                         stop=takeover_before_second_send)

    assert (report.sent, report.deferred) == (2, 1)
    assert sorted(m["Subject"] for m in smtp_server.messages) == ["Mail 0", "Mail 2"]
    assert outbox(engine)[1].claimed_by == "other-worker"


def test_an_email_that_keeps_killing_workers_is_given_up(engine, database_url, smtp_server):
    [row_id] = queue_emails(engine, 1, created_at=T0)
    with session_scope(engine) as session:  # twelve claims, each ended by a dead worker
        row = session.get(OutboxMessage, row_id)
        row.status, row.claimed_by, row.claimed_until, row.attempts = OutboxStatus.SENDING, "dead", T0, 12

    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0 + timedelta(minutes=1))

    assert report.failed == 1 and smtp_server.messages == []
    [row] = outbox(engine)
    assert row.status == OutboxStatus.FAILED and "workers stopped while sending it" in row.last_error


def test_an_admin_retry_of_an_email_that_used_all_its_attempts_is_sent(engine, database_url, smtp_server):
    [row_id] = queue_emails(engine, 1, created_at=T0)
    with session_scope(engine) as session:  # failed after 12 attempts, then "Retry" in the dashboard
        row = session.get(OutboxMessage, row_id)
        row.status, row.attempts, row.last_error = OutboxStatus.PENDING, 12, "451 busy"

    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0)

    assert report.sent == 1 and len(smtp_server.messages) == 1


def test_only_the_worker_side_delivery_module_talks_smtp():
    from pbem.config import PROJECT_ROOT

    talking = sorted(str(p.relative_to(PROJECT_ROOT)) for p in (PROJECT_ROOT / "pbem").rglob("*.py")
                     if "smtplib" in p.read_text())
    # No SMTP in a web request, ever; the dev inbox's Reply form (never registered in production)
    # sends a developer's reply to the local receiver.
    assert talking == ["pbem/mail/delivery.py", "pbem/mail/smtp.py", "pbem/web/dev.py"]
