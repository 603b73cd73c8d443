"""What the engine tells the service so it does not re-derive rules: attacks, colours, winners."""
import pytest

from engine import FULL_DECK, apply_move, colour_of, legal_moves, new_game, player_view, \
    winner_names, winners
from engine.testing import build_deck, play

TEAM = ["Ann", "Bob", "Cy", "Dee"]


def finished(players, teams, seed):
    state = new_game(players, teams=teams, seed=seed)
    while not state.finished:
        state, _ = apply_move(state, state.to_move, legal_moves(state)[0])
    return state


def test_an_attack_event_says_it_hit_another_sides_ship():
    hands = [["M5", "M4", "G1", "M2", "M2", "M2"], ["G2", "G3", "G4", "M3", "M3", "M3"],
             ["B1", "B2", "B3", "BC", "M3", "M3"], ["R1", "R2", "R3", "R4", "M4", "M4"]]
    state = new_game(TEAM, teams=True, deck=build_deck(hands))
    state, _ = play(state, "M5")
    state, partner = play(state, "G2 on 1")  # Bob on his partner Ann's ship: no attack
    state, enemy = play(state, "B1 on 1")  # Cy: an attack
    state, _ = play(state, "draw")
    state, own = play(state, "G1 on 1")  # Ann defends her own ship
    assert [e.attack for e in partner + enemy + own[:1]] == [False, True, False]
    assert enemy[0].to_json()["attack"] is True and partner[0].to_json()["attack"] is False


def test_an_event_stored_before_the_attack_flag_reads_as_no_attack():
    from engine import Event
    old = {"kind": "pirate", "seat": 1, "card": "B3", "ship": 1, "owner": 0, "value": 5}
    assert Event.from_json(old).attack is False


@pytest.mark.parametrize("code, colour", [
    ("G1", "green"), ("B4", "blue"), ("R2", "red"), ("K3", "black"), ("KC", "black"),
    ("GC", "green"), ("AD", "white"), ("M2", "merchant"), ("M8", "merchant")])
def test_colour_of_names_the_colour_of_a_card(code, colour):
    assert colour_of(code) == colour


def test_colour_of_every_card_code():
    words = {"G": "green", "B": "blue", "R": "red", "K": "black", "A": "white", "M": "merchant"}
    for code in set(FULL_DECK):
        assert colour_of(code) == words[code[0]]
    with pytest.raises(ValueError):
        colour_of("X1")


def test_winner_names_in_individual_play_are_seat_names():
    players = ["Ann", "Bob", "Cy"]
    state = finished(players, False, seed=3)
    expected = [players[s] for s in winners(state)]
    assert expected and winner_names(state) == expected
    assert winner_names(player_view(state, 0)) == expected
    you = ["you", "Bob", "Cy"]
    assert winner_names(player_view(state, 0), you) == [you[s] for s in winners(state)]


def test_winner_names_in_team_play_join_the_partners():
    state = finished(TEAM, True, seed=5)
    expected = [f"{TEAM[2 * t]} & {TEAM[2 * t + 1]}" for t in winners(state)]
    assert expected and winner_names(state) == expected
    assert winner_names(player_view(state, 3)) == expected
    assert winner_names({"players": TEAM, "teams": True, "winners": [1]}) == ["Cy & Dee"]


def test_winner_names_are_empty_while_the_game_runs():
    state = new_game(TEAM, teams=True, seed=1)
    assert winner_names(state) == [] and winner_names(player_view(state, 0)) == []
