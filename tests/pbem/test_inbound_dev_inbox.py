"""The dev inbox's Reply form: a developer plays by reply locally. It sends a real SMTP message
to the inbound receiver, as the email's recipient, to its Reply-To."""
from __future__ import annotations

import pytest
from game_helpers import cfg_of, db_of, deliver, start_game
from smtp_fakes import free_port
from inbound_helpers import game_state

from pbem import create_app
from pbem.inbound import smtp as inbound_smtp
from pbem.mail.catcher import list_mail, start_catcher

ANN = "ann@example.com"


@pytest.fixture
def dev_app(app_config, tmp_path):
    directory, catcher_port, inbound_port = tmp_path / "mail", free_port(), free_port()
    catcher = start_catcher(directory, port=catcher_port)
    app = create_app({**app_config, "MAIL_CATCHER_DIR": str(directory), "SMTP_PORT": catcher_port,
                      "INBOUND_PORT": inbound_port, "WTF_CSRF_ENABLED": False})
    app.config.update(TESTING=True, WTF_CSRF_ENABLED=False)
    receiver = inbound_smtp.controller(db_of(app), cfg_of(app), host="127.0.0.1", port=inbound_port)
    receiver.start()
    yield app, directory
    receiver.stop()
    catcher.stop()
    app.extensions["korsar_db"].dispose()


def test_the_reply_form_of_a_turn_email_plays_the_move_through_the_receiver(dev_app):
    app, directory = dev_app
    game_id = start_game(app, [f"Ann <{ANN}>", "bot:random"], seed=3)
    deliver(app)
    turn = next(m for m in list_mail(directory, ANN) if "your turn" in m.subject)
    client = app.test_client()
    page = client.get(f"/dev/mail/{turn.id}")
    assert page.status_code == 200 and "data-dev-reply" in page.text
    response = client.post(f"/dev/mail/{turn.id}/reply", data={"text": "draw"})
    assert response.status_code == 303
    assert game_state(app, game_id)[1].version >= 1


def test_the_reply_form_refuses_a_message_without_a_reply_address(dev_app):
    app, directory = dev_app
    start_game(app, [f"Ann <{ANN}>", "bot:random"], seed=3)
    deliver(app)
    welcome = next(m for m in list_mail(directory, ANN) if "welcome" in m.subject)
    assert app.test_client().post(f"/dev/mail/{welcome.id}/reply", data={"text": "draw"}).status_code == 404
