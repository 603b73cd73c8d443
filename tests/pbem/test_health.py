"""/healthz: database and outbox health as JSON; 200 while the database answers, 503 when not."""
from __future__ import annotations

from datetime import timedelta

import pytest

from pbem import create_app
from pbem.db import session_scope
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from benchmarks.common import free_port


def _unreachable_app(tmp_path, kind: str):
    """An app whose database does not answer: a closed PostgreSQL port, or a SQLite "file"
    that is a directory."""
    url = (f"postgresql+psycopg://nobody@127.0.0.1:{free_port()}/nothing" if kind == "postgresql"
           else f"sqlite:///{tmp_path}")
    return create_app({"DATABASE_URL": url, "KORSAR_ENV": "testing", "SECRET_KEY": "test-secret"})


def _queue(app, *, age_minutes: float, status: str = OutboxStatus.PENDING) -> None:
    with session_scope(app.extensions["korsar_db"]) as session:
        session.add(OutboxMessage(
            kind="turn", to_addr="ann@example.test", subject="Your turn", text_body="secret body",
            html_body="<p>secret body</p>", message_id=f"<{status}{age_minutes}@korsar.test>",
            status=status, created_at=utcnow() - timedelta(minutes=age_minutes),
        ))


def test_healthy_with_an_empty_outbox(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.is_json
    assert response.json == {
        "status": "ok",
        "database": {"ok": True},
        "outbox": {"ok": True, "pending": 0, "failed": 0, "oldest_pending_age_seconds": 0.0},
    }
    assert response.headers["Cache-Control"] == "no-store"


def test_reports_the_age_of_the_oldest_pending_email_only(app, client):
    _queue(app, age_minutes=10)
    _queue(app, age_minutes=2, status=OutboxStatus.SENDING)
    _queue(app, age_minutes=600, status=OutboxStatus.SENT)
    _queue(app, age_minutes=900, status=OutboxStatus.FAILED)
    outbox = client.get("/healthz").json["outbox"]
    assert outbox["pending"] == 2
    assert outbox["failed"] == 1
    assert 595 <= outbox["oldest_pending_age_seconds"] <= 660
    assert outbox["ok"] is True


def test_a_stale_outbox_is_degraded_but_still_200(app, client):
    _queue(app, age_minutes=20)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json["status"] == "degraded"
    assert response.json["outbox"]["ok"] is False


@pytest.mark.parametrize("unreachable", ["postgresql", "sqlite"])
def test_503_when_the_database_does_not_answer(tmp_path, unreachable):
    app = _unreachable_app(tmp_path, unreachable)
    response = app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.json == {"status": "error",
                             "database": {"ok": False, "error": "the database does not answer"}}
    assert "nobody" not in response.get_data(as_text=True)
    app.extensions["korsar_db"].dispose()


@pytest.mark.parametrize("unreachable", ["postgresql", "sqlite"])
def test_a_page_hit_by_a_database_outage_says_try_again_with_503(tmp_path, unreachable):
    from pbem import links

    app = _unreachable_app(tmp_path, unreachable)
    cfg = app.config["KORSAR"]
    client = app.test_client()
    page = client.get("/g/" + links.sign_seat(cfg, 1, 0, "nonce"))
    move = client.post("/m/" + links.sign_move(cfg, 1, 0, "nonce", 0, {"action": "draw"}))
    for response in (page, move):
        assert response.status_code == 503
        assert response.headers["Retry-After"] == "30"
        assert "Try again in a minute" in response.get_data(as_text=True)
        assert "nobody" not in response.get_data(as_text=True)
    app.extensions["korsar_db"].dispose()
