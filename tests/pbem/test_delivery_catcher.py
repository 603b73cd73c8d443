"""The local mail catcher (a real SMTP server writing .eml files) and the dev inbox pages."""
from __future__ import annotations

import json
import re

import pytest
from smtp_fakes import free_port, mail_config, queue_emails

from pbem import create_app
from pbem.db import make_engine, session_scope
from pbem.mail.catcher import list_mail, start_catcher
from pbem.mail.delivery import deliver_due
from pbem.models import OutboxMessage


@pytest.fixture
def catcher(tmp_path):
    directory, port = tmp_path / "mail", free_port()
    controller = start_catcher(directory, port=port)
    yield directory, port
    controller.stop()


@pytest.fixture
def dev_app(app_config, catcher):
    app = create_app({**app_config, "MAIL_CATCHER_DIR": str(catcher[0])})
    app.config["TESTING"] = True
    yield app
    app.extensions["korsar_db"].dispose()


def deliver_to_catcher(database_url: str, port: int, count: int, **queue_args) -> list[int]:
    engine = make_engine(database_url)
    try:
        ids = queue_emails(engine, count, **queue_args)
        assert deliver_due(engine, mail_config(database_url, port)).sent == count
        return ids
    finally:
        engine.dispose()


def test_the_catcher_keeps_every_message_as_an_eml_file(database_url, catcher):
    directory, port = catcher
    deliver_to_catcher(database_url, port, 3)
    files = sorted(directory.glob("*.eml"))
    assert len(files) == 3 and not list(directory.glob(".*.tmp"))
    mails = list_mail(directory)
    assert [m.subject for m in mails] == ["Mail 2", "Mail 1", "Mail 0"]  # newest first
    assert mails[0].delivered_to == ("player2@example.test",)


def test_dev_inbox_lists_mail_newest_first_and_filters_by_recipient(dev_app, database_url, catcher):
    deliver_to_catcher(database_url, catcher[1], 3)
    client = dev_app.test_client()

    page = client.get("/dev/mail").get_data(as_text=True)
    only = client.get("/dev/mail?to=player1@example.test").get_data(as_text=True)
    listed = client.get("/dev/mail.json").get_json()

    assert page.index("Mail 2") < page.index("Mail 1") < page.index("Mail 0")
    assert "Mail 1" in only and "Mail 0" not in only and "Mail 2" not in only
    assert [m["subject"] for m in listed] == ["Mail 2", "Mail 1", "Mail 0"]


def test_dev_message_page_shows_headers_text_and_sandboxed_html(dev_app, database_url, catcher):
    engine = make_engine(database_url)
    [row_id] = queue_emails(engine, 1, to="You <you@localhost>")
    with session_scope(engine) as session:
        row = session.get(OutboxMessage, row_id)
        row.text_body = "Play: http://127.0.0.1:5000/m/abc?x=1&y=2\n"
        row.html_body = '<p style="color:red">Hi</p><script>alert("x")</script><a href="http://127.0.0.1:5000/m/abc">Play</a>'
    assert deliver_due(engine, mail_config(database_url, catcher[1])).sent == 1
    engine.dispose()
    client = dev_app.test_client()
    [mail] = client.get("/dev/mail.json").get_json()

    response = client.get(f"/dev/mail/{mail['id']}")
    page = response.get_data(as_text=True)

    assert response.status_code == 200
    iframe = re.search(r"<iframe[^>]*>", page).group(0)
    assert 'sandbox="allow-popups allow-popups-to-escape-sandbox"' in iframe  # no scripts, no same-origin
    assert "&lt;script&gt;" in iframe and "<script>" not in page
    assert '<a href="http://127.0.0.1:5000/m/abc?x=1&amp;y=2"' in page  # the text part's link, clickable
    assert "Message-ID:" in page and "Delivered-To:" in page
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "script-src" not in csp
    raw = client.get(f"/dev/mail/{mail['id']}.eml")
    assert raw.status_code == 200 and b"Subject: Mail 0" in raw.data


@pytest.mark.parametrize("mail_id", ["nope", "..%2f..%2fetc%2fpasswd", "1234567890123456789-zzzzzzzz",
                                     "1234567890123456789-0000000a"])
def test_unknown_or_malformed_message_ids_are_404(dev_app, mail_id):
    client = dev_app.test_client()
    assert client.get(f"/dev/mail/{mail_id}").status_code == 404
    assert client.get(f"/dev/mail/{mail_id}.eml").status_code == 404


def test_the_dev_inbox_does_not_exist_in_production(app_config, catcher):
    app = create_app({**app_config, "KORSAR_ENV": "production", "MAIL_CATCHER_DIR": str(catcher[0])})
    try:
        assert app.test_client().get("/dev/mail").status_code == 404
    finally:
        app.extensions["korsar_db"].dispose()


def test_reading_the_dev_inbox_changes_nothing(dev_app, database_url, catcher):
    deliver_to_catcher(database_url, catcher[1], 1)
    before = sorted(p.name for p in catcher[0].iterdir())
    client = dev_app.test_client()
    for mail in client.get("/dev/mail.json").get_json():
        client.get(f"/dev/mail/{mail['id']}")
    assert sorted(p.name for p in catcher[0].iterdir()) == before
    assert json.loads(client.get("/dev/mail.json").get_data()) != []
