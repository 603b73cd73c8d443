"""The pages behind the email links: GET shows, POST applies once; every refused link gets a
clear page with a fitting 4xx, nothing changed, and (when it proves whose it is) the way back
to the player's current game page."""
from __future__ import annotations

import json
import threading
import time

import engine
import pytest
from game_helpers import cfg_of, db_of, game_row, hand_sections, move_count, outbox, seats, start_game

from pbem import links
from pbem.db import session_scope
from pbem.games import service
from pbem import store
from pbem.models import Game, GameStatus, Seat

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


def _move_path(app, game_id: int, position: int, move: dict, version: int | None = None) -> str:
    seat = seats(app, game_id)[position]
    version = game_row(app, game_id).version if version is None else version
    return "/m/" + links.sign_move(cfg_of(app), game_id, position, seat.link_nonce, version, move)


def _page_path(app, game_id: int, position: int) -> str:
    seat = seats(app, game_id)[position]
    return "/g/" + links.sign_seat(cfg_of(app), game_id, position, seat.link_nonce)


def _page_link_start(app, game_id: int, position: int) -> str:
    """The part of a game-page link that does not depend on the second it was signed in."""
    return _page_path(app, game_id, position).split(".", 1)[0] + "."


def _snapshot(app, game_id: int) -> tuple:
    game = game_row(app, game_id)
    return game.version, game.state_json, game.status, move_count(app, game_id), len(outbox(app))


@pytest.fixture
def game_id(app) -> int:
    return start_game(app, [ANN, BOB], seed=7)


DRAW = {"action": "draw"}


def test_the_confirmation_page_shows_the_move_and_has_exactly_one_post_form(app, client, game_id):
    page = client.get(_move_path(app, game_id, 0, DRAW))
    assert page.status_code == 200
    forms = hand_sections(page.text).move_forms
    assert len(forms) == 1 and page.text.count("<form") == 1
    assert json.loads(forms[0]["data-move"]) == DRAW
    assert "Draw a card?" in page.text
    hand = engine.player_view(store.load_state(game_row(app, game_id)), 0)["hand"]
    assert sorted(hand_sections(page.text).hands[("own", "0")]) == sorted(hand)


@pytest.mark.parametrize("method", ["get", "head"])
def test_get_and_head_of_a_move_link_change_nothing(app, client, game_id, method):
    before = _snapshot(app, game_id)
    for _ in range(3):
        assert getattr(client, method)(_move_path(app, game_id, 0, DRAW)).status_code == 200
        assert getattr(client, method)(_page_path(app, game_id, 0)).status_code == 200
    assert _snapshot(app, game_id) == before


def test_post_applies_the_move_and_redirects_to_the_game_page_with_a_confirmation(app, client, game_id):
    response = client.post(_move_path(app, game_id, 0, DRAW))
    assert response.status_code == 303
    assert response.headers["Location"].startswith(_page_link_start(app, game_id, 0))
    assert game_row(app, game_id).version == 1
    page = client.get(response.headers["Location"])
    assert page.status_code == 200 and "Your move was played." in page.text
    assert "You drew a card." in page.text and "Waiting for Bob to move." in page.text
    assert 'action="/m/' not in page.text  # not Ann's turn: no move buttons


def test_a_second_post_of_the_same_link_is_refused_as_already_played(app, client, game_id):
    path = _move_path(app, game_id, 0, DRAW)
    assert client.post(path).status_code == 303
    before = _snapshot(app, game_id)
    again = client.post(path)
    assert again.status_code == 409 and "already played this move" in again.text
    assert _page_link_start(app, game_id, 0) in again.text
    assert _snapshot(app, game_id) == before
    assert client.get(path).status_code == 409  # the confirmation page says so too


def test_a_link_from_an_older_email_is_stale(app, client, game_id):
    old_merchant = next(m for m in engine.legal_moves(store.load_state(game_row(app, game_id)))
                        if m["action"] == "play")
    old = _move_path(app, game_id, 0, old_merchant)
    client.post(_move_path(app, game_id, 0, DRAW))
    client.post(_move_path(app, game_id, 1, DRAW))
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(old)
        assert response.status_code == 409 and "older email" in response.text
        assert _page_link_start(app, game_id, 0) in response.text
    assert _snapshot(app, game_id) == before


@pytest.mark.parametrize("mangle", [
    lambda t: t[:-3] + ("AAA" if not t.endswith("AAA") else "BBB"),  # signature
    lambda t: "x" + t,                                                  # payload
    lambda t: t.split(".")[0],                                         # truncated
    lambda t: "not-a-token",
])
def test_a_tampered_move_link_is_400_and_changes_nothing(app, client, game_id, mangle):
    path = _move_path(app, game_id, 0, DRAW)
    bad = "/m/" + mangle(path[3:])
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(bad)
        assert response.status_code == 400 and "damaged" in response.text
    assert _snapshot(app, game_id) == before


def test_a_token_for_another_purpose_is_refused(app, client, game_id):
    seat_token = _page_path(app, game_id, 0)[3:]
    assert client.post("/m/" + seat_token).status_code == 400
    move_token = _move_path(app, game_id, 0, DRAW)[3:]
    assert client.get("/g/" + move_token).status_code == 400


def test_a_link_signed_with_another_key_is_refused(app, client, game_id):
    seat = seats(app, game_id)[0]
    other = service.Config(SECRET_KEY="someone-else")
    token = links.sign_move(other, game_id, 0, seat.link_nonce, 0, DRAW)
    assert client.post("/m/" + token).status_code == 400
    assert game_row(app, game_id).version == 0


def test_links_signed_with_a_rotated_key_still_work(app, client, game_id):
    seat = seats(app, game_id)[0]
    old = service.Config(SECRET_KEY="old-key")
    token = links.sign_move(old, game_id, 0, seat.link_nonce, 0, DRAW)
    assert client.post("/m/" + token).status_code == 400
    cfg_of(app).SECRET_KEY_FALLBACKS = ["old-key"]
    assert client.post("/m/" + token).status_code == 303


def test_an_expired_move_link_is_410_and_points_to_the_game_page(app, client, game_id, monkeypatch):
    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() - links.MOVE_LINK_MAX_AGE - 60)
    path = _move_path(app, game_id, 0, DRAW)
    monkeypatch.setattr(time, "time", real)
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(path)
        assert response.status_code == 410 and "expired" in response.text
        assert _page_link_start(app, game_id, 0) in response.text
    assert _snapshot(app, game_id) == before


def test_links_of_a_seat_whose_nonce_changed_are_403_without_a_way_in(app, client, game_id):
    move_path, page_path = _move_path(app, game_id, 0, DRAW), _page_path(app, game_id, 0)
    with session_scope(db_of(app)) as s:
        s.get(Seat, seats(app, game_id)[0].id).link_nonce = "renewed"
    before = _snapshot(app, game_id)
    for response in (client.get(move_path), client.post(move_path), client.get(page_path)):
        assert response.status_code == 403 and "replaced by a newer one" in response.text
        assert "/g/" not in response.text
    assert _snapshot(app, game_id) == before


@pytest.mark.parametrize("status,code,words", [
    (GameStatus.PAUSED, 409, "paused"),
    (GameStatus.FINISHED, 410, "over"),
    (GameStatus.ABORTED, 410, "stopped"),
])
def test_move_links_of_a_game_not_running_are_refused(app, client, game_id, status, code, words):
    path = _move_path(app, game_id, 0, DRAW)
    with session_scope(db_of(app)) as s:
        s.get(Game, game_id).status = status
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(path)
        assert response.status_code == code and words in response.text
        assert _page_link_start(app, game_id, 0) in response.text
    assert _snapshot(app, game_id) == before
    page = client.get(_page_path(app, game_id, 0))
    assert page.status_code == 200 and words in page.text and 'action="/m/' not in page.text


def test_a_signed_but_illegal_move_is_422_with_the_rules_reason(app, client, game_id):
    path = _move_path(app, game_id, 1, DRAW)  # Bob, but it is Ann's turn
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(path)
        assert response.status_code == 422 and "turn" in response.text
    assert _snapshot(app, game_id) == before


def test_a_link_to_a_game_that_does_not_exist_is_404(app, client):
    token = links.sign_move(cfg_of(app), 4242, 0, "nonce", 0, DRAW)
    assert client.get("/m/" + token).status_code == 404
    assert client.post("/m/" + token).status_code == 404


def test_the_game_page_shows_the_private_view_moves_log_and_status(app, client, game_id):
    page = client.get(_page_path(app, game_id, 0))
    assert page.status_code == 200
    state = store.load_state(game_row(app, game_id))
    view = engine.player_view(state, 0)
    sections = hand_sections(page.text)
    assert list(sections.hands) == [("own", "0")]
    assert sorted(sections.hands[("own", "0")]) == sorted(view["hand"])
    buttons = page.text.count('data-move-button=')
    assert buttons == len(view["legal_moves"]) and 'action="/m/' not in page.text
    assert "It is your turn." in page.text and "No moves yet." in page.text
    assert "Draw pile: 66 cards." in page.text
    bob = client.get(_page_path(app, game_id, 1))
    assert "Waiting for Ann to move." in bob.text and 'data-move-button=' not in bob.text


def test_every_button_of_the_game_page_opens_its_confirmation_which_plays_it(app, client, game_id):
    page = client.get(_page_path(app, game_id, 0))
    import re

    confirmations = re.findall(r'<a class="move" href="(/m/[^"]+)"', page.text)
    assert game_row(app, game_id).version == 0  # opening a confirmation plays nothing
    actions = [re.search(r'action="(/m/[^"]+)"', client.get(path).text)[1] for path in confirmations]
    assert game_row(app, game_id).version == 0
    response = client.post(actions[-1])
    assert response.status_code == 303 and game_row(app, game_id).version == 1
    assert client.post(actions[0]).status_code == 409  # the turn is over


def test_a_game_page_link_is_tampered_400(app, client, game_id):
    assert client.get(_page_path(app, game_id, 0) + "x").status_code == 400


def _post_at_once(app, paths: list[str]) -> list[int]:
    barrier = threading.Barrier(len(paths))
    codes: list[int] = [0] * len(paths)

    def post(i: int) -> None:
        client = app.test_client()
        barrier.wait()
        codes[i] = client.post(paths[i]).status_code

    threads = [threading.Thread(target=post, args=(i,)) for i in range(len(paths))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    return codes


def test_two_concurrent_posts_of_one_link_apply_the_move_once(app, game_id):
    path = _move_path(app, game_id, 0, DRAW)
    codes = _post_at_once(app, [path] * 4)
    assert sorted(codes) == [303, 409, 409, 409]
    assert move_count(app, game_id) == 1 and game_row(app, game_id).version == 1
    assert [m.kind for m in outbox(app)].count("turn") == 2  # Ann's first and Bob's, once


def test_two_concurrent_posts_of_different_moves_for_one_turn_apply_exactly_one(app, game_id):
    moves = engine.legal_moves(store.load_state(game_row(app, game_id)))
    assert len(moves) >= 2
    codes = _post_at_once(app, [_move_path(app, game_id, 0, m) for m in moves[:2]])
    assert sorted(codes) == [303, 409]
    assert move_count(app, game_id) == 1


def test_a_player_whose_seat_a_bot_plays_cannot_click_a_move(app, client, game_id):
    path = _move_path(app, game_id, 0, DRAW)
    with session_scope(db_of(app)) as s:
        s.get(Seat, seats(app, game_id)[0].id).handed_to_bot = True
    before = _snapshot(app, game_id)
    for method in (client.get, client.post):
        response = method(path)
        assert response.status_code == 409 and "A bot plays your seat" in response.text
    assert _snapshot(app, game_id) == before
    assert 'action="/m/' not in client.get(_page_path(app, game_id, 0)).text
