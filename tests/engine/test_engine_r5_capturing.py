"""R5: the capture check at the start of each turn."""
from engine import legal_moves, new_game, player_view, state_to_json
from engine.testing import build_deck, play, position

NAMES = ["Ann", "Bob", "Cy", "Dee"]
QUIET = ["K1", "K2", "K2", "K3", "K3", "K4"]


def table_ids(state):
    return [s["id"] for s in player_view(state, 0)["table"]]


def captures(events):
    return [(e.seat, e.ship, e.value) for e in events if e.kind == "capture"]


def test_r5_1_a_an_unattacked_ship_comes_home_to_its_owner():
    state = new_game(NAMES[:2], deck=build_deck([["M5", "G1", "G2", "G2", "G3", "G3"], QUIET]))
    state, events = play(state, "M5", "draw")
    assert captures(events) == [(0, 1, 5)]
    assert player_view(state, 1)["score_piles"] == [[5], []]


def test_r5_1_b_the_strictly_strongest_side_takes_the_ship():
    hands = [["M5", "G1", "G2", "G2", "G3", "G3"], ["B3", "K1", "K2", "K2", "K3", "K3"]]
    state = new_game(NAMES[:2], deck=build_deck(hands))
    state, events = play(state, "M5", "B3 on 1", "draw")
    assert captures(events) == [(1, 1, 5)]  # at the start of Bob's turn, before his action
    assert state.to_move == 1 and table_ids(state) == []


def test_r5_1_several_ships_may_be_taken_at_once():
    table = [{"owner": 0, "value": 5, "cards": [[1, "B3"]]},
             {"owner": 1, "value": 2},
             {"owner": 0, "value": 4, "cards": [[0, "G1"], [1, "R2"]]},
             {"owner": 0, "value": 3, "cards": [[0, "G2"], [1, "K2"]]}]
    state = position(NAMES[:2], [["M6", "G3"], ["B1"]], pile=["G4"], table=table)
    state, events = play(state, "draw")
    assert captures(events) == [(1, 1, 5), (1, 2, 2), (1, 3, 4)]
    assert table_ids(state) == [4]  # the tie stays


def test_r5_2_a_tie_captures_nothing_until_one_side_is_strictly_strongest():
    hands = [["M5", "G1", "G2", "G2", "G3", "G3"], ["B3", "B1", "K2", "K2", "K3", "K3"],
             ["R3", "R1", "M2", "M2", "M2", "M2"]]
    state = new_game(NAMES[:3], deck=build_deck(hands))
    state, events = play(state, "M5", "B3 on 1", "R3 on 1", "draw", "draw", "draw", "draw",
                         "draw")  # Bob 3 against Cy 3 for a while
    assert captures(events) == [] and table_ids(state) == [1]
    state, events = play(state, "R1 on 1", "draw", "draw")  # Cy 4 against Bob 3
    assert captures(events) == [(2, 1, 5)]


def test_r5_3_the_merchant_ship_scores_and_the_other_cards_leave_the_game():
    hands = [["M5", "G1", "G2", "G2", "G3", "G3"], ["B3", "B1", "K2", "K2", "K3", "K3"],
             ["R1", "RC", "M2", "M2", "M2", "M2"]]
    state = new_game(NAMES[:3], deck=build_deck(hands))
    state, _ = play(state, "M5", "B1 on 1", "R1 on 1", "G1 on 1", "draw", "RC on 1", "draw",
                    "draw")
    data = state_to_json(state)
    assert data["score_piles"] == [[], [], [5]]
    assert sorted(data["out"]) == ["B1", "G1", "R1", "RC"]
    assert data["table"] == []


def test_r5_4_a_team_takes_a_ship_only_at_the_turn_of_the_partner_who_led():
    hands = [["M5", "M2", "M2", "M2", "M2", "M2"], QUIET,
             ["B2", "M3", "M4", "M4", "M4", "M4"], ["B1", "R1", "M3", "M3", "M3", "M3"]]
    state = new_game(NAMES, teams=True, deck=build_deck(hands))
    state, _ = play(state, "M5", "draw", "B2 on 1")  # Cy leads team 1 on ship 1
    state, events = play(state, "B1 on 1")  # Dee adds Blue; her turn did not take it
    assert captures(events) == []
    state, events = play(state, "draw", "draw")  # Ann, Bob; then Cy's turn starts
    assert captures(events) == [(2, 1, 5)]
    assert player_view(state, 0)["score_piles"] == [[], [], [5], []]


def test_r5_4_partners_keep_the_colour_their_team_has_on_a_ship():
    hands = [["M5", "M2", "M2", "M2", "M2", "M2"], QUIET,
             ["B2", "M3", "M4", "M4", "M4", "M4"], ["B1", "R1", "M3", "M3", "M3", "M3"]]
    state = new_game(NAMES, teams=True, deck=build_deck(hands))
    state, _ = play(state, "M5", "draw", "B2 on 1")
    assert {"action": "play", "card": "R1", "target": 1} not in legal_moves(state)


def test_r5_4_an_unattacked_ship_is_taken_only_by_its_owner():
    hands = [["M5", "M2", "M2", "M2", "M2", "M2"], QUIET, ["M3"] * 6,
             ["M4", "M4", "M4", "M4", "M4", "K1"]]
    state = new_game(NAMES, teams=True, deck=build_deck(hands))
    state, events = play(state, "M5")  # Bob's turn starts: his partner's ship stays
    assert captures(events) == [] and table_ids(state) == [1]
    state, events = play(state, "draw", "draw", "draw")
    assert captures(events) == [(0, 1, 5)]


def test_r5_4_a_partner_who_defends_first_takes_the_ship_for_the_team():
    hands = [["M5", "M2", "M2", "M2", "M2", "M2"], ["G1", "K1", "K2", "K2", "K3", "K3"],
             ["M3"] * 6, ["M4", "M4", "M4", "M4", "M4", "B1"]]
    state = new_game(NAMES, teams=True, deck=build_deck(hands))
    state, _ = play(state, "M5", "G1 on 1", "draw")
    state, events = play(state, "draw")  # Ann's turn starts: Bob led team 0 here, not Ann
    assert captures(events) == []
    state, events = play(state, "draw")
    assert captures(events) == [(1, 1, 5)]


def test_r5_5_the_owner_gets_an_attacked_ship_back_only_by_being_strictly_strongest():
    hands = [["M5", "G3", "G1", "M2", "M2", "M2"], ["B3", "K1", "K2", "K2", "K3", "K3"]]
    state = new_game(NAMES[:2], deck=build_deck(hands))
    state, events = play(state, "M5", "B3 on 1", "G3 on 1", "draw")
    assert captures(events) == []  # 3 against 3: Ann's own ship does not come home
    state, events = play(state, "G1 on 1", "draw")
    assert captures(events) == [(0, 1, 5)]


def test_decision_new_game_runs_the_first_capture_check():
    state = new_game(NAMES[:2], seed=9)
    assert state.version == 0 and state.to_move == 0 and table_ids(state) == []
