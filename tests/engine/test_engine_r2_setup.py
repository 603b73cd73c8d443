"""R2: shuffling, dealing, player counts, teams and sides."""
import random

import pytest

from engine import FULL_DECK, ConfigError, Options, admin_view, new_game, partner_of, \
    player_view, shuffled_deck, team_of, validate_deck
from engine.testing import build_deck, play

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]


def test_r2_1_six_cards_each_and_the_rest_is_the_draw_pile():
    state = new_game(NAMES[:3], seed=17)
    assert [len(h) for h in admin_view(state)["hands"]] == [6, 6, 6]
    assert player_view(state, 0)["draw_pile"] == 78 - 18


def test_r2_1_the_seed_shuffles_with_its_own_random_never_the_global_one():
    expected = list(FULL_DECK)
    random.Random(17).shuffle(expected)
    before = random.getstate()
    state = new_game(NAMES[:3], seed=17)
    assert random.getstate() == before
    assert state.deck == expected
    assert new_game(NAMES[:3], seed=17) == state


def test_r2_1_shuffled_deck_shuffles_the_78_cards_with_the_rng_it_is_given():
    assert shuffled_deck(random.Random(17)) == new_game(NAMES[:3], seed=17).deck
    before = random.getstate()
    dealt = shuffled_deck(random.SystemRandom())
    assert random.getstate() == before and validate_deck(dealt) == dealt
    assert new_game(NAMES[:3], deck=dealt).deck == dealt


def test_r2_1_seat_0_moves_first_then_increasing_seats_wrapping():
    state = new_game(NAMES[:3], seed=1)
    seen = []
    for _ in range(7):
        seen.append(state.to_move)
        state, _ = play(state, "draw")
    assert seen == [0, 1, 2, 0, 1, 2, 0]


def test_r2_2_an_explicit_deck_is_dealt_six_by_six_and_the_next_card_is_on_top():
    deck = list(FULL_DECK)
    state = new_game(NAMES[:2], deck=deck)
    hands = admin_view(state)["hands"]
    assert hands[0] == sorted(deck[0:6])
    assert hands[1] == sorted(deck[6:12])
    state, _ = play(state, "draw")
    assert admin_view(state)["hands"][0] == sorted(deck[0:6] + [deck[12]])


def test_r2_2_build_deck_puts_the_chosen_cards_where_asked():
    deck = build_deck([["B3", "M5"], ["R1"]], pile=["AD"])
    state = new_game(NAMES[:2], deck=deck)
    assert {"B3", "M5"} <= set(admin_view(state)["hands"][0])
    state, _ = play(state, "draw")
    assert "AD" in admin_view(state)["hands"][0]


@pytest.mark.parametrize("n, teams", [(2, False), (3, False), (4, False), (5, False),
                                      (4, True), (6, True), (8, True)])
def test_r2_3_allowed_player_counts(n, teams):
    assert new_game(NAMES[:n], teams=teams, seed=0).to_move == 0


@pytest.mark.parametrize("n, teams", [(0, False), (1, False), (6, False), (8, False),
                                      (2, True), (3, True), (5, True), (7, True)])
def test_r2_3_other_player_counts_are_refused_with_a_clear_error(n, teams):
    names = [f"P{i}" for i in range(n)]
    with pytest.raises(ConfigError, match="players"):
        new_game(names, teams=teams, seed=0)


def test_r2_3_nine_players_in_teams_are_refused():
    with pytest.raises(ConfigError, match="4, 6 or 8"):
        new_game([f"P{i}" for i in range(9)], teams=True, seed=0)


@pytest.mark.parametrize("kwargs, words", [
    ({}, "exactly one"),
    ({"seed": 1, "deck": list(FULL_DECK)}, "exactly one"),
    ({"seed": "17"}, "integer"),
    ({"seed": True}, "integer"),
    ({"deck": list(FULL_DECK)[:70]}, "78"),
    ({"seed": 1, "options": Options(end_settlement="maybe")}, "end_settlement"),
])
def test_refused_game_setups_raise_config_error(kwargs, words):
    with pytest.raises(ConfigError, match=words):
        new_game(NAMES[:3], **kwargs)


def test_config_error_is_a_value_error():
    assert issubclass(ConfigError, ValueError)


def test_r2_4_teams_are_neighbouring_seats():
    state = new_game(NAMES[:6], teams=True, seed=3)
    assert [team_of(state, s) for s in range(6)] == [0, 0, 1, 1, 2, 2]
    assert [partner_of(state, s) for s in range(6)] == [1, 0, 3, 2, 5, 4]
    alone = new_game(NAMES[:4], seed=3)
    assert team_of(alone, 1) is None and partner_of(alone, 1) is None


def test_r2_4_partners_see_each_others_hands_and_nobody_elses():
    state = new_game(NAMES[:4], teams=True, seed=3)
    hands = admin_view(state)["hands"]
    view = player_view(state, 2)
    assert view["hand"] == hands[2]
    assert view["partner"] == 3 and view["partner_hand"] == hands[3]
    assert view["hand_sizes"] == [6, 6, 6, 6]
    assert "hands" not in view
    assert player_view(new_game(NAMES[:4], seed=3), 2)["partner_hand"] is None


def test_r2_5_partners_act_as_one_side_on_a_ship():
    # Cy (team 1) attacks in Blue; her partner Dee may only add Blue there.
    deck = build_deck([["M5", "M2", "M2", "M2", "M2", "M2"], ["K1", "K2", "K2", "K3", "K3", "K4"],
                       ["B2", "B1", "M3", "M4", "M4", "M4"], ["B1", "R1", "R2", "M4", "M4", "M5"]])
    state = new_game(NAMES[:4], teams=True, deck=deck)
    state, _ = play(state, "M5", "draw", "B2 on 1")
    moves = player_view(state, 3)["legal_moves"]
    assert {"action": "play", "card": "B1", "target": 1} in moves
    assert {"action": "play", "card": "R1", "target": 1} not in moves
    side = player_view(state, 3)["table"][0]["sides"][0]
    assert side["side"] == 1 and side["seats"] == [2, 3] and side["colour"] == "blue"
