"""Inference: hidden cards dealt by how well they explain the other seats' moves."""
import math
import random

import pytest

from engine import apply_move, new_game, player_view
from engine.bots import get_bot
from engine.bots.inference import InferenceSampler, _Rated, observations
from engine.cards import N_MERCHANT_KINDS
from engine.core import DRAW, KIND_MASK
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


def _direct_probability(obs, hand, eps):
    """The model read off the position itself: the mover holding ``hand``, its legal moves and
    the greedy policy's best among them."""
    from engine.bots.greedy import greedy_choices
    from engine.core import legal_moves
    st = Sampler(obs.view).template.clone()
    st.pile = [0] * obs.view["draw_pile"]
    st.seat = obs.seat
    st.hands[obs.seat] = hand
    st.hand_size[obs.seat] = sum(hand)
    st.kinds_mask[obs.seat] = sum(1 << k for k, n in enumerate(hand) if n)
    legal = legal_moves(st)
    if obs.move not in legal:
        return 0.0
    best = greedy_choices(st, legal)
    return eps / len(legal) + ((1.0 - eps) / len(best) if obs.move in best else 0.0)


@pytest.mark.parametrize("players, teams, seed", [(2, False, 11), (3, False, 12), (4, False, 13),
                                                  (4, True, 14), (5, False, 15)])
def test_the_move_is_rated_per_kind_as_the_greedy_policy_rates_it_on_the_whole_hand(players, teams,
                                                                                  seed):
    """The likelihood rates a hand by the kinds it holds (``_Rated.probability``): it must be
    the softened greedy model's chance of the move, computed on the position with that hand."""
    state = new_game([f"P{i}" for i in range(players)], teams=teams, seed=seed)
    greedy, rng, checked = get_bot("greedy"), random.Random(seed), 0
    while not state.finished:
        seat = state.seat
        if len(state.history) % 3 == 0:
            for obs in observations(state, seat, window=2):
                rated = {eps: _Rated(obs, eps) for eps in (0.0, 0.25)}
                pool = Sampler(obs.view).unseen
                for _ in range(8):
                    hand = [0] * len(state.hands[seat])
                    for kind in rng.sample(pool, rng.randint(1, min(9, len(pool)))):
                        hand[kind] += 1
                    if obs.move != DRAW:
                        hand[obs.move & KIND_MASK] += 1
                    mask = sum(1 << k for k, n in enumerate(hand) if n)
                    for eps in (0.0, 0.25):
                        assert rated[eps].probability(mask) == pytest.approx(
                            _direct_probability(obs, hand, eps), abs=1e-12)
                    checked += 1
        state, _ = apply_move(state, seat, greedy.choose(player_view(state, seat), rng))
    assert checked > 100


def test_every_deal_of_the_chain_holds_the_unseen_cards_in_hands_of_the_sizes_the_view_shows():
    state = list(_greedy_game(4, 8))[45]
    seat = state.seat
    view = player_view(state, seat)
    sampler = InferenceSampler(view, observations(state, seat))
    assert sampler.walks  # the chain runs: there are moves to read
    rng = random.Random(4)
    for _ in range(60):
        deal = sampler.sample(rng)
        dealt = list(deal.pile)
        for s in sampler.base.hidden_seats:
            assert deal.hand_size[s] == view["hand_sizes"][s] == sum(deal.hands[s])
            dealt += [k for k, n in enumerate(deal.hands[s]) for _ in range(n)]
        assert sorted(dealt) == sorted(sampler.unseen)
        assert deal.hands[seat] == state.hands[seat]  # its own hand is never dealt anew


def test_the_chain_deals_the_same_given_the_same_rng():
    state = list(_greedy_game(4, 8))[45]
    view, history = player_view(state, state.seat), observations(state, state.seat)
    a, b = InferenceSampler(view, history), InferenceSampler(view, history)
    ra, rb = random.Random(5), random.Random(5)
    assert all(a.sample(ra).hands == b.sample(rb).hands for _ in range(30))
