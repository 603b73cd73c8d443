"""No hidden information leaks: nothing a player is sent or shown holds another player's hand,
except a partner's hand in team play.

Two independent checks: every card inside an HTML section marked `data-hand` belongs to the
hand it claims (the viewer's, or the partner's), and "sentinel" cards that exist once in the
deck and sit in another player's hand never appear anywhere in what the viewer gets."""
from __future__ import annotations

import re

import engine
import pytest
from game_helpers import (cfg_of, deck_with_hands, deliver, game_page_path, game_row, hand_sections,
                          html_part, move_links, seats, start_game, text_part)

from pbem import links
from pbem import store

# Every card here exists exactly once in the deck: seeing one proves a leak of its holder's hand.
SENTINELS = ["AD", "BC", "GC", "RC", "KC", "M8"]
SENTINEL_NAMES = [engine.card_name(c) for c in SENTINELS]
PLAIN = ["B1", "B2", "G2", "G3", "M2", "M3"]
OTHER = ["R1", "R2", "K2", "K3", "M4", "M4"]


def _check_hand_sections(html: str, allowed: dict[str, list[str]]) -> None:
    """Each data-hand section belongs to an allowed seat and shows exactly that seat's hand."""
    sections = hand_sections(html)
    assert sections.hands, "a page that shows a hand marks it with data-hand"
    for (_label, seat), cards in sections.hands.items():
        assert seat in allowed, f"hand of seat {seat} shown"
        assert sorted(cards) == sorted(allowed[seat])


def _assert_no_sentinel(content: str) -> None:
    for name in SENTINEL_NAMES:
        assert name not in content, f"{name} leaked"
    for code in SENTINELS:
        assert f'data-card="{code}"' not in content
        assert not re.search(rf'"card":\s*"{code}"', content)


def _player_contents(app, smtp_server, addr: str) -> list[str]:
    """Every email part this player got, every page their links open (GET only)."""
    client = app.test_client()
    contents = []
    for msg in smtp_server.to(addr):
        text, html = text_part(msg), html_part(msg)
        contents += [msg["Subject"], text, html]
        contents.append(client.get(game_page_path(text)).text)
        for _sentence, path in move_links(text):
            contents.append(client.get(path).text)
    return contents


def test_an_individual_game_never_shows_ann_anything_of_bobs_hand(app, smtp_server):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"],
                         deck=deck_with_hands(PLAIN, SENTINELS))
    deliver(app)
    client = app.test_client()
    # Ann moves (a draw), Bob then gets a turn email; Ann's pages afterwards still hide Bob.
    path = move_links(text_part(smtp_server.to("ann@example.com")[-1]))[0][1]
    assert client.post(path).status_code == 303
    deliver(app)
    state = store.load_state(game_row(app, game_id))
    ann_hand = engine.player_view(state, 0)["hand"]
    contents = _player_contents(app, smtp_server, "ann@example.com")
    assert len(contents) >= 8
    for content in contents:
        _assert_no_sentinel(content)
        if "data-hand" in content:
            hands = hand_sections(content).hands
            assert set(hands) <= {("own", "0")}
    # The current game page shows exactly Ann's current hand.
    page = client.get(game_page_path(text_part(smtp_server.to("ann@example.com")[-1]))).text
    _check_hand_sections(page, {"0": ann_hand})
    # Bob, on the other hand, sees his own sentinels.
    bob_page = client.get(game_page_path(text_part(smtp_server.to("bob@example.com")[-1]))).text
    _check_hand_sections(bob_page, {"1": SENTINELS})


def test_in_team_play_partners_see_each_other_and_never_the_other_team(app, smtp_server):
    # Seats 0 & 1 (Ann, Bob) against 2 & 3 (Cid, Dan); Cid holds the sentinels.
    deck = deck_with_hands(PLAIN, OTHER, SENTINELS, ["B3", "B3", "G1", "G1", "M5", "M5"])
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>",
                               "Cid <cid@example.com>", "Dan <dan@example.com>"],
                         teams=True, deck=deck)
    deliver(app)
    state = store.load_state(game_row(app, game_id))
    hands = {str(s): engine.player_view(state, s)["hand"] for s in range(4)}
    for addr, me, partner in [("ann@example.com", "0", "1"), ("bob@example.com", "1", "0"),
                              ("dan@example.com", "3", "2")]:
        for content in _player_contents(app, smtp_server, addr):
            if "data-hand" in content:
                _check_hand_sections(content, {me: hands[me], partner: hands[partner]})
                assert ("partner", partner) in hand_sections(content).hands
            if addr != "dan@example.com":
                _assert_no_sentinel(content)
    # Dan is Cid's partner: he is the one who may see the sentinels.
    dan = text_part(smtp_server.to("dan@example.com")[0])
    assert "HAND OF YOUR PARTNER, Cid" in dan and "Admiral" in dan


def test_error_pages_and_messages_never_show_a_hand(app, client, smtp_server):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"],
                         deck=deck_with_hands(PLAIN, SENTINELS))
    ann = seats(app, game_id)[0]
    # Ann forges nothing (she cannot sign), but a signed move of a card she lacks must not
    # reveal who holds it.
    for move in [{"action": "play", "card": "AD", "target": 1}, {"action": "play", "card": "M8"},
                 {"action": "discard", "card": "BC"}]:
        token = links.sign_move(cfg_of(app), game_id, 0, ann.link_nonce, 0, move)
        for response in (client.get("/m/" + token), client.post("/m/" + token)):
            assert 400 <= response.status_code < 500
            assert "Bob" not in response.text.split("<main>")[1]


@pytest.mark.parametrize("viewer", [0, 1])
def test_the_player_view_json_in_the_page_is_only_the_viewers(app, client, viewer):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"],
                         deck=deck_with_hands(PLAIN, OTHER))
    seat = seats(app, game_id)[viewer]
    page = client.get("/g/" + links.sign_seat(cfg_of(app), game_id, viewer, seat.link_nonce)).text
    other = OTHER if viewer == 0 else PLAIN
    mine = PLAIN if viewer == 0 else OTHER
    for code in set(other) - set(mine):
        assert engine.card_name(code) not in page
    assert '"hands"' not in page and "state_json" not in page
