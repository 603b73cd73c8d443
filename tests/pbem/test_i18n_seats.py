"""Each seat has a language (en, fr, vi): given at creation (the CLI's `[fr]`, the admin form),
remembered for its address (the next game that address joins starts in it), changed on the
seat's preferences page or by an admin (audited). Pages without a seat follow the reader:
`?lang=` of the language switch, its cookie, else Accept-Language."""
from __future__ import annotations

import html
import re

import pytest
from game_helpers import cfg_of, db_of, outbox, seats, start_game
from hypothesis import given
from hypothesis import strategies as st
from admin_helpers import audit_actions

from pbem import i18n, links
from pbem.db import session_scope
from pbem.games import address_prefs, service, setup
from pbem import store
from pbem.games.errors import GameError
from pbem.games.setup import SeatSpec, parse_player
from pbem.letters import notify
from pbem.models import AddressPreference, Game

ELODIE, BOB, THAO = ("Élodie <elodie@example.com>", "Bob <bob@example.com>", "Thảo <thao@example.com>")


def _prefs_path(app, game_id: int, position: int) -> str:
    seat = seats(app, game_id)[position]
    token = links.sign_seat(cfg_of(app), seat.game_id, seat.position, seat.link_nonce)
    return f"/g/{token}"


def _remembered(app, email: str) -> str | None:
    with session_scope(db_of(app)) as session:
        row = session.get(AddressPreference, email)
        return row.language if row else None


# ---------------------------------------------------------------- the player spec
@pytest.mark.parametrize("text, language", [
    ("Élodie <elodie@example.com> [fr]", "fr"),
    ("Élodie <elodie@example.com>[FR]", "fr"),
    ("thao@example.com [vi]", "vi"),
    ("Bob <bob@example.com> [ en ]", "en"),
    ("Bob <bob@example.com>", None),
])
def test_a_players_spec_may_end_with_the_code_of_their_language(text, language):
    spec = parse_player(text)
    assert spec.email and "[" not in spec.name and spec.language == language


@pytest.mark.parametrize("text", ["Élodie <elodie@example.com> [de]", "Élodie <elodie@example.com> []",
                                  "bot:greedy [fr]"])
def test_a_language_we_do_not_speak_or_given_to_a_bot_is_refused(text):
    with pytest.raises(GameError):
        parse_player(text)


@given(st.sampled_from(sorted(i18n.LANGUAGES)), st.sampled_from(["", " ", "  "]))
def test_every_language_code_is_read_back_from_a_spec(code, space):
    assert parse_player(f"Ann <ann@example.com>{space}[{code}]").language == code


def test_the_cli_creates_seats_in_the_languages_of_their_specs(app, runner):
    result = runner.invoke(args=["create-game", "--player", ELODIE + " [fr]", "--player", THAO + " [vi]",
                                 "--player", BOB, "--seed", "3"])
    assert result.exit_code == 0, result.output
    game_id = int(result.output.strip().splitlines()[-1])
    assert [s.language for s in seats(app, game_id)] == ["fr", "vi", "en"]


def test_the_cli_help_shows_the_language_of_a_player(runner):
    assert "[fr]" in runner.invoke(args=["create-game", "--help"]).output


# ---------------------------------------------------------------- remembered per address
def test_the_next_game_of_an_address_starts_in_its_language(app):
    start_game(app, [ELODIE + " [fr]", BOB], seed=1)
    assert _remembered(app, "elodie@example.com") is None  # a spec says it for that game only
    first = start_game(app, [ELODIE + " [fr]", THAO + " [vi]"], seed=2)
    with session_scope(db_of(app)) as session:
        address_prefs.set_seat_language(session, service.seats_of(session, first)[1], "vi")
        address_prefs.set_seat_language(session, service.seats_of(session, first)[0], "fr")
    later = start_game(app, ["Élodie <ELODIE@example.com>", THAO, BOB], seed=3)
    assert [s.language for s in seats(app, later)] == ["fr", "vi", "en"]


def test_a_language_given_at_creation_wins_over_the_remembered_one(app):
    game_id = start_game(app, [ELODIE, BOB], seed=1)
    with session_scope(db_of(app)) as session:
        address_prefs.set_seat_language(session, service.seats_of(session, game_id)[0], "fr")
    assert [s.language for s in seats(app, start_game(app, [ELODIE + " [vi]", BOB], seed=2))] == ["vi", "en"]


def test_a_seat_spec_in_a_language_we_do_not_speak_is_a_setup_problem():
    problems = setup.setup_problems([SeatSpec("Ann", "ann@example.com", language="de"),
                                     SeatSpec("Bob", "bob@example.com")])
    assert [(p.seat, p.field) for p in problems] == [(0, "language")]
    assert "de" in problems[0].message


# ---------------------------------------------------------------- the preferences page
def test_the_preferences_page_offers_every_language_with_the_seats_selected(app, client):
    game_id = start_game(app, [ELODIE + " [fr]", BOB], seed=1)
    page = client.get(_prefs_path(app, game_id, 0) + "/prefs").get_data(as_text=True)
    languages = page.split('name="language"')[1].split("</select>")[0]  # not the time-zone picker
    options = re.findall(r'<option value="(\w+)"[^>]*?( selected)?>', languages)
    assert [code for code, _ in options] == list(i18n.LANGUAGES)
    assert [code for code, selected in options if selected] == ["fr"]


def test_a_language_chosen_on_the_preferences_page_is_the_seats_and_the_next_games(app, client):
    game_id = start_game(app, [ELODIE, BOB], seed=1)
    path = _prefs_path(app, game_id, 0)
    response = client.post(path + "/language", data={"language": "vi"})
    assert response.status_code == 303 and response.headers["Location"].endswith("/prefs?saved=language")
    assert seats(app, game_id)[0].language == "vi"
    assert 'lang="vi"' in client.get(path + "/prefs").get_data(as_text=True)[:200]
    later = start_game(app, [BOB, ELODIE], seed=2)
    assert [s.language for s in seats(app, later)] == ["en", "vi"]


def test_the_preferences_page_refuses_a_language_we_do_not_speak(app, client):
    game_id = start_game(app, [ELODIE, BOB], seed=1)
    response = client.post(_prefs_path(app, game_id, 0) + "/language", data={"language": "xx"})
    assert response.status_code == 400
    assert seats(app, game_id)[0].language == "en" and _remembered(app, "elodie@example.com") is None


def test_the_next_email_of_a_seat_comes_in_the_language_it_chose(app, client):
    game_id = start_game(app, [ELODIE, BOB], seed=1)
    assert client.post(_prefs_path(app, game_id, 1) + "/language", data={"language": "fr"}).status_code == 303
    with session_scope(db_of(app)) as session:
        game = session.get(Game, game_id)
        assert game is not None
        notify.queue_welcome(session, cfg_of(app), game, service.seats_of(session, game_id)[1],
                             store.load_state(game))
    welcomes = [m.html_body for m in outbox(app, game_id) if m.kind == "welcome"]
    assert ['<html lang="en" dir="ltr">' in h for h in welcomes] == [True, True, False]
    assert '<html lang="fr" dir="ltr">' in welcomes[-1]


# ---------------------------------------------------------------- the admin
def test_the_admin_sees_each_seats_language_and_changes_it_audited(admin_client, admin_app):
    game_id = start_game(admin_app, [ELODIE + " [fr]", THAO + " [vi]", BOB], seed=1)
    page = admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True)
    assert re.findall(r'data-seat-language="(\w+)"', page) == ["fr", "vi", "en"]
    response = admin_client.post(f"/admin/games/{game_id}/seats/2/language", data={"language": "vi"})
    assert response.status_code == 303
    assert [s.language for s in seats(admin_app, game_id)] == ["fr", "vi", "vi"]
    assert audit_actions(admin_app)[-1] == "seat_language"
    assert _remembered(admin_app, "bob@example.com") == "vi"


def test_the_admin_cannot_give_a_seat_a_language_we_do_not_speak(admin_client, admin_app):
    game_id = start_game(admin_app, [ELODIE, BOB], seed=1)
    response = admin_client.post(f"/admin/games/{game_id}/seats/0/language", data={"language": "de"})
    assert response.status_code == 422
    assert seats(admin_app, game_id)[0].language == "en" and "seat_language" not in audit_actions(admin_app)


def test_the_admin_form_creates_each_seat_in_the_language_chosen_for_its_row(admin_client, admin_app):
    form = {"name": "Table", "players-0-name": "Élodie", "players-0-email": "elodie@example.com",
            "players-0-kind": "human", "players-0-language": "fr",
            "players-1-name": "Thảo", "players-1-email": "thao@example.com", "players-1-kind": "human",
            "players-1-language": "vi",
            "players-2-name": "Bob", "players-2-email": "bob@example.com", "players-2-kind": "human",
            "players-2-language": "", "end_settlement": "resolve", "deadline_hours": "48",
            "reminders": "50", "on_timeout": "pause"}
    assert 'name="players-0-language"' in admin_client.get("/admin/games/new").get_data(as_text=True)
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 303, response.get_data(as_text=True)
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert [s.language for s in seats(admin_app, game_id)] == ["fr", "vi", "en"]


def test_the_admin_dashboard_stays_english_whatever_the_browser_speaks(admin_client, admin_app):
    page = admin_client.get("/admin/games", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="en">' in page


# ---------------------------------------------------------------- pages without a seat
@pytest.mark.parametrize("header, code", [
    ("fr-FR,fr;q=0.9,en;q=0.5", "fr"), ("vi", "vi"), ("de-DE,vi;q=0.4,fr;q=0.3", "vi"),
    ("de, ja", "en"), ("", "en"), ("vi-VN,en;q=0.1", "vi"), ("en-GB,fr;q=0.5", "en"), ("fr-CA", "fr"),
    ("en;q=0.2, vi;q=0.8", "vi"), ("*", "en"),
])
def test_the_rules_page_follows_the_browsers_accept_language(client, header, code):
    response = client.get("/rules", headers={"Accept-Language": header} if header else {})
    assert f'<html lang="{code}">' in response.get_data(as_text=True)
    assert "Accept-Language" in response.headers.get("Vary", "")


def test_the_language_switch_sets_the_language_of_the_page_and_a_cookie_for_the_next(client):
    page = client.get("/rules", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert re.findall(r'data-lang-switch="(\w+)"', page) == ["en", "vi"]  # the page's own is not a link
    switched = client.get("/rules?lang=vi", headers={"Accept-Language": "fr"})
    assert '<html lang="vi">' in switched.get_data(as_text=True)
    assert "korsar_lang=vi" in switched.headers["Set-Cookie"]
    later = client.get("/rules", headers={"Accept-Language": "fr"})
    assert '<html lang="vi">' in later.get_data(as_text=True)


def test_a_language_we_do_not_speak_in_the_switch_changes_nothing(client):
    response = client.get("/rules?lang=xx", headers={"Accept-Language": "fr"})
    assert '<html lang="fr">' in response.get_data(as_text=True) and "Set-Cookie" not in response.headers


def test_a_seat_page_speaks_the_seats_language_whatever_the_browser_and_shows_no_switch(app, client):
    game_id = start_game(app, [ELODIE + " [vi]", BOB], seed=1)
    page = client.get(_prefs_path(app, game_id, 0), headers={"Accept-Language": "fr"}).get_data(as_text=True)
    assert '<html lang="vi">' in page and "data-lang-switch" not in page


def test_the_language_of_one_request_does_not_leak_into_the_next(app, client):
    client.get("/rules?lang=fr")
    with app.test_client() as other:
        assert '<html lang="en">' in other.get("/rules").get_data(as_text=True)
    assert i18n.current() == i18n.DEFAULT


def test_the_last_language_an_address_chose_is_the_one_remembered(app, client):
    first, second = start_game(app, [ELODIE, BOB], seed=1), start_game(app, [ELODIE, THAO], seed=2)
    client.post(_prefs_path(app, first, 0) + "/language", data={"language": "vi"})
    client.post(_prefs_path(app, second, 0) + "/language", data={"language": "fr"})
    assert _remembered(app, "elodie@example.com") == "fr"
    assert [s.language for s in seats(app, first)] == ["vi", "en"]  # each seat keeps its own


@pytest.mark.parametrize("method, path, status, words", [
    ("get", "/no/such/page", 404, {"en": "There is no such page", "fr": "Cette page n'existe pas",
                                   "vi": "Không có trang này"}),
    ("post", "/rules", 405, {"en": "This link cannot be used that way", "fr": "Ce lien ne s'utilise pas ainsi",
                             "vi": "Không thể dùng liên kết này theo cách đó"}),
])
@pytest.mark.parametrize("code", list(i18n.LANGUAGES))
def test_a_page_that_does_not_exist_says_so_in_the_readers_language(client, method, path, status, words, code):
    response = getattr(client, method)(path, headers={"Accept-Language": code})
    assert response.status_code == status
    assert words[code] in html.unescape(response.get_data(as_text=True))


def test_an_unknown_dashboard_url_keeps_the_dashboards_error_page(client):
    response = client.get("/admin/no/such/page")
    assert response.status_code == 404 and "There is no such page in the dashboard." in response.get_data(as_text=True)
