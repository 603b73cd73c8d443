"""Our decisions where the rules are silent (docs/rules-decisions.md)."""
import pytest

from engine import IllegalMove, check_move, legal_moves, new_game
from engine.testing import build_deck, play

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def team_game(*hands):
    return new_game(NAMES, teams=True, deck=build_deck(list(hands)))


def captures(events):
    return [(e.seat, e.ship) for e in events if e.kind == "capture"]


def test_admiral_only_on_a_ship_the_player_owns_not_the_partners():
    state = team_game(["M5", "M2", "M2", "M2", "M2", "M2"], ["AD", "K1", "K2", "K2", "K3", "K3"])
    state, _ = play(state, "M5")
    with pytest.raises(IllegalMove, match="ship 1 is Ann's"):
        check_move(state, 1, {"action": "play", "card": "AD", "target": 1})


def test_captain_may_join_the_partners_pirates_of_its_colour():
    state = team_game(["M5", "M2", "M2", "M2", "M2", "M2"], ["K1", "K2", "K2", "K3", "K3", "K4"],
                      ["B1", "M3", "M3", "M3", "M3", "M3"], ["BC", "M4", "M4", "M4", "M4", "M4"])
    state, _ = play(state, "M5", "draw", "B1 on 1")
    assert {"action": "play", "card": "BC", "target": 1} in legal_moves(state)
    state, events = play(state, "BC on 1", "draw")  # Dee's, Ann's, Bob's turns: not taken
    assert captures(events) == []
    state, events = play(state, "draw")  # Cy led team 1 on ship 1: her turn takes it
    assert captures(events) == [(2, 1)]


def test_admiral_lead_stays_with_the_partner_who_led_the_owners_team():
    state = team_game(["M5", "AD", "M2", "M2", "M2", "M2"], ["G1", "K1", "K2", "K2", "K3", "K3"],
                      ["B3", "M3", "M3", "M3", "M3", "M3"], ["M4", "M4", "M4", "M4", "M4", "R1"])
    state, _ = play(state, "M5", "G1 on 1", "B3 on 1", "draw")
    state, events = play(state, "AD on 1")  # Ann's admiral; Bob led team 0 on ship 1
    assert captures(events) == [(1, 1)]  # so Bob takes it, as his turn starts right away


def test_admiral_leads_for_the_owner_when_the_team_had_no_card_there():
    state = team_game(["M5", "AD", "M2", "M2", "M2", "M2"], ["K1", "K2", "K2", "K3", "K3", "K4"],
                      ["B3", "M3", "M3", "M3", "M3", "M3"], ["M4", "M4", "M4", "M4", "M4", "R1"])
    state, _ = play(state, "M5", "draw", "B3 on 1", "draw")
    state, events = play(state, "AD on 1", "draw", "draw", "draw")
    assert captures(events) == [(0, 1)]


def test_legal_moves_come_in_a_fixed_order_each_once():
    # Ann holds two M2 and two G2: each move is listed once.
    state = new_game(NAMES[:2], deck=build_deck([["M2", "M2", "G2", "G2", "M5", "B1"],
                                                 ["R1", "K1", "K2", "K2", "K3", "K3"]]))
    assert legal_moves(state) == [{"action": "draw"}, {"action": "play", "card": "M2"},
                                  {"action": "play", "card": "M5"}]
    state, _ = play(state, "M5", "R1 on 1")
    assert legal_moves(state) == [
        {"action": "draw"}, {"action": "play", "card": "M2"},
        {"action": "play", "card": "G2", "target": 1},
        {"action": "play", "card": "B1", "target": 1}]
