"""The home page (/): what the service is, a picture of a real turn email, how a game goes, and
the ways in (start a game, my games, the rules), in the visitor's language."""
from __future__ import annotations

from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "pbem" / "static" / "home"


def test_the_home_page_says_what_the_service_is(client):
    page = client.get("/")
    assert page.status_code == 200
    assert "Reiner Knizia" in page.text and "by email" in page.text
    assert "no account" in page.text.lower()


def test_the_home_page_links_start_a_game_my_games_and_the_rules(client):
    page = client.get("/").text
    assert 'href="/new"' in page and 'href="/me"' in page and 'href="/rules"' in page


def test_the_home_page_tells_how_a_game_goes_in_steps(client):
    page = client.get("/").text
    steps = page.split("data-how")[1].split("</ol>")[0]
    assert 3 <= steps.count("<li>") <= 5


def test_the_picture_of_a_turn_email_is_there_with_words_for_it(client):
    page = client.get("/").text
    assert 'src="/static/home/turn-email.png"' in page
    assert 'alt="A turn email on a phone' in page
    picture = client.get("/static/home/turn-email.png")
    assert picture.status_code == 200 and picture.data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(picture.data) < 160_000  # a home page, not a download


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_the_home_page_has_the_language_switch(client, language):
    page = client.get(f"/?lang={language}").text
    assert f'<html lang="{language}">' in page
    assert 'data-lang-switch="en"' in page


def test_the_home_page_runs_no_inline_script_or_style(client):
    page = client.get("/").text
    assert "<script>" not in page and "style=" not in page
