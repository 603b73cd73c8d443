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
            strict = InferenceSampler(view, _the_draw(state, seat, drew), model=((1.0, 0.0),))
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
    strict = InferenceSampler(player_view(state, seat), _the_draw(state, seat, drew), model=((1.0, 0.0),))
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
    for sampler in (InferenceSampler(view, observations(state, state.seat), model=((1.0, 1.0),)),
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
                rated = _Rated(obs)
                pool = Sampler(obs.view).unseen
                for _ in range(8):
                    hand = [0] * len(state.hands[seat])
                    for kind in rng.sample(pool, rng.randint(1, min(9, len(pool)))):
                        hand[kind] += 1
                    if obs.move != DRAW:
                        hand[obs.move & KIND_MASK] += 1
                    mask = sum(1 << k for k, n in enumerate(hand) if n)
                    for eps in (0.0, 0.25):
                        assert rated.probability(mask, eps) == pytest.approx(
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


def _walks(players, seed, every=5):
    """(each hidden seat's observed moves newest first, its true hand now), at every
    ``every``-th position of a greedy game."""
    for n, state in enumerate(_greedy_game(players, seed)):
        if n % every or len(state.history) < 2 * players:
            continue
        by_seat = {}
        for obs in reversed(observations(state, state.seat, window=4)):
            by_seat.setdefault(obs.seat, []).append(obs)
        for s, moves in by_seat.items():
            yield moves, state.hands[s]


def _likelihood(moves, hand, model, rng, walk=None):
    """The walk's estimate of the likelihood of ``moves`` under ``model``, for ``hand``."""
    from engine.bots.inference import _hand_of, _walk_log_likelihood
    walk = walk or [_Rated(obs, [eps for _, eps in model]) for obs in moves]
    cards = [k for k, n in enumerate(hand) for _ in range(n)]
    logs = [math.log(share) for share, _ in model]
    return math.exp(_walk_log_likelihood(walk, *_hand_of(cards), logs, rng))


def test_a_mixture_of_players_weighs_each_kind_by_its_share_when_no_draw_hides_a_card():
    """With no secret draw in the window the likelihood is exact: the log of the shares' sum of
    each kind of player's likelihood."""
    model = ((0.3, 0.02), (0.7, 1.0))
    checked = 0
    for moves, hand in _walks(4, 21, every=3):
        if any(obs.move == DRAW for obs in moves):
            continue
        rng = random.Random(0)
        parts = [share * _likelihood(moves, hand, ((1.0, eps),), rng) for share, eps in model]
        assert _likelihood(moves, hand, model, rng) == pytest.approx(sum(parts), rel=1e-9)
        checked += 1
    assert checked >= 5


def test_a_mixture_of_players_estimates_a_secret_draws_likelihood_without_bias():
    """With one draw in the window each kind of player's likelihood is exact, and the mixture's
    estimate (the drawn card chosen by a proposal shared by both kinds) averages to their
    weighed sum."""
    model = ((0.5, 0.02), (0.5, 1.0))
    checked = 0
    for moves, hand in _walks(4, 22, every=2):
        if sum(obs.move == DRAW for obs in moves) != 1 or sum(n > 0 for n in hand) < 3:
            continue
        exact = sum(share * _likelihood(moves, hand, ((1.0, eps),), random.Random(0))
                    for share, eps in model)
        if exact <= 0.0:
            continue
        rng = random.Random(1)
        walk = [_Rated(obs, [eps for _, eps in model]) for obs in moves]
        runs = [_likelihood(moves, hand, model, rng, walk) for _ in range(4000)]
        assert sum(runs) / len(runs) == pytest.approx(exact, rel=0.05)
        checked += 1
        if checked == 6:
            break
    assert checked >= 3
