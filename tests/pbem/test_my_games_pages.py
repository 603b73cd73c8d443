"""'My games' (pbem/web/my_games.py): an address asks for a link by email and the page answers
the same whether it plays here or not; the link opens every game of the address and its
preferences, set once for all its games and remembered for the next ones."""
from __future__ import annotations

import re

import pytest
from game_helpers import cfg_of, db_of, deliver, outbox, seats, start_game
from sqlmodel import Session, select
from test_seat_actions import play_to_the_end

from pbem import links
from pbem.db import session_scope
from pbem.games import proposals
from pbem.models import AddressPreference, RateEvent
from pbem.games.settings import GameSettings

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


def me_path(app, email: str) -> str:
    return links.my_games_url(cfg_of(app), email).removeprefix(cfg_of(app).BASE_URL)


def links_to(app, email: str) -> list:
    return [m for m in outbox(app) if m.to_addr == email]


def set_remembered(app, email: str, **fields) -> None:
    with session_scope(db_of(app)) as s:
        row = s.get(AddressPreference, email) or AddressPreference(email=email)
        for key, value in fields.items():
            setattr(row, key, value)
        s.add(row)


# ---------------------------------------------------------------- asking for the link
def test_the_form_asks_for_an_address(client):
    page = client.get("/me")
    assert page.status_code == 200
    assert 'name="email"' in page.text and 'action="/me"' in page.text


def test_a_known_and_an_unknown_address_get_the_same_answer(app, client):
    start_game(app, [ANN, BOB], seed=7)
    known = client.post("/me", data={"email": "ann@example.com"})
    unknown = client.post("/me", data={"email": "nobody@example.com"})
    assert known.status_code == unknown.status_code == 200
    assert known.text == unknown.text  # same shape, same words: nothing tells them apart
    assert "If this address plays with us, a link to its games is on its way." in known.text


def test_only_a_known_address_is_emailed_its_link(app, client, smtp_server):
    start_game(app, [ANN, BOB], seed=7)
    client.post("/me", data={"email": "Ann@Example.com"})
    client.post("/me", data={"email": "nobody@example.com"})
    deliver(app)  # the worker looks the address up
    assert [m["Subject"] for m in smtp_server.to("ann@example.com")].count("[Korsar] Your link to your games") == 1
    assert smtp_server.to("nobody@example.com") == []


@pytest.mark.parametrize("email", ["", "not an address", "ann@", "a\r\nb@example.com"])
def test_a_malformed_address_is_422_with_the_form(app, client, email):
    response = client.post("/me", data={"email": email})
    assert response.status_code == 422
    assert 'name="email"' in response.text and "data-error" in response.text
    assert outbox(app) == []


def test_too_many_link_requests_for_one_address_are_429(app, client):
    cfg_of(app).LIMIT_LINKS_PER_ADDRESS_HOUR = 2
    answers = [client.post("/me", data={"email": "ann@example.com"}) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 429]
    assert int(answers[-1].headers["Retry-After"]) > 0
    assert "try again after" in answers[-1].text


# ---------------------------------------------------------------- the page of the link
def test_the_page_lists_running_and_finished_games(app, client):
    running = start_game(app, [ANN, BOB], seed=7, name="Under way")
    done = start_game(app, [ANN, "bot:greedy"], seed=3, name="All done")
    play_to_the_end(app, done)
    page = client.get(me_path(app, "ann@example.com"))
    assert page.status_code == 200
    running_part = page.text.split("data-running")[1].split("data-finished")[0]
    assert "Under way" in running_part and "All done" not in running_part
    ann = seats(app, running)[0]
    assert links.sign_seat(cfg_of(app), running, 0, ann.link_nonce).split(".")[0] in running_part
    finished_part = page.text.split("data-finished")[1].split("data-address-prefs")[0]
    assert "All done" in finished_part
    assert "You won!" in finished_part or "Winner:" in finished_part


def test_the_page_says_whose_turn_it_is_with_the_deadline_in_the_address_zone(app, client):
    game_id = start_game(app, [ANN, BOB], seed=7)
    set_remembered(app, "ann@example.com", timezone="Asia/Ho_Chi_Minh")
    mover = seats(app, game_id)[0]  # the first player moves first
    page = client.get(me_path(app, mover.email)).text
    assert "Your turn" in page and "(Hanoi / Ho Chi Minh City time)" in page
    assert "Waiting for Ann to move." in client.get(me_path(app, "bob@example.com")).text


def test_a_game_waiting_for_invitations_shows_each_answer(app, client):
    cfg = cfg_of(app)
    with session_scope(db_of(app)) as s:
        proposal = proposals.propose_game(s, cfg, your_name="Ann", your_email="ann@example.com",
                                            players="Bob <bob@example.com>\nbot:greedy",
                                          settings=GameSettings(name="Soon"))
        token = links.sign_record(cfg, links.CONFIRM_SALT, proposal.id, proposal.nonce)
    with session_scope(db_of(app)) as s:
        proposals.confirm_proposal(s, cfg, token)
    ann = client.get(me_path(app, "ann@example.com")).text
    waiting = ann.split("data-waiting")[1].split("data-finished")[0]
    assert "Soon" in waiting and "you set it up" in waiting and "Bob: invited, no answer yet" in waiting
    assert "you are invited" in client.get(me_path(app, "bob@example.com")).text


def test_an_expired_link_is_410_with_the_way_to_a_new_one(app, client, monkeypatch):
    monkeypatch.setattr(links, "MY_GAMES_MAX_AGE", -1)
    response = client.get(me_path(app, "ann@example.com"))
    assert response.status_code == 410
    assert 'href="/me"' in response.text and "data-next" in response.text


def test_a_damaged_link_is_400(client):
    assert client.get("/me/not-a-token").status_code == 400
    assert client.post("/me/not-a-token/prefs", data={"timezone": "UTC"}).status_code == 400


def test_opening_the_page_changes_nothing(app, client):
    start_game(app, [ANN, BOB], seed=7)
    before = (len(outbox(app)), _rows(app, AddressPreference), _rows(app, RateEvent))
    assert client.get(me_path(app, "ann@example.com")).status_code == 200
    assert client.head(me_path(app, "ann@example.com")).status_code == 200
    assert client.get("/me").status_code == 200
    assert (len(outbox(app)), _rows(app, AddressPreference), _rows(app, RateEvent)) == before


def _rows(app, model) -> list:
    with Session(db_of(app)) as s:
        return [r.model_dump() for r in s.exec(select(model))]


# ---------------------------------------------------------------- language
def test_the_page_speaks_the_address_remembered_language(app, client):
    set_remembered(app, "ann@example.com", language="vi")
    assert '<html lang="vi">' in client.get(me_path(app, "ann@example.com")).text


def test_a_language_the_visitor_picks_wins_over_the_remembered_one(app, client):
    set_remembered(app, "ann@example.com", language="vi")
    assert '<html lang="fr">' in client.get(me_path(app, "ann@example.com") + "?lang=fr").text


# ---------------------------------------------------------------- preferences for all games
def test_the_time_zone_list_has_every_zone_and_a_browser_guess_when_none_is_saved(app, client):
    page = client.get(me_path(app, "ann@example.com")).text
    others = re.findall(r'<option value="([^"]+)"', page.split('name="timezone_other"')[1])
    assert others == sorted(others) and "Europe/Paris" in others and len(others) > 300
    assert "data-guess" in page and "home/timezone.js" in page and "<script>" not in page


def test_preferences_apply_to_every_running_seat_and_are_remembered(app, client):
    first, second = start_game(app, [ANN, BOB], seed=7), start_game(app, [BOB, ANN], seed=8)
    path = me_path(app, "ann@example.com")
    response = client.post(path + "/prefs", data={"timezone": "Europe/Paris", "digest": "on"})
    assert response.status_code == 303 and response.headers["Location"].endswith(path + "?saved=1")
    ann_seats = [seats(app, first)[0], seats(app, second)[1]]
    assert all(s.timezone == "Europe/Paris" and s.digest and s.unsubscribed and not s.play_forced
               for s in ann_seats)
    assert seats(app, first)[1].timezone == "UTC"  # Bob's seats are his own
    with Session(db_of(app)) as s:
        saved = s.get(AddressPreference, "ann@example.com")
    assert (saved.timezone, saved.reminders, saved.digest, saved.play_forced) == ("Europe/Paris", False, True, False)
    page = client.get(response.headers["Location"]).text
    assert "data-saved" in page and '<option value="Europe/Paris" selected>' in page
    assert "data-guess" not in page


def test_an_unknown_time_zone_is_422_and_changes_nothing(app, client):
    game_id = start_game(app, [ANN, BOB], seed=7)
    response = client.post(me_path(app, "ann@example.com") + "/prefs",
                           data={"timezone": "Mars/Olympus", "digest": "on"})
    assert response.status_code == 422 and "data-error" in response.text
    assert not seats(app, game_id)[0].digest
    assert _rows(app, AddressPreference) == []
