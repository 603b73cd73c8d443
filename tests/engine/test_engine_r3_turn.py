"""R3: a turn is the capture check, then exactly one action."""
import pytest

from engine import IllegalMove, admin_view, apply_move, check_move, is_legal, legal_moves, \
    new_game, normalize_move, player_view, state_to_json
from engine.testing import build_deck, play, position

ANN_BOB = ["Ann", "Bob"]
QUIET = ["K1", "K2", "K2", "K3", "K3", "K4"]  # a hand that only ever draws here


def draw_move():
    return {"action": "draw"}


def test_r3_1_capture_check_first_then_one_action():
    state = new_game(ANN_BOB, deck=build_deck([["M5", "G1", "G2", "G2", "G3", "G3"], QUIET]))
    state, _ = play(state, "M5")
    state, events = apply_move(state, 1, draw_move())
    # Bob's one action, then Ann's capture check already done: her ship came home.
    assert [e.kind for e in events] == ["draw", "capture"]
    assert events[1].seat == 0 and events[1].owner == 0 and events[1].value == 5
    assert state.to_move == 0 and state.version == 2
    assert player_view(state, 0)["table"] == []


def test_r3_1_draw_takes_the_top_card_of_the_draw_pile():
    state = new_game(ANN_BOB, deck=build_deck([QUIET, QUIET[::-1]], pile=["AD", "M8"]))
    state, events = play(state, "draw")
    assert "AD" in admin_view(state)["hands"][0]
    assert events[0].to_json() == {"kind": "draw", "seat": 0}  # never the card
    assert player_view(state, 0)["draw_pile"] == 78 - 12 - 1


def test_r3_1_no_draw_from_an_empty_draw_pile():
    state = position(ANN_BOB, [["G1", "G2"], ["B1"]])
    assert draw_move() not in legal_moves(state)
    with pytest.raises(IllegalMove, match="The draw pile is empty"):
        check_move(state, 0, draw_move())


def test_r3_1_a_merchant_ship_may_always_be_played():
    state = new_game(ANN_BOB, deck=build_deck([["M2", "G1", "G2", "G2", "G3", "G3"], QUIET]))
    assert {"action": "play", "card": "M2"} in legal_moves(state)
    empty_pile = position(ANN_BOB, [["M2", "G1"], ["B1"]])
    assert {"action": "play", "card": "M2"} in legal_moves(empty_pile)


def test_r3_1_discard_only_when_the_draw_pile_is_empty():
    state = new_game(ANN_BOB, deck=build_deck([["M2", "G1", "G2", "G2", "G3", "G3"], QUIET]))
    with pytest.raises(IllegalMove, match="only when the draw pile is empty"):
        check_move(state, 0, {"action": "discard", "card": "G1"})
    late = position(ANN_BOB, [["G1", "G2"], ["B1", "B2"]])
    assert {"action": "discard", "card": "G1"} in legal_moves(late)
    after, events = apply_move(late, 0, {"action": "discard", "card": "G1"})
    assert events[0].to_json() == {"kind": "discard", "seat": 0, "card": "G1"}
    assert "G1" in state_to_json(after)["out"]  # out of the game


def test_r3_1_a_merchant_ship_is_never_discarded():
    late = position(ANN_BOB, [["M4", "G2"], ["B1", "B2"]])
    assert {"action": "discard", "card": "M4"} not in legal_moves(late)
    with pytest.raises(IllegalMove, match="cannot be discarded"):
        check_move(late, 0, {"action": "discard", "card": "M4"})


def test_r3_2_there_is_no_pass():
    with pytest.raises(IllegalMove, match="Unknown action 'pass'"):
        normalize_move({"action": "pass"})


def test_r3_2_there_is_no_hand_limit():
    state = new_game(ANN_BOB, seed=5)
    for _ in range(30):
        state, _ = play(state, "draw")
    assert player_view(state, 0)["hand_sizes"] == [21, 21]


def test_r3_2_with_an_empty_pile_and_only_merchant_ships_one_must_be_played():
    state = position(ANN_BOB, [["M2", "M5", "M5"], ["B1", "B2"]])
    assert legal_moves(state) == [{"action": "play", "card": "M2"},
                                  {"action": "play", "card": "M5"}]


def test_r3_3_ships_are_numbered_in_play_order_and_numbers_are_never_reused():
    state = new_game(ANN_BOB, deck=build_deck([["M5", "M4", "M3", "G1", "G2", "G3"],
                                               ["M2", "K1", "K2", "K2", "K3", "K3"]]))
    state, events = play(state, "M5", "M2")
    assert [(e.kind, e.ship, e.value) for e in events] == [
        ("merchant", 1, 5), ("merchant", 2, 2), ("capture", 1, 5)]
    state, events = play(state, "M4")  # ship 1 is gone, yet the new ship is number 3
    assert events[0].kind == "merchant" and events[0].ship == 3
    assert [s["id"] for s in player_view(state, 0)["table"]] == [3]  # Bob took ship 2 home


def test_r3_4_only_the_player_to_move_may_act():
    state = new_game(ANN_BOB, seed=2)
    before = state_to_json(state)
    with pytest.raises(IllegalMove, match="It is Ann's turn, not yours."):
        apply_move(state, 1, draw_move())
    assert state_to_json(state) == before
    assert legal_moves(state, 1) == []
    assert not is_legal(state, 1, draw_move())


@pytest.mark.parametrize("move, words", [
    ("draw", "must be an object"),
    ({"action": "fly"}, "Unknown action 'fly'"),
    ({"action": "play"}, "Say which card to play"),
    ({"action": "play", "card": "Z7"}, "Unknown card 'Z7'"),
    ({"action": "play", "card": "B3"}, "Say which ship to play the Blue 3 on"),
    ({"action": "play", "card": "B3", "target": "3"}, "ship number"),
    ({"action": "play", "card": "B3", "target": True}, "ship number"),
    ({"action": "play", "card": "M5", "target": 1}, "name no ship"),
    ({"action": "draw", "card": "B3"}, "name no card"),
    ({"action": "discard", "card": "B3", "target": 2}, "name no ship"),
])
def test_malformed_moves_are_refused_with_a_readable_message(move, words):
    with pytest.raises(IllegalMove, match=words):
        normalize_move(move)


def test_normalized_moves_compare_equal_as_dicts():
    assert normalize_move({"action": "play", "card": "B3", "target": 2, "player": 1}) == \
        {"action": "play", "card": "B3", "target": 2}
    assert normalize_move({"action": "play", "card": "M5", "target": None}) == \
        {"action": "play", "card": "M5"}


def test_an_illegal_move_leaves_the_state_unchanged():
    state = new_game(ANN_BOB, deck=build_deck([["M5", "G1", "G2", "G2", "G3", "G3"], QUIET]))
    before = state_to_json(state)
    for move, words in [
        ({"action": "play", "card": "AD", "target": 1}, "You have no Admiral in your hand."),
        ({"action": "play", "card": "G1", "target": 4}, "There is no ship 4 on the table."),
        ({"action": "play", "card": "G1", "target": 99}, "There is no ship 99 on the table."),
    ]:
        with pytest.raises(IllegalMove) as exc:
            apply_move(state, 0, move)
        assert str(exc.value) == words
    assert state_to_json(state) == before
    with pytest.raises(IllegalMove, match="no seat 5"):
        apply_move(state, 5, draw_move())
