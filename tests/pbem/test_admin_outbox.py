"""Admin outbox page: waiting and failed emails with the SMTP reason; retry one or all, and the
worker then really delivers them (real SMTP server on 127.0.0.1)."""
from __future__ import annotations

from datetime import timedelta

from sqlmodel import Session
from admin_helpers import audit_actions, cfg_of, db_of, new_game, outbox, text_of

from pbem.db import session_scope
from pbem.mail.delivery import deliver_due
from pbem.models import OutboxMessage, OutboxStatus, utcnow

SMTP_REASON = "550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown"


def fail(app, message_id: int, reason: str = SMTP_REASON) -> None:
    """What the worker records when the server refuses an email for good."""
    with session_scope(db_of(app)) as s:
        row = s.get(OutboxMessage, message_id)
        row.status, row.attempts, row.last_error = OutboxStatus.FAILED, 3, reason
        row.next_attempt_at = utcnow() + timedelta(days=365)


def status_of(app, message_id: int) -> str:
    with Session(db_of(app)) as s:
        return s.get(OutboxMessage, message_id).status


def test_outbox_lists_waiting_and_failed_emails_with_the_smtp_reason(admin_client, admin_app):
    game_id = new_game(admin_app)
    rows = outbox(admin_app, game_id)
    fail(admin_app, rows[1].id)
    page = text_of(admin_client.get("/admin/outbox"))
    for row in rows:
        assert row.to_addr in page
    assert "Recipient address rejected: User unknown" in page
    assert "1 failed" in page and "Retry all 1 failed" in page


def test_outbox_sent_tab_lists_what_the_worker_delivered(admin_client, admin_app, smtp_server):
    new_game(admin_app)
    report = deliver_due(db_of(admin_app), cfg_of(admin_app))
    assert report.sent == len(outbox(admin_app)) > 0
    assert "Nothing waiting" in text_of(admin_client.get("/admin/outbox"))
    sent_page = text_of(admin_client.get("/admin/outbox?show=sent"))
    assert "ann@example.com" in sent_page and "sent" in sent_page


def test_retry_one_failed_email_makes_it_due_and_the_worker_sends_it(admin_client, admin_app, smtp_server):
    new_game(admin_app)
    deliver_due(db_of(admin_app), cfg_of(admin_app))
    target = outbox(admin_app)[0]
    fail(admin_app, target.id)
    assert deliver_due(db_of(admin_app), cfg_of(admin_app)).claimed == 0  # not due any more
    received_before = len(smtp_server.messages)
    response = admin_client.post(f"/admin/outbox/{target.id}/retry")
    assert response.status_code == 303
    assert status_of(admin_app, target.id) == OutboxStatus.PENDING
    assert deliver_due(db_of(admin_app), cfg_of(admin_app)).sent == 1
    assert status_of(admin_app, target.id) == OutboxStatus.SENT
    assert len(smtp_server.messages) == received_before + 1
    assert smtp_server.messages[-1]["Message-ID"] == target.message_id
    assert "retry_email" in audit_actions(admin_app)


def test_retry_all_failed(admin_client, admin_app):
    new_game(admin_app)
    rows = outbox(admin_app)
    for row in rows[:2]:
        fail(admin_app, row.id)
    response = admin_client.post("/admin/outbox/retry-failed", follow_redirects=True)
    assert "2 failed emails will be sent again." in text_of(response)
    assert all(status_of(admin_app, r.id) == OutboxStatus.PENDING for r in rows)
    assert "retry_all_failed" in audit_actions(admin_app)


def test_a_sent_email_cannot_be_retried(admin_client, admin_app, smtp_server):
    new_game(admin_app)
    deliver_due(db_of(admin_app), cfg_of(admin_app))
    row = outbox(admin_app)[0]
    response = admin_client.post(f"/admin/outbox/{row.id}/retry", follow_redirects=True)
    assert "only failed or waiting emails can be retried" in text_of(response)
    assert status_of(admin_app, row.id) == OutboxStatus.SENT


def test_retry_of_a_missing_email_says_so(admin_client):
    response = admin_client.post("/admin/outbox/999/retry", follow_redirects=True)
    assert "There is no such email." in text_of(response)


def test_one_email_page_shows_its_text_and_error(admin_client, admin_app):
    new_game(admin_app)
    row = outbox(admin_app)[0]
    fail(admin_app, row.id)
    page = text_of(admin_client.get(f"/admin/outbox/{row.id}"))
    assert row.to_addr in page and "Recipient address rejected" in page
    assert admin_client.get("/admin/outbox/999").status_code == 404


def test_cancelled_reminders_have_their_own_tab_with_the_reason(admin_client, admin_app):
    game_id = new_game(admin_app)
    row = outbox(admin_app, game_id)[0]
    with session_scope(db_of(admin_app)) as s:
        cancelled = s.get(OutboxMessage, row.id)
        cancelled.status, cancelled.last_error = OutboxStatus.CANCELLED, "the turn was already played"
    assert "Nothing waiting" not in text_of(admin_client.get("/admin/outbox?show=cancelled"))
    assert "the turn was already played" in text_of(admin_client.get("/admin/outbox?show=cancelled"))
    assert "1 cancelled" in text_of(admin_client.get("/admin/outbox"))
    assert "Not sent: the turn was already played" in text_of(admin_client.get(f"/admin/outbox/{row.id}"))


def test_retrying_a_failed_email_gives_it_the_whole_retry_ladder_again(admin_client, admin_app):
    game_id = new_game(admin_app)
    row = outbox(admin_app, game_id)[0]
    fail(admin_app, row.id)
    admin_client.post(f"/admin/outbox/{row.id}/retry")
    with Session(db_of(admin_app)) as s:
        retried = s.get(OutboxMessage, row.id)
        assert (retried.status, retried.attempts) == (OutboxStatus.PENDING, 0)
