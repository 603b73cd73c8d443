"""player_view and admin_view: the documented shape, and nothing secret (I5)."""
import json

from engine import admin_view, new_game, player_view
from engine.testing import build_deck, play

VIEW_KEYS = {"seat", "players", "teams", "team_of", "partner", "version", "to_move",
             "finished", "hand", "partner_hand", "hand_sizes", "draw_pile", "table",
             "score_piles", "scores", "team_scores", "winners", "legal_moves"}
SHIP_KEYS = {"id", "owner", "value", "on_hold_for", "sides", "leader", "strongest_side"}
SIDE_KEYS = {"side", "seats", "colour", "strength", "cards", "lead_seat"}


def test_player_view_has_the_documented_shape_and_is_json():
    state = new_game(["Ann", "Bob", "Cy", "Dee"], teams=True,
                     deck=build_deck([["M5", "M2", "M2", "M2", "M2", "M2"],
                                      ["K1", "K2", "K2", "K3", "K3", "K4"],
                                      ["B2", "M3", "M3", "M3", "M3", "M3"],
                                      ["BC", "M4", "M4", "M4", "M4", "M4"]]))
    state, _ = play(state, "M5", "draw", "B2 on 1", "BC on 1")
    view = player_view(state, 3)
    json.dumps(view)
    assert VIEW_KEYS <= set(view)
    assert view["seat"] == 3 and view["partner"] == 2 and view["team_of"] == [0, 0, 1, 1]
    ship = view["table"][0]
    assert SHIP_KEYS <= set(ship)
    assert SIDE_KEYS == set(ship["sides"][0])
    assert ship["sides"][0] == {"side": 1, "seats": [2, 3], "colour": "blue", "strength": 2,
                                "cards": ["B2", "BC"], "lead_seat": 2}
    assert ship["leader"] == {"card": "BC", "seat": 3, "side": 1}
    assert ship["strongest_side"] == 1 and ship["on_hold_for"] is None
    assert view["legal_moves"] == [] and view["to_move"] == 0
    assert player_view(state, 0)["legal_moves"]


def test_a_view_holds_no_other_hand_and_no_pile_order():
    state = new_game(["Ann", "Bob", "Cy"], seed=8)
    view = player_view(state, 1)
    hands = admin_view(state)["hands"]
    assert "hands" not in view and view["partner_hand"] is None
    assert view["hand"] == hands[1]
    assert isinstance(view["draw_pile"], int)
    assert set(view) - VIEW_KEYS <= {"options", "captured_gold", "hand_merchants", "hand_penalty",
                                     "out_of_game"}


def test_admin_view_adds_every_hand():
    state = new_game(["Ann", "Bob"], seed=8)
    view = admin_view(state)
    assert [len(h) for h in view["hands"]] == [6, 6]
    assert view["legal_moves"]
