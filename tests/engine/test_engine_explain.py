"""engine.explain: the reasons agree with the rules (legal_moves, apply_move) in every game."""
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import admin_view, apply_move, legal_moves, new_game, player_view, scores
from engine.explain import Blocked, Outlook, blocked, outcome, outlook
from engine.testing import build_deck, play


def _targets_blocked(view) -> set[int]:
    reasons = blocked(view)
    if any(r.ship is None for r in reasons):
        return {s["id"] for s in view["table"]}
    return {r.ship for r in reasons}


def _random_state(seed: int, n: int, teams: bool, steps: int):
    rng = random.Random(seed)
    state = new_game([f"P{i}" for i in range(n)], teams=teams, seed=seed)
    for _ in range(steps):
        if state.finished:
            break
        state, _ = apply_move(state, state.to_move, rng.choice(legal_moves(state)))
    return state


GAMES = st.tuples(st.integers(0, 10_000), st.sampled_from([(2, False), (3, False), (4, True), (6, True)]),
                  st.integers(0, 60))


@settings(max_examples=150, deadline=None)
@given(GAMES)
def test_a_ship_is_explained_as_blocked_exactly_when_no_pirate_or_captain_can_go_on_it(game):
    seed, (n, teams), steps = game
    state = _random_state(seed, n, teams, steps)
    if state.finished:
        return
    view = player_view(state, state.to_move)
    playable = {m["target"] for m in view["legal_moves"] if m.get("target") and m["card"] != "AD"}
    ships = {s["id"] for s in view["table"]}
    assert _targets_blocked(view) == ships - playable


@settings(max_examples=150, deadline=None)
@given(GAMES)
def test_the_outcome_of_a_move_names_who_will_take_the_ship(game):
    seed, (n, teams), steps = game
    state = _random_state(seed, n, teams, steps)
    if state.finished:
        return
    seat = state.to_move
    view = player_view(state, seat)
    for move in view["legal_moves"]:
        if not move.get("target"):
            continue
        predicted = outcome(view, move)
        new, events = apply_move(state, seat, move)
        ship = next((s for s in admin_view(new)["table"] if s["id"] == move["target"]), None)
        if ship is not None:
            taker = ship["taker"]
        else:  # taken at once by the next player's capture check or the final settlement
            taker = next(e.seat for e in events if e.kind == "capture" and e.ship == move["target"])
        if predicted.code == "lead":
            assert taker == predicted.seat
        else:
            assert taker != seat or predicted.code == "behind" and predicted.leader_side is not None


def test_your_side_plays_green_and_you_hold_no_green_blocks_that_ship():
    state = new_game(["Ann", "Bob"], deck=build_deck([["M5", "B2", "G3", "M2", "M3", "M4"],
                                                      ["R2", "R1", "K1", "M4", "M4", "M2"]]))
    state, _ = play(state, "M5", "R2 on 1")
    assert blocked(player_view(state, 0)) == []  # Ann may answer in Blue or Green
    state, _ = play(state, "G3 on 1", "R1 on 1")
    assert blocked(player_view(state, 0)) == [Blocked("colour_missing", 1, colour="green")]


def test_every_colour_you_hold_taken_on_a_ship_blocks_it():
    state = new_game(["Ann", "Bob", "Cy"], deck=build_deck([["M5", "B2", "M2", "M2", "M2", "M2"],
                                                            ["G2", "M3", "M3", "M3", "M3", "M3"],
                                                            ["G3", "M4", "M4", "M4", "M4", "M4"]]))
    state, _ = play(state, "M5", "G2 on 1", "M4")
    assert blocked(player_view(state, 2)) == [Blocked("colours_taken", 1, colours=("green",))]


def test_a_hand_without_pirates_says_so_once():
    state = new_game(["Ann", "Bob"], deck=build_deck([["M5", "M2", "M2", "M2", "M2", "M2"],
                                                      ["M3", "M3", "M3", "M3", "M3", "M4"]]))
    state, _ = play(state, "M5")
    assert blocked(player_view(state, 1)) == [Blocked("no_pirates")]


def test_a_tie_is_an_outlook_of_nobody():
    state = new_game(["Ann", "Bob"], deck=build_deck([["M5", "B2", "M2", "M2", "M2", "M2"],
                                                      ["R2", "M3", "M3", "M3", "M3", "M3"]]))
    state, _ = play(state, "M5", "R2 on 1")
    view = player_view(state, 0)
    assert outlook(view["table"][0]) == Outlook("leads", side=1, seat=1, by="strength", strength=2)
    tie = outcome(view, {"action": "play", "card": "B2", "target": 1})
    assert tie is not None and tie.code == "tie" and tie.strength == 2
    state, _ = play(state, "B2 on 1")
    assert outlook(player_view(state, 1)["table"][0]) == Outlook("tied", strength=2, tied_sides=(0, 1))


def test_an_unattacked_ship_goes_home_to_its_owner():
    state = new_game(["Ann", "Bob"], seed=3)
    state, _ = apply_move(state, 0, next(m for m in legal_moves(state) if m.get("card", "").startswith("M")))
    ship = player_view(state, 1)["table"][0]
    assert outlook(ship) == Outlook("unattacked", seat=0)


@settings(max_examples=60, deadline=None)
@given(GAMES)
def test_every_reader_sees_the_same_public_scores_and_only_their_own_hand_cost(game):
    seed, (n, teams), steps = game
    state = _random_state(seed, n, teams, steps)
    views = [player_view(state, s) for s in range(n)]
    for key in ("scores", "team_scores"):
        assert all(v[key] == views[0][key] for v in views)
    if state.finished:
        assert views[0]["scores"] == scores(state)
        assert all(v["hand_penalty"] == views[0]["hand_penalty"] for v in views)
        return
    assert views[0]["scores"] == views[0]["captured_gold"]
    hands = admin_view(state)["hands"]
    for seat, view in enumerate(views):
        mine = {seat, view["partner"]}
        for other in range(n):
            gold = sum(int(c[1:]) for c in hands[other] if c[0] == "M")
            assert view["hand_penalty"][other] == (gold if other in mine else None)


def test_at_the_end_every_hands_merchant_ships_are_shown_and_the_scores_are_final():
    state = new_game(["Ann", "Bob"], deck=build_deck([["M5", "M2", "M2", "M2", "M2", "M2"],
                                                      ["M3", "M3", "M3", "M3", "M3", "M4"]], pile=[]))
    while not state.finished:
        state, _ = apply_move(state, state.to_move, legal_moves(state)[0])
    view = player_view(state, 0)
    assert view["scores"] == scores(state)
    assert [sum(m) for m in view["hand_merchants"]] == [g - s for g, s in zip(view["captured_gold"],
                                                                              view["scores"])]
