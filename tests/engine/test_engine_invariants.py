"""I1-I5, serialization and determinism as hypothesis properties over random games."""
import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Options, apply_move, legal_moves, new_game, player_view, state_from_json, \
    state_to_json
from engine import core
from korsar_checks import all_cards, full_deck, gold_everywhere, internals, perturb_hidden, \
    round_trip

SETUPS = [(2, False), (3, False), (4, False), (5, False), (4, True), (6, True), (8, True)]


@st.composite
def games(draw):
    """A setup (players, teams, options), a seed, and a seed for the moves."""
    n, teams = draw(st.sampled_from(SETUPS))
    waiting = n <= 3 and draw(st.booleans())
    settlement = draw(st.sampled_from(["resolve", "none"]))
    seed = draw(st.integers(0, 2**32))
    move_seed = draw(st.integers(0, 2**32))
    state = new_game([f"P{i}" for i in range(n)], teams=teams, seed=seed,
                     options=Options(end_settlement=settlement, waiting_time=waiting))
    return state, random.Random(move_seed)


def play_out(state, rng, check=None, limit=1000):
    """Random legal moves through the public API until the end, checking each state."""
    steps = 0
    while not state.finished and steps < limit:
        moves = legal_moves(state)
        state, _ = apply_move(state, state.to_move, rng.choice(moves))
        steps += 1
        if check:
            check(state)
    return state, steps


@settings(max_examples=60, deadline=None)
@given(games())
def test_i1_all_78_cards_are_always_somewhere(game):
    state, rng = game

    def check(s):
        assert all_cards(s) == full_deck()

    check(state)
    play_out(state, rng, check=check)


@settings(max_examples=100, deadline=None)
@given(games())
def test_i2_every_game_ends_within_a_bounded_number_of_turns(game):
    state, rng = game
    n = len(state.players)
    bound = (78 - 6 * n) + 78  # draws, then every card leaves a hand at most once
    final, steps = play_out(state, rng, limit=bound + 1)
    assert final.finished and steps <= bound


@settings(max_examples=60, deadline=None)
@given(games())
def test_i3_the_gold_always_adds_up_to_100(game):
    # Merchant ships never leave the game: while cards remain to be drawn, the gold in
    # the draw pile completes the 100; once it is empty, I3 holds exactly as written.
    state, rng = game

    def check(s):
        in_pile = sum(int(c[1:]) for c in state_to_json(s)["draw_pile"] if c.startswith("M"))
        assert gold_everywhere(s) + in_pile == 100
        if not s.pile:
            assert gold_everywhere(s) == 100

    play_out(state, rng, check=check)


@settings(max_examples=100, deadline=None)
@given(games())
def test_i4_the_player_to_move_always_has_a_legal_move(game):
    state, rng = game
    while not state.finished:
        moves = legal_moves(state)
        assert moves
        state, _ = apply_move(state, state.to_move, rng.choice(moves))
    assert legal_moves(state) == []


@settings(max_examples=40, deadline=None)
@given(games(), st.integers(0, 2**32))
def test_i5_a_view_never_depends_on_other_sides_hands_or_the_pile_order(game, shuffle_seed):
    state, rng = game
    shuffler = random.Random(shuffle_seed)

    def check(s):
        for seat in range(len(s.players)):
            assert player_view(perturb_hidden(s, seat, shuffler), seat) == player_view(s, seat)

    play_out(state, rng, check=check, limit=40)


@settings(max_examples=40, deadline=None)
@given(games())
def test_serialization_round_trips_exactly_at_every_step(game):
    state, rng = game

    def check(s):
        back = round_trip(s)
        assert back == s
        assert internals(back) == internals(s)
        assert state_to_json(back) == state_to_json(s)

    check(state)
    play_out(state, rng, check=check)


@settings(max_examples=60, deadline=None)
@given(games(), st.integers(0, 2**32))
def test_same_seed_and_moves_give_the_same_state(game, move_seed):
    state, _ = game
    a, _ = play_out(state, random.Random(move_seed))
    b, _ = play_out(state_from_json(state_to_json(state)), random.Random(move_seed))
    assert a == b and json.dumps(state_to_json(a)) == json.dumps(state_to_json(b))


@settings(max_examples=60, deadline=None)
@given(games())
def test_the_fast_core_and_the_public_api_play_the_same_game(game):
    state, rng = game
    fast = state.clone()
    while not state.finished:
        moves = legal_moves(state)
        assert len(moves) == len(core.legal_moves(fast))
        i = rng.randrange(len(moves))
        state, _ = apply_move(state, state.to_move, moves[i])
        core.step(fast, core.legal_moves(fast)[i])
        assert internals(fast) == internals(state)
