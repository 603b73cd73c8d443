"""Secret key rotation: with the old key in SECRET_KEY_FALLBACKS, every link already emailed
(move links, game pages) and every admin session keeps working, and new links are signed with
the new key; once the old key is dropped, its links are refused with a clear message."""
from __future__ import annotations

import re

import pytest
from flask import request, session as flask_session
from sqlmodel import select

from pbem import create_app, csrf
from pbem.db import read_scope, session_scope
from pbem.games.service import create_game
from pbem.mail.delivery import deliver_due
from pbem.models import Game, MoveRecord, OutboxMessage, Seat

OLD, NEW = "old-secret-key", "new-secret-key"
LINK = re.compile(r"http://korsar\.test(/[mg]/[A-Za-z0-9_\-.]+)")


def _app(app_config: dict, key: str, fallbacks: list[str]):
    app = create_app({**app_config, "SECRET_KEY": key, "SECRET_KEY_FALLBACKS": fallbacks})
    app.config["TESTING"] = True

    @app.route("/test-only/session", methods=["GET", "POST"])
    @csrf.exempt
    def who() -> str:
        if request.method == "POST":
            flask_session["who"] = "admin@korsar.test"
        return flask_session.get("who", "nobody")

    return app


def _links_to(app, address: str) -> list[str]:
    """Paths of the links in the newest email to `address`, as `app`'s mail worker writes it."""
    deliver_due(app.extensions["korsar_db"], app.config["KORSAR"])  # turn emails: written when sent
    with read_scope(app.extensions["korsar_db"]) as session:
        row = session.exec(select(OutboxMessage).where(OutboxMessage.to_addr == address)
                           .order_by(OutboxMessage.id.desc())).first()
        return LINK.findall(row.text_body)


@pytest.fixture
def apps(app_config):
    made = {name: _app(app_config, *keys) for name, keys in {
        "before": (OLD, []), "rotating": (NEW, [OLD]), "after": (NEW, [])}.items()}
    yield made
    for app in made.values():
        app.extensions["korsar_db"].dispose()


@pytest.fixture
def game_id(apps) -> int:
    before = apps["before"]
    with session_scope(before.extensions["korsar_db"]) as session:
        return create_game(session, before.config["KORSAR"],
                           ["Ann <ann@korsar.test>", "Bob <bob@korsar.test>"], seed=3).id


def _to_move_address(app, game_id: int) -> str:
    with read_scope(app.extensions["korsar_db"]) as session:
        game = session.get(Game, game_id)
        return session.exec(select(Seat.email).where(Seat.game_id == game_id,
                                                     Seat.position == game.to_move)).one()


def test_links_emailed_before_the_rotation_keep_working_during_it(apps, game_id):
    player = _to_move_address(apps["before"], game_id)
    old_links = _links_to(apps["before"], player)
    move_link = next(link for link in old_links if link.startswith("/m/"))
    page_link = next(link for link in old_links if link.startswith("/g/"))
    client = apps["rotating"].test_client()
    assert client.get(page_link).status_code == 200
    assert client.get(move_link).status_code == 200
    response = client.post(move_link)
    assert response.status_code == 303
    with read_scope(apps["rotating"].extensions["korsar_db"]) as session:
        played = session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id,  # (then any forced
                                                       MoveRecord.source == "player")).all()  # turn after it)
        assert len(played) == 1


def test_links_made_during_the_rotation_use_the_new_key(apps, game_id):
    first = _to_move_address(apps["before"], game_id)
    move_link = next(link for link in _links_to(apps["before"], first) if link.startswith("/m/"))
    assert apps["rotating"].test_client().post(move_link).status_code == 303
    second = _to_move_address(apps["rotating"], game_id)
    new_links = [link for link in _links_to(apps["rotating"], second) if link.startswith("/m/")]
    after = apps["after"].test_client()
    assert after.get(new_links[0]).status_code == 200
    assert apps["before"].test_client().get(new_links[0]).status_code == 400


def test_old_links_are_refused_clearly_once_the_old_key_is_dropped(apps, game_id):
    player = _to_move_address(apps["before"], game_id)
    move_link = next(link for link in _links_to(apps["before"], player) if link.startswith("/m/"))
    client = apps["after"].test_client()
    for response in (client.get(move_link), client.post(move_link)):
        assert response.status_code == 400
        assert "not made by us" in response.get_data(as_text=True)
    with read_scope(apps["after"].extensions["korsar_db"]) as session:
        assert session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)).all() == []


def test_an_admin_session_survives_the_rotation(apps):
    before = apps["before"].test_client()
    assert before.post("/test-only/session").get_data(as_text=True) == "admin@korsar.test"
    cookie = before.get_cookie("korsar_session").value
    for name, expected in (("rotating", "admin@korsar.test"), ("after", "nobody")):
        client = apps[name].test_client()
        client.set_cookie("korsar_session", cookie)
        assert client.get("/test-only/session").get_data(as_text=True) == expected
