"""Inference: hidden cards dealt by how well they explain the other seats' moves."""
import math
import random

from engine import apply_move, new_game, player_view
from engine.bots import get_bot
from engine.bots.inference import InferenceSampler, observations
from engine.cards import N_MERCHANT_KINDS
from engine.core import DRAW
from engine.view import Sampler


def _greedy_game(players, seed):
    """Every (state, seat to move) of one greedy game."""
    state = new_game([f"P{i}" for i in range(players)], seed=seed)
    greedy, rng = get_bot("greedy"), random.Random(seed)
    while not state.finished:
        yield state
        state, _ = apply_move(state, state.seat, greedy.choose(player_view(state, state.seat), rng))


def _merchants(deal, seat):
    return sum(deal.hands[seat][:N_MERCHANT_KINDS])


def _the_draw(state, seat, drew):
    """The last move of the seat that drew, as ``seat`` saw it."""
    return [obs for obs in observations(state, seat, window=1) if obs.seat == drew]


def _a_seat_that_just_drew(players=3):
    """A position where the seat before the one to move drew (it could have played any merchant
    ship it held: R3.2) and uniform deals often give it two merchant ships or more."""
    for seed in range(40):
        for state in _greedy_game(players, seed):
            if not state.history or state.history[-1] != DRAW or len(state.history) < 12:
                continue
            seat = state.seat
            drew = (seat - 1) % players
            view = player_view(state, seat)
            flat = Sampler(view)
            rng = random.Random(0)
            if sum(_merchants(flat.sample(rng), drew) >= 2 for _ in range(200)) < 20:
                continue
            # Positions where the draw excludes little else (no attack worth more than a
            # draw whatever the hand), so that the possible deals are many.
            strict = InferenceSampler(view, _the_draw(state, seat, drew), epsilon=0.0)
            if sum(strict.log_likelihood(flat.sample(rng), rng) > -math.inf
                   for _ in range(200)) >= 20:
                return state, seat, drew
    raise AssertionError("no such position")


def test_observations_hold_only_what_the_seat_saw_and_the_others_last_moves():
    state = list(_greedy_game(4, 3))[60]
    seat = state.seat
    history = observations(state, seat, window=5)
    assert history and all(obs.view["seat"] == seat and obs.seat != seat for obs in history)
    for s in {obs.seat for obs in history}:
        assert len([o for o in history if o.seat == s]) == 5
    assert all("hands" not in obs.view for obs in history)  # player views, never the admin's


def test_a_seat_that_drew_while_it_could_have_placed_two_merchant_ships_is_never_dealt_them():
    """Under the strict greedy model (epsilon 0) a seat that drew held no merchant ship before
    its draw, so it holds at most the one it drew: the impossible deals never come."""
    state, seat, drew = _a_seat_that_just_drew()
    # The draw alone (a greedy model without softness reads every other move as certain too).
    strict = InferenceSampler(player_view(state, seat), _the_draw(state, seat, drew), epsilon=0.0)
    rng = random.Random(1)
    assert all(_merchants(strict.sample(rng), drew) <= 1 for _ in range(300))
    assert _merchants(state, drew) <= 1  # the truth is among the possible deals


def test_the_soft_model_makes_the_unlikely_deals_rarer_than_uniform_dealing_does():
    state, seat, drew = _a_seat_that_just_drew()
    view, history = player_view(state, seat), observations(state, seat)
    soft, flat = InferenceSampler(view, history), Sampler(view)
    rng = random.Random(2)
    many_soft = sum(_merchants(soft.sample(rng), drew) >= 2 for _ in range(400))
    many_flat = sum(_merchants(flat.sample(rng), drew) >= 2 for _ in range(400))
    assert many_soft < many_flat / 2


def test_a_model_that_reads_nothing_into_the_moves_deals_uniformly():
    state = list(_greedy_game(4, 5))[50]
    view = player_view(state, state.seat)
    uniform = Sampler(view)
    for sampler in (InferenceSampler(view, observations(state, state.seat), epsilon=1.0),
                    InferenceSampler(view, [])):
        a, b = random.Random(7), random.Random(7)
        for _ in range(20):
            x, y = sampler.sample(a), uniform.sample(b)
            assert x.hands == y.hands and x.pile == y.pile


def test_the_expert_reads_the_history_and_plays_a_legal_move():
    state = list(_greedy_game(4, 6))[40]
    view = player_view(state, state.seat)
    bot = get_bot("expert", iterations=60)
    move = bot.choose(view, random.Random(3), observations(state, state.seat))
    assert move in view["legal_moves"]
    assert move == bot.choose(view, random.Random(3), observations(state, state.seat))


def test_observations_name_the_seat_that_moved_and_replay_to_the_same_game():
    for players, teams in [(3, False), (4, True)]:
        state = new_game([f"P{i}" for i in range(players)], teams=teams, seed=9)
        greedy, rng, movers = get_bot("greedy"), random.Random(9), []
        for _ in range(30):
            movers.append(state.seat)
            state, _ = apply_move(state, state.seat, greedy.choose(player_view(state, state.seat), rng))
        history = observations(state, 0, window=30)
        partner = 1 if teams else None
        assert [o.seat for o in history] == [s for s in movers if s not in (0, partner)]
        assert all(o.view["seat"] == 0 for o in history)
