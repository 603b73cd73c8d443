"""POSTs sent by another site's page are refused by their Origin header, over http as over https
(Flask-WTF compares the Referer only over https, so over http a valid CSRF token sent from a
foreign page was accepted). A POST without an Origin (curl, the load generator, old browsers)
is judged by the other checks as before. The RFC 8058 one-click unsubscribe POST, which mail
providers send from their own servers, is exempt."""
from __future__ import annotations

import pytest
from clockkit import mover, seat_row
from game_helpers import game_row, start_game
from admin_helpers import ADMIN_EMAIL, ADMIN_PASSWORD, csrf_token_of, new_game, text_of
from test_player_pages import DRAW, _move_path

from pbem.letters.unsubscribe import sign_unsubscribe

FOREIGN = ["http://evil.example", "https://korsar.test", "http://korsar.test:8080", "null"]


def _pause(admin_app, admin_client, origin: str | None):  # type: ignore[no-untyped-def]
    game_id = new_game(admin_app)
    admin_app.config["WTF_CSRF_ENABLED"] = True
    token = csrf_token_of(text_of(admin_client.get(f"/admin/games/{game_id}")))
    headers = {"Origin": origin} if origin is not None else {}
    response = admin_client.post(f"/admin/games/{game_id}/pause", data={"csrf_token": token}, headers=headers)
    return response, game_row(admin_app, game_id).status


@pytest.mark.parametrize("origin", FOREIGN)
def test_an_admin_form_with_a_valid_csrf_token_from_a_foreign_origin_is_refused(admin_app, admin_client, origin):
    response, status = _pause(admin_app, admin_client, origin)
    assert response.status_code == 403 and "another site" in text_of(response)
    assert status == "running"


@pytest.mark.parametrize("origin", ["http://korsar.test", "HTTP://Korsar.Test", "http://korsar.test:80", None])
def test_an_admin_form_from_our_origin_or_without_one_is_accepted(admin_app, admin_client, origin):
    response, status = _pause(admin_app, admin_client, origin)
    assert response.status_code == 303 and status == "paused"


def test_the_login_form_from_a_foreign_origin_is_refused(admin_app):
    client = admin_app.test_client()
    response = client.post("/admin/login", data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                           headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert client.get("/admin/").status_code == 302


@pytest.mark.parametrize("origin,code", [("http://evil.example", 403), ("null", 403),
                                         ("http://korsar.test", 303), (None, 303)])
def test_a_move_post_is_judged_by_its_origin(app, client, origin, code):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=7)
    headers = {"Origin": origin} if origin is not None else {}
    response = client.post(_move_path(app, game_id, 0, DRAW), headers=headers)
    assert response.status_code == code
    assert game_row(app, game_id).version == (1 if code == 303 else 0)


@pytest.mark.parametrize("origin", ["https://mail.google.com", "null", None])
def test_the_one_click_unsubscribe_post_works_from_any_origin(app, client, origin):
    from clockkit import start_game as start_clock_game

    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    game_id = start_clock_game(engine, cfg, deadline_hours=10)
    seat = mover(engine, game_id)
    headers = {"Origin": origin} if origin is not None else {}
    response = client.post(f"/u/{sign_unsubscribe(cfg, seat)}", data={"List-Unsubscribe": "One-Click"},
                           headers=headers)
    assert response.status_code == 200
    assert seat_row(engine, game_id, seat.position).unsubscribed


def test_the_origin_check_follows_base_url_behind_a_proxy(app_config, admin_app):
    """Behind a TLS-terminating proxy the app sees http, the browser says https://BASE_URL."""
    from pbem import create_app

    app = create_app({**app_config, "BASE_URL": "https://korsar.example"})
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    response = client.post("/admin/login", data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                           headers={"Origin": "https://korsar.example"})
    assert response.status_code == 303
    app.extensions["korsar_db"].dispose()
