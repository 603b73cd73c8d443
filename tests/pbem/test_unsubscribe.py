"""Unsubscribe: a page with a button (GET changes nothing) and the RFC 8058 one-click POST.
Reminders and event emails stop; turn emails still come."""
from __future__ import annotations

from datetime import timedelta

import pytest

from clockkit import T0, deliver, game_row, headers, mails, mover, seat_row, start_game, sweep
from pbem.clocks.unsubscribe import sign_unsubscribe
from pbem.db import session_scope


@pytest.fixture
def setup(app):
    engine = app.extensions["korsar_db"]
    cfg = app.config["KORSAR"]
    game_id = start_game(engine, cfg, deadline_hours=10)
    return engine, cfg, game_id


def path_of(row) -> str:
    return headers(row)["List-Unsubscribe"].strip("<>").removeprefix("http://korsar.test")


def test_get_shows_a_button_and_changes_nothing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    for method in (client.get, client.head):
        response = method(f"/u/{sign_unsubscribe(cfg, seat)}")
        assert response.status_code == 200
    page = client.get(f"/u/{sign_unsubscribe(cfg, seat)}").get_data(as_text=True)
    assert '<form method="post"' in page and "Stop reminders and event emails" in page
    assert not seat_row(engine, game_id, seat.position).unsubscribed


def test_one_click_post_from_the_reminder_header_unsubscribes(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    (reminder,) = mails(engine, "reminder", seat.email)
    response = client.post(path_of(reminder), data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "no more reminders" in response.get_data(as_text=True)
    assert seat_row(engine, game_id, seat.position).unsubscribed
    assert game_row(engine, game_id).next_reminder_at is None
    sweep(engine, cfg, T0 + timedelta(hours=9))
    assert len(mails(engine, "reminder", seat.email)) == 1


def test_turn_emails_still_come_after_unsubscribing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    client.post(f"/u/{sign_unsubscribe(cfg, seat)}")
    before = len(mails(engine, "turn", seat.email))
    from pbem.db import session_scope
    from pbem.games.lifecycle import pause_game, resume_game

    with session_scope(engine) as session:
        pause_game(session, cfg, game_id, now=T0, actor="admin")
    with session_scope(engine) as session:
        resume_game(session, cfg, game_id, now=T0, actor="admin")
    assert len(mails(engine, "turn", seat.email)) == before + 1


@pytest.mark.parametrize("token", ["nonsense", "WzEsMV0.forged-signature"])
def test_a_damaged_link_gets_a_clear_400_and_changes_nothing(client, setup, token):
    engine, cfg, game_id = setup
    for method in (client.get, client.post):
        response = method(f"/u/{token}")
        assert response.status_code == 400
        assert "damaged" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, mover(engine, game_id).position).unsubscribed


def test_every_notification_email_carries_the_one_click_headers(client, setup, smtp_server):
    engine, cfg, game_id = setup
    sweep(engine, cfg, T0 + timedelta(hours=5))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))  # a reminder is rendered when sent
    assert mails(engine, "reminder")
    for row in mails(engine, "reminder"):
        assert headers(row)["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert "/u/" in row.text_body
    for row in mails(engine, "turn"):
        assert "List-Unsubscribe" not in headers(row)  # turn emails cannot be switched off


def test_the_prefs_page_turns_reminders_back_on_and_switches_to_the_daily_digest(client, setup,
                                                                                 monkeypatch):
    import pbem.web.prefs as prefs
    from pbem.links import sign_seat

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)

    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    page = f"/g/{sign_seat(cfg, game_id, seat.position, seat.link_nonce)}"
    client.post(f"/u/{sign_unsubscribe(cfg, seat)}")
    assert game_row(engine, game_id).next_reminder_at is None
    assert client.post(page + "/reminders", data={"reminders": "on"}).status_code == 303
    assert not seat_row(engine, game_id, seat.position).unsubscribed
    assert game_row(engine, game_id).next_reminder_at is not None
    assert client.post(page + "/digest", data={"digest": "on"}).status_code == 303
    assert seat_row(engine, game_id, seat.position).digest
    assert "one digest a day" in client.get(page + "/prefs").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/g/garbage/prefs", "/g/garbage/digest", "/g/garbage/reminders",
                                  "/g/garbage/vacation"])
def test_a_damaged_prefs_link_is_refused_and_changes_nothing(client, setup, path):
    engine, cfg, game_id = setup
    response = client.post(path, data={"digest": "on"}) if not path.endswith("prefs") else client.get(path)
    assert response.status_code == 400
    assert "Nothing was changed" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, mover(engine, game_id).position).digest


def test_unsubscribe_tokens_never_reach_a_log_line(setup):
    from pbem.logging import redact

    engine, cfg, game_id = setup
    token = sign_unsubscribe(cfg, mover(engine, game_id))
    assert token not in redact(f"POST /u/{token} 200")


def test_a_change_of_address_revokes_the_old_owners_unsubscribe_link(app, client):
    from pbem.games import lifecycle

    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    game_id = start_game(engine, cfg)
    seat = mover(engine, game_id)
    old_link = "/u/" + sign_unsubscribe(cfg, seat)
    with session_scope(engine) as session:
        lifecycle.change_seat_email(session, cfg, game_id, seat.position, "new@example.com",
                                    now=T0, actor="admin@example.com")
    for method in (client.get, client.post):
        response = method(old_link)
        assert response.status_code == 403 and "older address" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, seat.position).unsubscribed


def test_the_unsubscribe_link_of_a_deleted_game_says_the_game_is_gone(client, setup):
    from sqlalchemy import delete

    from pbem.models import Game, Notice, OutboxMessage, Seat

    engine, cfg, game_id = setup
    link = "/u/" + sign_unsubscribe(cfg, mover(engine, game_id))
    with session_scope(engine) as session:
        for table in (Notice, OutboxMessage, Seat):
            session.execute(delete(table).where(table.game_id == game_id))
        session.execute(delete(Game).where(Game.id == game_id))
    for method in (client.get, client.post):
        response = method(link)
        assert response.status_code == 404 and "does not exist any more" in response.get_data(as_text=True)
