"""/healthz: database and outbox health as JSON; 200 while the database answers, 503 when not.
Anyone gets the verdict; the detail (counts, age) needs `Authorization: Bearer <HEALTH_TOKEN>`."""
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


TOKEN = "health-token-for-the-monitor-7f3a"
BEARER = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def monitored(app):
    """The app with a HEALTH_TOKEN set (the monitor's)."""
    app.config["KORSAR"].HEALTH_TOKEN = TOKEN
    return app


def test_healthy_with_an_empty_outbox(monitored, client):
    response = client.get("/healthz", headers=BEARER)
    assert response.status_code == 200
    assert response.is_json
    assert response.json == {
        "status": "ok",
        "database": {"ok": True},
        "outbox": {"ok": True, "pending": 0, "failed": 0, "oldest_pending_age_seconds": 0.0},
    }
    assert response.headers["Cache-Control"] == "no-store"


def test_reports_the_age_of_the_oldest_pending_email_only(monitored, client):
    _queue(monitored, age_minutes=10)
    _queue(monitored, age_minutes=2, status=OutboxStatus.SENDING)
    _queue(monitored, age_minutes=600, status=OutboxStatus.SENT)
    _queue(monitored, age_minutes=900, status=OutboxStatus.FAILED)
    outbox = client.get("/healthz", headers=BEARER).json["outbox"]
    assert outbox["pending"] == 2
    assert outbox["failed"] == 1
    assert 595 <= outbox["oldest_pending_age_seconds"] <= 660
    assert outbox["ok"] is True


def test_a_stale_outbox_is_degraded_but_still_200(app, client):
    _queue(app, age_minutes=20)
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json == {"status": "degraded", "database": {"ok": True}, "outbox": {"ok": False}}


@pytest.mark.parametrize("authorization", [
    None, "", "Bearer", "Bearer wrong-token", f"Basic {TOKEN}", f"Bearer {TOKEN}x", f"Bearer {TOKEN[:-1]}",
    "Bearer tökén",
])
def test_without_the_token_only_the_verdict_is_shown(monitored, client, authorization):
    _queue(monitored, age_minutes=10)
    _queue(monitored, age_minutes=900, status=OutboxStatus.FAILED)
    headers = {} if authorization is None else {"Authorization": authorization}
    response = client.get("/healthz", headers=headers)
    assert response.status_code == 200
    assert response.json == {"status": "ok", "database": {"ok": True}, "outbox": {"ok": True}}
    assert response.headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("authorization", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"Bearer  {TOKEN} "])
def test_the_monitor_token_shows_the_detail(monitored, client, authorization):
    _queue(monitored, age_minutes=900, status=OutboxStatus.FAILED)
    outbox = client.get("/healthz", headers={"Authorization": authorization}).json["outbox"]
    assert outbox == {"ok": True, "pending": 0, "failed": 1, "oldest_pending_age_seconds": 0.0}


def test_no_health_token_configured_means_nobody_gets_the_detail(app, client):
    assert app.config["KORSAR"].HEALTH_TOKEN == ""
    for authorization in ("Bearer ", "Bearer", f"Bearer {TOKEN}"):
        response = client.get("/healthz", headers={"Authorization": authorization})
        assert response.json == {"status": "ok", "database": {"ok": True}, "outbox": {"ok": True}}


def test_health_token_is_read_from_the_environment():
    from pbem.config import Config

    assert Config.from_env({"KORSAR_ENV": "testing"}).HEALTH_TOKEN == ""
    assert Config.from_env({"KORSAR_ENV": "testing", "HEALTH_TOKEN": TOKEN}).HEALTH_TOKEN == TOKEN


@pytest.mark.parametrize("unreachable", ["postgresql", "sqlite"])
def test_503_when_the_database_does_not_answer(tmp_path, unreachable):
    app = _unreachable_app(tmp_path, unreachable)
    response = app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.json == {"status": "error", "database": {"ok": False}, "outbox": {"ok": False}}
    app.config["KORSAR"].HEALTH_TOKEN = TOKEN
    detailed = app.test_client().get("/healthz", headers=BEARER)
    assert detailed.status_code == 503
    assert detailed.json == {"status": "error", "outbox": {"ok": False},
                             "database": {"ok": False, "error": "the database does not answer"}}
    for answer in (response, detailed):
        assert "nobody" not in answer.get_data(as_text=True)
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
