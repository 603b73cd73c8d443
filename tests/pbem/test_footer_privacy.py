"""What we keep and the reader's rights (issue 27): /privacy, in the reader's language with this
copy's own periods, linked from the footer of every page (players' and the dashboard's) and of
every email (a seat's and an address's)."""
from __future__ import annotations

import pytest
from game_helpers import BASE_URL, cfg_of, deliver, html_part, start_game, text_part

from pbem.letters.invitations import my_games_link_email

PAGES = ["/", "/rules", "/new", "/me", "/privacy", "/admin/login"]


def test_the_privacy_page_says_what_we_keep_for_how_long_and_how_to_erase_it(client):
    page = client.get("/privacy")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    for words in ("What we keep, and why", "30 days", "90 days", "Erase my data", 'href="/me"',
                  "korsar@korsar.test"):
        assert words in text, words


def test_the_privacy_page_reads_this_copys_settings(app, client):
    cfg_of(app).RETENTION_INBOUND_DAYS, cfg_of(app).RETENTION_OUTBOX_BODY_DAYS = 14, 1
    text = client.get("/privacy").get_data(as_text=True)
    assert "email you sent us: 14 days" in text and "sent you: 1 day " in text


@pytest.mark.parametrize("lang, title", [("fr", "Vos données et vos droits"), ("vi", "Dữ liệu và quyền của bạn")])
def test_the_privacy_page_speaks_the_readers_language(client, lang, title):
    page = client.get(f"/privacy?lang={lang}")
    assert page.status_code == 200 and f'lang="{lang}"' in page.get_data(as_text=True)
    assert title in page.get_data(as_text=True)


@pytest.mark.parametrize("path", PAGES)
def test_every_page_links_the_privacy_page_in_its_footer(client, path):
    page = client.get(path)
    assert page.status_code == 200, path
    assert 'href="/privacy" data-privacy-link' in page.get_data(as_text=True)


def test_every_email_of_a_game_links_the_privacy_page_in_its_footer(app, smtp_server):
    start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"])
    deliver(app)
    assert smtp_server.messages
    for message in smtp_server.messages:
        assert f"{BASE_URL}/privacy" in text_part(message), message["Subject"]
        assert f'href="{BASE_URL}/privacy"' in html_part(message), message["Subject"]


def test_an_email_about_no_seat_links_the_privacy_page_too(app):
    with app.app_context():
        email = my_games_link_email(cfg_of(app), "ann@example.com", "en")
    assert f"{BASE_URL}/privacy" in email.text_body and f'href="{BASE_URL}/privacy"' in email.html_body
