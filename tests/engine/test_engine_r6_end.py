"""R6: the end of the game, the final settlement, scores and winners."""
import pytest

from engine import IllegalMove, Options, apply_move, legal_moves, player_view, scores, \
    team_scores, winners
from engine.testing import play, position

ANN_BOB = ["Ann", "Bob"]
NAMES = ["Ann", "Bob", "Cy", "Dee"]


def test_r6_1_the_game_ends_at_once_when_the_pile_is_empty_and_a_hand_is_empty():
    state = position(ANN_BOB, [["M5"], ["B2", "R3"]], pile=["G1"])
    state, events = play(state, "M5")
    assert not state.finished  # one card left to draw
    state, events = play(state, "draw")  # any action, a draw too, can end the game
    assert state.finished and state.to_move is None
    assert events[-1].kind == "game_over"
    assert legal_moves(state) == [] and legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="The game is over."):
        apply_move(state, 0, {"action": "draw"})


def test_r6_1_the_game_goes_on_while_every_hand_holds_cards():
    state = position(ANN_BOB, [["G1", "G2"], ["B2", "R3"]])
    state, _ = play(state, "discard G1", "discard B2")
    assert not state.finished
    state, events = play(state, "discard G2")
    assert state.finished and events[-1].kind == "game_over"


def test_r6_2_final_settlement_gives_every_ship_to_who_would_capture_it_in_table_order():
    table = [{"owner": 0, "value": 5, "cards": [[1, "B3"]]},  # Bob is strongest
             {"owner": 1, "value": 2},  # unattacked: to its owner
             {"owner": 0, "value": 4, "cards": [[0, "G2"], [1, "R2"]]},  # a tie
             {"owner": 1, "value": 3, "cards": [[1, "K1"], [0, "G1"], [0, "GC"]]}]  # captain
    state = position(["Ann", "Bob", "Cy"], [["B1"], ["M6", "B2"], ["R1"]], table=table,
                     to_move=2)
    state, events = play(state, "discard R1")
    settled = [(e.seat, e.ship, e.value) for e in events if e.kind == "capture"]
    assert settled == [(1, 1, 5), (1, 2, 2), (0, 4, 3)]
    assert all(e.settlement for e in events if e.kind == "capture")
    assert [s["id"] for s in player_view(state, 0)["table"]] == [3]  # the tie goes to nobody
    assert scores(state) == [3, 5 + 2 - 6, 0]


def test_r6_2_without_settlement_ships_left_on_the_table_score_for_nobody():
    table = [{"owner": 0, "value": 5, "cards": [[1, "B3"]]}, {"owner": 1, "value": 2}]
    state = position(ANN_BOB, [["B1"], ["M6"]], table=table,
                     options=Options(end_settlement="none"))
    state, events = play(state, "discard B1")
    assert [e.kind for e in events] == ["discard", "game_over"]
    assert len(player_view(state, 0)["table"]) == 2
    assert scores(state) == [0, -6]


def test_r6_2_in_team_play_the_settlement_goes_to_the_partner_who_led():
    table = [{"owner": 0, "value": 5, "cards": [[3, "B1"], [2, "B2"]]}]
    state = position(NAMES, [["G1"], ["G2"], ["R1"], ["R2"]], teams=True, table=table,
                     to_move=0)
    state, events = play(state, "discard G1")
    assert [(e.seat, e.ship) for e in events if e.kind == "capture"] == [(3, 1)]


def test_r6_3_score_is_gold_captured_minus_gold_in_hand_also_while_running():
    state = position(ANN_BOB, [["M4", "B1"], ["M2"]], pile=["G1"],
                     score_piles=[[5, 3], [2]])
    assert scores(state) == [8 - 4, 2 - 2]
    assert team_scores(state) is None


def test_r6_3_i5_a_view_shows_every_reader_the_same_public_scores_and_only_its_own_hand_cost():
    # A running score (captured minus hand) would tell Bob the gold in Ann's hand: every reader
    # sees the captured gold of every side, and beside it what its own hand would cost.
    state = position(ANN_BOB, [["M4", "B1"], ["M2"]], pile=["G1"],
                     score_piles=[[5, 3], [2]])
    assert player_view(state, 0)["scores"] == player_view(state, 1)["scores"] == [8, 2]
    assert player_view(state, 0)["hand_penalty"] == [4, None]
    assert player_view(state, 1)["hand_penalty"] == [None, 2]
    assert player_view(state, 1)["captured_gold"] == [8, 2]
    teams = position(NAMES, [["M4"], ["B1"], ["M2"], ["G1"]], pile=["G2"],
                     score_piles=[[5], [3, 2], [6], []], teams=True)
    assert player_view(teams, 1)["scores"] == player_view(teams, 2)["scores"] == [5, 5, 6, 0]
    assert player_view(teams, 1)["team_scores"] == player_view(teams, 2)["team_scores"] == [10, 6]
    assert player_view(teams, 1)["hand_penalty"] == [4, 0, None, None]


def test_r6_3_a_team_scores_the_sum_of_its_two_players():
    state = position(NAMES, [["M4"], ["B1"], ["M2"], ["G1"]], pile=["G2"],
                     score_piles=[[5], [3, 2], [6], []], teams=True)
    assert scores(state) == [1, 5, 4, 0]
    assert team_scores(state) == [6, 4]


def test_r6_4_the_highest_score_wins():
    state = position(ANN_BOB, [["B1"], ["G1"]], score_piles=[[5], [3]])
    assert winners(state) == []  # not while the game runs
    state, events = play(state, "discard B1")
    assert winners(state) == [0]
    assert events[-1].to_json() == {"kind": "game_over", "scores": [5, 3],
                                    "team_scores": None, "winners": [0]}


def test_r6_4_equal_highest_scores_share_the_win():
    state = position(["Ann", "Bob", "Cy"], [["B1"], ["G1"], ["R1"]],
                     score_piles=[[5], [3, 2], [4]])
    state, _ = play(state, "discard B1")
    assert winners(state) == [0, 1]


def test_r6_4_in_team_play_winners_are_team_indices():
    state = position(NAMES, [["G1"], ["G2"], ["R1"], ["R2"]], teams=True,
                     score_piles=[[2], [2], [5], []])
    state, events = play(state, "discard G1")
    assert winners(state) == [1]
    assert events[-1].to_json()["team_scores"] == [4, 5]
