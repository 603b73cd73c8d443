"""/metrics (issue 26): off (404) without METRICS_TOKEN, refused (401) without the token, and
its counters move as a game is played, its emails sent, its replies and bounces received; in
multiprocess mode (PROMETHEUS_MULTIPROC_DIR) every process's counts add up."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from bounce_helpers import bounce
from game_helpers import cfg_of, db_of, deliver, start_game
from prometheus_client.parser import text_string_to_metric_families

from clockkit import play_the_turn
from pbem.models import utcnow

TOKEN = "metrics-token-for-tests"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def app_config(app_config):
    return {**app_config, "METRICS_TOKEN": TOKEN}


def scrape(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = client.get("/metrics", headers=AUTH)
    assert response.status_code == 200 and response.mimetype == "text/plain"
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(response.get_data(as_text=True)) for s in family.samples}


def value(samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_are_off_without_a_token(app_config, database_url):
    from pbem import create_app
    app = create_app({**app_config, "METRICS_TOKEN": ""})
    assert app.test_client().get("/metrics", headers=AUTH).status_code == 404


@pytest.mark.parametrize("header", [None, "Bearer wrong", f"Basic {TOKEN}"])
def test_metrics_are_refused_without_the_token(client, header):
    response = client.get("/metrics", headers={"Authorization": header} if header else {})
    assert response.status_code == 401 and "korsar_" not in response.get_data(as_text=True)


def test_the_counters_move_as_a_game_is_played(app, client):
    engine, cfg = db_of(app), cfg_of(app)
    before = scrape(client)
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"])
    assert value(scrape(client), "korsar_outbox_pending") > 0
    assert value(scrape(client), "korsar_outbox_oldest_pending_seconds") >= 0
    deliver(app)
    play_the_turn(engine, cfg, game_id, at=utcnow())
    bounce(engine, cfg, "bob@example.com")
    after = scrape(client)
    grew = {name: value(after, name, **labels) - value(before, name, **labels) for name, labels in [
        ("korsar_moves_total", {"source": "player"}),
        ("korsar_emails_queued_total", {"kind": "welcome"}),
        ("korsar_emails_sent_total", {"kind": "welcome"}),
        ("korsar_bounces_total", {"kind": "permanent"}),
        ("korsar_replies_total", {"outcome": "bounce", "reason": "permanent bounce of a turn email"}),
    ]}
    assert all(delta >= 1 for delta in grew.values()), grew
    assert value(after, "korsar_undeliverable_addresses") == 1


def test_every_process_counts_in_multiprocess_mode(tmp_path, database_url):
    """Two processes count moves; a third (the web) shows their sum, as gunicorn's workers do."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    count = "from pbem import metrics; metrics.MOVES.labels('bot').inc(); metrics.BOT_THINK.observe(0.01)"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, check=True, timeout=120)
    show = textwrap.dedent(f"""
        from pbem import create_app
        app = create_app({{"DATABASE_URL": {database_url!r}, "SECRET_KEY": "test-secret", "KORSAR_ENV": "testing",
                          "METRICS_TOKEN": "t"}})
        print(app.test_client().get("/metrics", headers={{"Authorization": "Bearer t"}}).get_data(as_text=True))
    """)
    out = subprocess.run([sys.executable, "-c", show], env=env, check=True, timeout=120, capture_output=True,
                         text=True).stdout
    assert 'korsar_moves_total{source="bot"} 2.0' in out
    assert "korsar_bot_think_seconds_count 2.0" in out
