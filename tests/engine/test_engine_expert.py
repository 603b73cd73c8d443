"""The expert bots: the greedy fast path, the sampler, and a search that sees only its view."""
import json
import random
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Options, admin_view, apply_move, core, new_game, player_view
from engine.bots import get_bot
from engine.bots.expert import ExpertBot, IsmctsBot
from engine.bots.greedy import greedy_choices
from engine.bots.playout import margin, play_out
from engine.view import Sampler, resample, state_from_view
from engine.cards import FULL_DECK, KIND_CODES
from engine.moves import decode
from engine.state import state_to_json

SEARCHERS = ("expert", "expert_ismcts")
GAMES = [(2, False, Options()), (3, False, Options(waiting_time=True)), (4, False, Options()),
         (4, True, Options()), (5, False, Options(end_settlement="none")), (6, True, Options())]


def _positions(players, teams, options, seed):
    """Every position of one greedy game, with the state (for checks only)."""
    state = new_game([f"P{i}" for i in range(players)], teams=teams, options=options, seed=seed)
    greedy, rng = get_bot("greedy"), random.Random(seed)
    while not state.finished:
        yield state
        state, _ = apply_move(state, state.seat, greedy.choose(player_view(state, state.seat), rng))


def _midgame(players=4, teams=False, seed=1, moves=24, options=None):
    for i, state in enumerate(_positions(players, teams, options or Options(), seed)):
        if i == moves:
            return state
    raise AssertionError("the game ended early")


@pytest.mark.parametrize("players,teams,options", GAMES)
def test_the_playout_policy_picks_the_greedy_bots_move_move_for_move(players, teams, options):
    greedy = get_bot("greedy")
    for seed in range(3):
        for state in _positions(players, teams, options, seed):
            view = player_view(state, state.seat)
            choices = greedy_choices(state)
            assert [decode(m) for m in core.legal_moves(state)] == view["legal_moves"]
            for r in range(3):  # every tie-break the greedy bot's rng could make
                assert greedy.choose(view, random.Random(r)) == decode(
                    random.Random(r).choice(choices))


def test_a_playout_ends_the_game_and_keeps_the_100_gold():
    state = _midgame().clone()
    play_out(state, random.Random(3))
    assert state.finished
    gold = sum(state.gold) + sum(sh.value for sh in state.table) + sum(
        h[k] * (k + 2) for h in state.hands for k in range(7))
    assert gold == 100


def test_the_view_lists_every_public_card_out_of_the_game():
    shown: Counter = Counter()
    state = new_game(["A", "B", "C"], seed=4)
    greedy, rng = get_bot("greedy"), random.Random(4)
    while not state.finished:
        view = player_view(state, state.seat)
        assert view["out_of_game"] == sorted(KIND_CODES[k] for k in state.out)
        assert not Counter(view["out_of_game"]) - shown  # each one was shown when played
        state, events = apply_move(state, state.seat, greedy.choose(view, rng))
        shown.update(e.card for e in events if e.card is not None)
    assert player_view(state, 0)["out_of_game"]


def _seen(seed: int, moves: int, game: tuple, viewer: int) -> tuple:
    """A position of the game after `moves` moves (or its end), and one seat's view of it."""
    players, teams, options = game
    positions = list(_positions(players, teams, options, seed))
    state = positions[min(moves, len(positions) - 1)]
    seat = viewer % players
    return state, seat, player_view(state, seat)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 60),
       game=st.sampled_from(GAMES), viewer=st.integers(0, 7))
def test_a_sample_deals_exactly_the_unseen_cards_into_hidden_places(seed, moves, game, viewer):
    state, seat, view = _seen(seed, moves, game, viewer)
    sample = Sampler(view).sample(random.Random(seed))
    truth, dealt = state_to_json(state), state_to_json(sample)
    known = {seat, view["partner"]}
    for s in range(len(view["players"])):  # own and partner hands as they are; others only by size
        if s in known:
            assert dealt["hands"][s] == truth["hands"][s]
        assert len(dealt["hands"][s]) == len(truth["hands"][s])
    assert len(dealt["draw_pile"]) == len(truth["draw_pile"])
    assert dealt["score_piles"] == [sorted(p) for p in truth["score_piles"]]
    assert sorted(dealt["out"]) == sorted(truth["out"])
    assert player_view(sample, seat)["table"] == view["table"]
    every = [c for h in dealt["hands"] for c in h] + dealt["draw_pile"] + dealt["out"] + [
        c for ship in dealt["table"] for _, c in ship["cards"]] + [
        f"M{v}" for p in dealt["score_piles"] for v in p] + [
        f"M{ship['value']}" for ship in dealt["table"]]
    assert Counter(every) == Counter(FULL_DECK)  # I1 in every sample
    if state.seat == seat:
        assert core.legal_moves(sample) == core.legal_moves(state)
    assert sample.options == state.options


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 60),
       game=st.sampled_from(GAMES), viewer=st.integers(0, 7))
def test_state_from_view_and_resample_show_the_seat_its_own_view(seed, moves, game, viewer):
    state, seat, view = _seen(seed, moves, game, viewer)
    assert player_view(state_from_view(view), seat) == view
    assert player_view(resample(view, random.Random(seed)), seat) == view
    assert state_to_json(state_from_view(view)) == state_to_json(state_from_view(view))


def _same_view_other_secrets(state, seat):
    """Another state the seat cannot tell apart: the hidden cards dealt anew."""
    other = Sampler(player_view(state, seat)).sample(random.Random(99))
    assert player_view(other, seat) == player_view(state, seat)
    assert admin_view(other)["hands"] != admin_view(state)["hands"] or other.pile != state.pile
    return other


@pytest.mark.parametrize("name", SEARCHERS)
def test_a_search_bot_decides_from_the_view_alone(name):
    # Two games that differ only in what the seat cannot see get the same move, and so
    # does the view after a JSON round trip: nothing reaches the state or the pile order.
    bot = get_bot(name, iterations=150)
    state = _midgame(seed=2)
    seat = state.seat
    other = _same_view_other_secrets(state, seat)
    view = player_view(state, seat)
    move = bot.choose(view, random.Random(7))
    assert move == bot.choose(player_view(other, seat), random.Random(7))
    assert move == bot.choose(json.loads(json.dumps(view)), random.Random(7))
    assert move in view["legal_moves"]


@pytest.mark.parametrize("name", SEARCHERS)
def test_a_search_bot_is_deterministic_for_view_seed_and_iterations(name):
    view = player_view(_midgame(seed=3), _midgame(seed=3).seat)
    a = get_bot(name, iterations=120).choose(view, random.Random(5))
    assert a == get_bot(name, iterations=120).choose(view, random.Random(5))


@pytest.mark.parametrize("name", SEARCHERS)
def test_a_single_legal_move_is_played_at_once_without_search(name):
    for state in _positions(2, False, Options(), 6):
        view = player_view(state, state.seat)
        if len(view["legal_moves"]) == 1:
            break
    else:
        raise AssertionError("no forced move in this game")
    bot = get_bot(name, budget_ms=10_000)
    t0 = time.thread_time()
    assert bot.choose(view, random.Random(1)) == view["legal_moves"][0]
    assert bot.last_playouts == 0 and time.thread_time() - t0 < 0.05


@pytest.mark.parametrize("name", SEARCHERS)
def test_an_iteration_budget_counts_playouts(name):
    state = _midgame(seed=4)
    bot = get_bot(name, iterations=90)
    bot.choose(player_view(state, state.seat), random.Random(2))
    assert 0 < bot.last_playouts <= 90


def test_a_cpu_budget_stops_the_search():
    state = _midgame(seed=5)
    bot = get_bot("expert", budget_ms=30)
    t0 = time.thread_time()
    bot.choose(player_view(state, state.seat), random.Random(2))
    assert bot.last_playouts > 0 and time.thread_time() - t0 < 0.5


@pytest.mark.parametrize("name", SEARCHERS)
@pytest.mark.parametrize("players,teams,options", [GAMES[1], GAMES[3], GAMES[4]])
def test_a_search_bot_plays_legal_moves_to_the_end(name, players, teams, options):
    state = new_game([f"P{i}" for i in range(players)], teams=teams, options=options, seed=9)
    bot, greedy, rng = get_bot(name, iterations=12), get_bot("greedy"), random.Random(9)
    while not state.finished:
        view = player_view(state, state.seat)
        move = (bot if state.seat == 0 else greedy).choose(view, rng)
        assert move in view["legal_moves"]
        state, _ = apply_move(state, state.seat, move)


def test_the_objective_is_the_sides_margin_over_the_best_other_side():
    state = _midgame(players=4, teams=True, seed=6).clone()
    play_out(state, random.Random(1))
    teams = core.side_scores(state)
    assert margin(state, 0) == teams[0] - teams[1] == -margin(state, 1)


def test_a_search_bot_needs_a_budget():
    with pytest.raises(ValueError):
        ExpertBot(budget_ms=None)
    with pytest.raises(ValueError):
        IsmctsBot(budget_ms=None)



@pytest.mark.parametrize("teams", [False, True])
def test_duel_prints_win_rate_margin_and_think_times_last(capsys, teams):
    from engine.__main__ import main
    args = ["duel", "--bot", "expert", "--against", "greedy", "--players", "4", "--games", "2",
            "--iterations", "8"] + (["--teams"] if teams else [])
    assert main(args) == 0
    last = capsys.readouterr().out.strip().splitlines()[-4:]
    assert [line.split(": ")[0] for line in last] == [
        "win_rate", "mean_score_margin", "think_ms_p50", "think_ms_p95"]
    rate, _, p50, p95 = (float(line.split(": ")[1]) for line in last)
    assert 0 <= rate <= 1 and 0 <= p50 <= p95


def test_duel_counts_a_shared_win_as_half_a_win():
    from engine.bench import duel
    tied = duel(25, players=2, bot="greedy", against="greedy")  # game 24 is a tie
    before = duel(24, players=2, bot="greedy", against="greedy")
    assert tied.wins - before.wins == 0.5 and tied.sole_wins == before.sole_wins


def test_duel_in_processes_plays_the_same_games():
    from engine.bench import duel
    one = duel(4, players=4, bot="expert", against="greedy", seed=40, iterations=6)
    two = duel(4, players=4, bot="expert", against="greedy", seed=40, iterations=6, jobs=2)
    assert (two.wins, two.score_margin, len(two.think_ms)) == (
        one.wins, one.score_margin, len(one.think_ms))


def test_playouts_from_mid_game_are_counted_per_cpu_second():
    from engine.bench import playout_rate
    r = playout_rate(4, seconds=0.2)
    assert r.playouts > 0 and r.actions > r.playouts and r.per_second > 0


def _reference_survivors(results, active, z):
    """The pruning test as a pass over every paired difference (what the kept sums replace)."""
    import math
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    lead = max(active, key=lambda i: (mean(results[i]), -i))
    keep = []
    for i in active:
        if i != lead:
            diffs = [a - b for a, b in zip(results[lead], results[i])]
            n, mu = len(diffs), sum(diffs) / len(diffs)
            var = sum((d - mu) ** 2 for d in diffs) / (n - 1)
            if mu > z * math.sqrt(var / n) + 1e-9:
                continue
        keep.append(i)
    return keep


def test_the_pruning_statistics_kept_as_the_search_goes_prune_as_a_pass_over_samples_would():
    from engine.bots.expert import _PRUNE_Z, _PairedStats
    rng = random.Random(4)
    for _trial in range(200):
        k = rng.randint(2, 9)
        skill = [rng.randint(-6, 6) for _ in range(k)]
        stats, results, active = _PairedStats(k), [[] for _ in range(k)], list(range(k))
        for _ in range(rng.randint(6, 60)):
            common = rng.randint(-30, 30)  # the deal: shared by every move (paired)
            for i in active:
                v = common + skill[i] + rng.randint(-8, 8)
                stats.add(i, v)
                results[i].append(v)
            stats.close_round(active)
            if stats.rounds < 6:  # the search prunes from _MIN_SAMPLES rounds on
                continue
            expected = _reference_survivors(results, active, _PRUNE_Z)
            active = stats.survivors(active)
            assert active == expected


def test_a_spent_wall_clock_cap_stops_the_search_after_one_playout_with_the_greedy_move():
    views = [player_view(s, s.seat) for s in _positions(4, False, Options(), 1)]
    view = next(v for v in views[20:] if len(v["legal_moves"]) > 2)
    bot = get_bot("expert", budget_ms=60_000, wall_ms=0)  # the CPU budget would last a minute
    move = bot.choose(view, random.Random(2))
    assert bot.last_playouts == 1
    assert move in [decode(m) for m in greedy_choices(state_from_view(view))]


def test_an_iteration_budget_has_no_clock_unless_one_is_given():
    assert get_bot("expert", iterations=50).wall_ms is None
    bot = get_bot("expert", iterations=50)
    views = [player_view(s, s.seat) for s in _positions(4, False, Options(), 1)]
    view = next(v for v in views[20:] if len(v["legal_moves"]) > 2)
    bot.choose(view, random.Random(1))
    assert bot.last_playouts == 50  # whatever the machine's load: deterministic
