"""R7: the waiting-time house rule (2 or 3 players, off by default)."""
import pytest

from engine import ConfigError, Options, new_game, player_view
from engine.testing import build_deck, play, position

NAMES = ["Ann", "Bob", "Cy", "Dee"]
WAIT = Options(waiting_time=True)
HANDS = [["M5", "R1", "R4", "R1", "M2", "M2"], ["B3", "K1", "K2", "K2", "K3", "K3"],
         ["G2", "G3", "M3", "M3", "M3", "M3"]]


def ship_1(state):
    return player_view(state, 0)["table"][0]


def captures(events):
    return [(e.seat, e.ship) for e in events if e.kind == "capture"]


def test_r7_a_weaker_first_pirate_puts_the_ship_on_hold_until_that_players_next_turn():
    state = new_game(NAMES[:2], options=WAIT, deck=build_deck(HANDS[:2]))
    state, _ = play(state, "M5", "B3 on 1")
    state, events = play(state, "R1 on 1")  # Ann's first pirate: 1 against 3
    assert events[1].to_json() == {"kind": "hold", "ship": 1, "seat": 0}
    assert captures(events) == []  # Bob's turn: the ship waits
    assert ship_1(state)["on_hold_for"] == 0
    state, events = play(state, "draw")  # Ann's turn: the hold is lifted
    assert ship_1(state)["on_hold_for"] is None and captures(events) == []
    state, events = play(state, "R4 on 1", "draw")  # Ann caught up: 5 against 3
    assert captures(events) == [(0, 1)]


def test_r7_later_cards_of_the_same_side_never_put_the_ship_on_hold_again():
    state = new_game(NAMES[:2], options=WAIT, deck=build_deck(HANDS[:2]))
    state, _ = play(state, "M5", "B3 on 1", "R1 on 1", "draw")
    state, events = play(state, "R1 on 1")  # still weaker, 2 against 3, but not her first
    assert "hold" not in [e.kind for e in events]
    assert captures(events) == [(1, 1)]


def test_r7_without_the_option_there_is_no_hold():
    state = new_game(NAMES[:2], deck=build_deck(HANDS[:2]))
    state, _ = play(state, "M5", "B3 on 1")
    state, events = play(state, "R1 on 1")
    assert captures(events) == [(1, 1)]


def test_r7_a_later_hold_replaces_an_earlier_one():
    state = new_game(NAMES[:3], options=WAIT, deck=build_deck(HANDS))
    state, _ = play(state, "M5", "B3 on 1", "G2 on 1")  # Cy: on hold for Cy
    assert ship_1(state)["on_hold_for"] == 2
    state, _ = play(state, "R1 on 1")  # Ann's first pirate, weaker: now on hold for Ann
    assert ship_1(state)["on_hold_for"] == 0
    state, events = play(state, "draw")  # Bob drew; Cy's turn does not lift Ann's hold
    assert captures(events) == [] and ship_1(state)["on_hold_for"] == 0
    state, events = play(state, "draw")  # Ann's turn starts: lifted (Bob leads, not Ann)
    assert captures(events) == [] and ship_1(state)["on_hold_for"] is None
    state, events = play(state, "draw")  # Bob's turn: he takes it
    assert captures(events) == [(1, 1)]


def test_r7_holds_do_not_count_in_the_final_settlement():
    table = [{"owner": 0, "value": 5, "cards": [[1, "B3"], [0, "R1"]], "hold": 0}]
    state = position(NAMES[:2], [["G1"], ["G2"]], table=table, options=WAIT, to_move=1)
    assert ship_1(state)["on_hold_for"] == 0
    state, events = play(state, "discard G2")
    assert captures(events) == [(1, 1)] and events[0].kind == "discard"


@pytest.mark.parametrize("n, teams", [(4, False), (5, False), (4, True), (6, True)])
def test_r7_waiting_time_only_for_two_or_three_players(n, teams):
    with pytest.raises(ConfigError, match="waiting time"):
        new_game([f"P{i}" for i in range(n)], teams=teams, seed=1, options=WAIT)


def test_r7_waiting_time_is_off_by_default():
    assert Options().waiting_time is False and Options().end_settlement == "resolve"
