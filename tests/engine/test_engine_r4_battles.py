"""R4: pirates, colours, captains and the admiral."""
import pytest

from engine import IllegalMove, apply_move, check_move, legal_moves, new_game, player_view, \
    state_to_json
from engine.testing import build_deck, move_from_text, play

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve"]

# Three players. Ann owns the ships; Bob and Cy fight over them.
ANN = ["M5", "M4", "AD", "G1", "G3", "M2"]
BOB = ["B3", "B1", "R1", "BC", "B4", "M3"]
CY = ["B2", "R4", "R2", "RC", "KC", "M3"]


def three_player_game():
    return new_game(NAMES[:3], deck=build_deck([ANN, BOB, CY]))


def refused(state, move_text):
    """The message the rules give for a move of the seat to move."""
    with pytest.raises(IllegalMove) as exc:
        check_move(state, state.to_move, move_from_text(move_text))
    return str(exc.value)


def ship(state, ship_id, seat=0):
    return next(s for s in player_view(state, seat)["table"] if s["id"] == ship_id)


def test_r4_1_a_pirate_attacks_any_merchant_ship_on_the_table_own_included():
    state, _ = play(three_player_game(), "M5", "B3 on 1")
    moves = legal_moves(state)
    assert {"action": "play", "card": "R2", "target": 1} in moves  # Cy attacks Ann's ship
    state, _ = play(state, "draw")
    assert {"action": "play", "card": "G1", "target": 1} in legal_moves(state)  # Ann's own


def test_r4_1_pirates_stay_on_the_ship_until_it_is_captured():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw")
    assert [side["cards"] for side in ship(state, 1)["sides"]] == [["B3"], ["R4"]]
    state, events = play(state, "draw")  # Cy's turn starts: she is strongest and takes it
    assert events[-1].kind == "capture" and events[-1].seat == 2
    assert player_view(state, 0)["table"] == []


def test_r4_2_second_side_needs_a_free_colour():
    state, _ = play(three_player_game(), "M5", "B3 on 1")
    assert refused(state, "B2 on 1") == \
        "Blue is already fighting for ship 1: attack it with another colour."
    assert {"action": "play", "card": "B2", "target": 1} not in legal_moves(state)
    state, _ = play(state, "R4 on 1")
    assert [(s["side"], s["colour"]) for s in ship(state, 1)["sides"]] == \
        [(1, "blue"), (2, "red")]


def test_r4_2_later_pirates_of_a_side_keep_its_colour():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw")
    assert refused(state, "R1 on 1") == "You already fight for ship 1 with Blue: play Blue there."
    state, _ = play(state, "B1 on 1")
    assert ship(state, 1)["sides"][0]["cards"] == ["B3", "B1"]


def test_r4_2_a_colour_is_reserved_only_on_that_ship():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "draw", "M4")
    assert {"action": "play", "card": "B1", "target": 2} in legal_moves(state)  # Bob, ship 2
    state, _ = play(state, "draw")
    assert {"action": "play", "card": "B2", "target": 2} in legal_moves(state)  # Cy too


def test_r4_2_at_most_four_sides_fight_over_one_ship():
    hands = [["M5", "G2", "B2", "R2", "K2", "M2"], ["G1", "M3", "M3", "M3", "M3", "M3"],
             ["B1", "M4", "M4", "M4", "M4", "M4"], ["R1", "M5", "M5", "M5", "M5", "M6"],
             ["K1", "M6", "M7", "M8", "M2", "M2"]]
    state = new_game(NAMES, deck=build_deck(hands))
    state, _ = play(state, "M5", "G1 on 1", "B1 on 1", "R1 on 1", "K1 on 1")
    assert ship(state, 1)["strongest_side"] is None  # a tie: nobody takes it
    assert not [m for m in legal_moves(state) if m.get("target") == 1]  # no colour left for Ann
    assert refused(state, "G2 on 1") == \
        "Green is already fighting for ship 1: attack it with another colour."


def test_r4_3_any_strength_may_be_played_even_one_that_leaves_you_weaker():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw")
    state, _ = play(state, "B1 on 1")
    assert ship(state, 1)["strongest_side"] is None  # 4 against 4


def test_r4_4_a_sides_strength_is_the_sum_of_its_skulls():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw", "B1 on 1")
    assert [(s["side"], s["strength"]) for s in ship(state, 1)["sides"]] == [(1, 4), (2, 4)]


def test_r4_5_a_captain_needs_your_pirates_of_its_colour_on_that_ship():
    state, _ = play(three_player_game(), "M5", "B3 on 1")
    assert refused(state, "KC on 1") == \
        "The Black captain may only join Black pirates: you have no Black pirate on ship 1."
    assert refused(state, "RC on 1") == \
        "The Red captain may only join Red pirates: you have no Red pirate on ship 1."


def test_r4_5_a_captain_beats_any_total_of_pirates():
    state, _ = play(three_player_game(), "M5", "B1 on 1", "R4 on 1", "draw")
    state, events = play(state, "BC on 1")
    assert events[0].to_json() == {"kind": "captain", "seat": 1, "card": "BC", "ship": 1,
                                   "owner": 0, "value": 5, "replaced": None, "attack": True}
    assert ship(state, 1)["leader"] == {"card": "BC", "seat": 1, "side": 1}
    assert ship(state, 1)["strongest_side"] == 1
    state, events = play(state, "R2 on 1", "draw")  # Cy 6 skulls against Bob's 1: no matter
    assert events[-1].kind == "capture" and events[-1].seat == 1


def test_r4_6_the_admiral_only_on_a_ship_you_own():
    hands = [["M5", "G1", "M2", "M2", "M2", "M2"], ["AD", "M4", "K1", "K2", "K2", "K3"]]
    state = new_game(NAMES[:2], deck=build_deck(hands))
    state, _ = play(state, "M5")
    assert refused(state, "AD on 1") == \
        "The Admiral may only be played on your own ship; ship 1 is Ann's."
    state, _ = play(state, "M4", "G1 on 2")
    assert {"action": "play", "card": "AD", "target": 2} in legal_moves(state)


def test_r4_6_the_admiral_needs_no_pirates_of_the_owner_and_counts_for_the_owner():
    # An unattacked ship of yours comes home at the start of your turn (R5.1a), so in
    # practice the admiral joins a battle on your ship; you need no pirates there.
    state, _ = play(three_player_game(), "M5", "B1 on 1", "draw")
    state, _ = play(state, "AD on 1")
    assert ship(state, 1)["leader"] == {"card": "AD", "seat": 0, "side": 0}
    assert ship(state, 1)["sides"][0] == {"side": 0, "seats": [0], "colour": None,
                                          "strength": 0, "cards": ["AD"], "lead_seat": 0}
    state, events = play(state, "draw", "draw")
    assert events[-1].to_json() == {"kind": "capture", "seat": 0, "ship": 1, "owner": 0,
                                    "value": 5, "settlement": False}


def test_r4_6_the_admiral_beats_the_attackers_on_your_ship():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1")
    state, events = play(state, "AD on 1")
    assert events[0].to_json() == {"kind": "admiral", "seat": 0, "ship": 1, "value": 5,
                                   "replaced": None, "attack": False}
    state, events = play(state, "draw", "draw")
    assert events[-1].kind == "capture" and events[-1].seat == 0


def test_r4_7_a_new_captain_replaces_the_old_one_which_leaves_the_game():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw", "BC on 1")
    state, events = play(state, "RC on 1")
    assert events[0].replaced == "BC"
    assert ship(state, 1)["leader"] == {"card": "RC", "seat": 2, "side": 2}
    assert ship(state, 1)["sides"][0]["cards"] == ["B3"]
    assert "BC" in state_to_json(state)["out"]


def test_r4_7_pirates_added_after_a_captain_do_not_take_the_lead_back():
    state, _ = play(three_player_game(), "M5", "B1 on 1", "R2 on 1", "draw", "BC on 1")
    state, _ = play(state, "R4 on 1")
    assert [s["strength"] for s in ship(state, 1)["sides"]] == [1, 6]
    assert ship(state, 1)["strongest_side"] == 1  # Bob's captain beats 6 skulls
    state, events = play(state, "draw")
    assert events[-1].kind == "capture" and events[-1].seat == 1


def test_r4_7_the_admiral_replaces_a_captain_and_a_captain_the_admiral():
    state, _ = play(three_player_game(), "M5", "B3 on 1", "R4 on 1", "draw", "BC on 1",
                    "draw")
    state, events = play(state, "AD on 1")
    assert events[0].kind == "admiral" and events[0].replaced == "BC"
    state, events = play(state, "draw", "RC on 1")
    assert events[-1].kind == "captain" and events[-1].replaced == "AD"
    assert ship(state, 1)["leader"] == {"card": "RC", "seat": 2, "side": 2}
    out = state_to_json(state)["out"]
    assert "AD" in out and "BC" in out


def test_decision_apply_move_is_pure():
    state = three_player_game()
    before = state_to_json(state)
    new, _ = apply_move(state, 0, {"action": "play", "card": "M5"})
    assert state_to_json(state) == before and new != state
