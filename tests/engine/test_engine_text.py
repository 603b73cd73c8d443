"""Human text: every card, move and event in plain English, colours written out."""
import pytest

from engine import Event, FULL_DECK, card_name, describe_event, describe_move, legal_moves, \
    new_game, player_view
from engine.testing import build_deck, play

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def view_with_ship_of(owner_seat, viewer, teams=False):
    return {"seat": viewer, "players": NAMES, "partner": (viewer ^ 1) if teams else None,
            "table": [{"id": 3, "owner": owner_seat, "value": 5}]}


@pytest.mark.parametrize("move, viewer, owner, text", [
    ({"action": "draw"}, 0, 1, "Draw a card"),
    ({"action": "play", "card": "M5"}, 0, 1, "Play your merchant ship (5 gold)"),
    ({"action": "play", "card": "B3", "target": 3}, 0, 1,
     "Attack Bob's ship 3 (5 gold) with Blue 3"),
    ({"action": "play", "card": "B3", "target": 3}, 0, 0,
     "Defend your ship 3 (5 gold) with Blue 3"),
    ({"action": "play", "card": "BC", "target": 3}, 0, 1,
     "Play the Blue captain on Bob's ship 3 (5 gold)"),
    ({"action": "play", "card": "AD", "target": 3}, 0, 0,
     "Play the Admiral on your ship 3 (5 gold)"),
    ({"action": "discard", "card": "G1"}, 0, 1, "Discard Green 1"),
    ({"action": "play", "card": "K2", "target": 3}, 2, 1,
     "Attack Bob's ship 3 (5 gold) with Black 2"),
])
def test_describe_move(move, viewer, owner, text):
    assert describe_move(move, view_with_ship_of(owner, viewer)) == text


def test_describe_move_defending_the_partners_ship():
    view = view_with_ship_of(1, 0, teams=True)
    assert describe_move({"action": "play", "card": "R2", "target": 3}, view) == \
        "Defend Bob's ship 3 (5 gold) with Red 2"


def test_every_card_has_a_name_without_colour_letters():
    for code in set(FULL_DECK):
        name = card_name(code)
        assert name and name != code


def test_every_legal_move_of_a_real_view_has_a_description():
    state = new_game(NAMES[:2], deck=build_deck([["M5", "AD", "G1", "G2", "GC", "M2"],
                                                 ["B3", "K1", "K2", "K2", "K3", "K3"]]))
    state, _ = play(state, "M5", "B3 on 1")
    view = player_view(state, 0)
    texts = [describe_move(m, view) for m in legal_moves(state)]
    assert "Play the Admiral on your ship 1 (5 gold)" in texts
    assert "Defend your ship 1 (5 gold) with Green 2" in texts


@pytest.mark.parametrize("event, viewer, text", [
    (Event("draw", seat=1), 0, "Bob drew a card."),
    (Event("draw", seat=0), 0, "You drew a card."),
    (Event("merchant", seat=1, ship=3, value=5), 0,
     "Bob played a merchant ship: ship 3 (5 gold)."),
    (Event("pirate", seat=1, card="B3", ship=3, owner=0, value=5), 0,
     "Bob played Blue 3 on your ship 3 (5 gold)."),
    (Event("captain", seat=2, card="RC", ship=3, owner=0, value=5, replaced="BC"), 1,
     "Cy played the Red captain on Ann's ship 3 (5 gold). "
     "The Blue captain it replaces is out of the game."),
    (Event("admiral", seat=0, ship=3, value=5, replaced=None), 0,
     "You played the Admiral on your ship 3 (5 gold)."),
    (Event("discard", seat=3, card="K4"), 0, "Dee discarded Black 4."),
    (Event("capture", seat=1, ship=3, owner=0, value=5), 2, "Bob captured Ann's ship 3 (5 gold)."),
    (Event("capture", seat=1, ship=3, owner=0, value=5), 0, "Bob captured your ship 3 (5 gold)."),
    (Event("capture", seat=0, ship=3, owner=0, value=5, settlement=True), 0,
     "Final settlement: Your ship 3 (5 gold) came home safely: you score 5 gold."),
    (Event("capture", seat=0, ship=3, owner=0, value=5), 1,
     "Ann's ship 3 (5 gold) came home safely, scoring 5 gold."),
    (Event("pirate", seat=1, card="B3", ship=3, owner=1, value=5), 0,
     "Bob played Blue 3 on their own ship 3 (5 gold)."),
    (Event("admiral", seat=2, ship=3, owner=2, value=5, replaced=None), 0,
     "Cy played the Admiral on their own ship 3 (5 gold)."),
    (Event("hold", ship=3, seat=1), 0, "Ship 3 is on hold until Bob's next turn."),
    (Event("game_over", scores=(12, 8, 12), team_scores=None, winners=(0, 2)), 0,
     "The game is over. Final gold: you 12, Bob 8, Cy 12. You and Cy share the win."),
    (Event("game_over", scores=(3, 4, 9, 1), team_scores=(7, 10), winners=(1,)), None,
     "The game is over. Final gold: Ann and Bob 7, Cy and Dee 10. Cy and Dee won."),
])
def test_describe_event(event, viewer, text):
    assert describe_event(event, NAMES, viewer) == text
    assert describe_event(event.to_json(), NAMES, viewer) == text


def test_events_round_trip_through_json():
    e = Event("game_over", scores=(1, 2), team_scores=None, winners=(1,))
    assert Event.from_json(e.to_json()) == e
    assert e.to_json() == {"kind": "game_over", "scores": [1, 2], "team_scores": None,
                           "winners": [1]}
