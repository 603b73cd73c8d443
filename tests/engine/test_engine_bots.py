"""Bots: one interface, legal choices from a view and an rng, greedy beats random."""
import random

import pytest

from engine import apply_move, new_game, player_view
from engine.bench import duel, random_games
from engine.bots import BOTS, REGISTRY, get_bot


def _quick(name):
    """A bot with a small fixed search (the search bots' own tests: test_engine_expert.py)."""
    return get_bot(name, iterations=24)


def test_the_bots_are_known_by_name():
    assert BOTS == ("random", "greedy", "expert", "expert_ismcts")
    assert [get_bot(name).name for name in BOTS] == list(BOTS)
    with pytest.raises(ValueError, match="Unknown bot"):
        get_bot("clever")


def test_the_registry_is_the_one_list_of_bots_and_names_each_one():
    assert BOTS == tuple(REGISTRY)
    assert [kind.display for kind in REGISTRY.values()] == [
        "Random bot", "Greedy bot", "Expert bot", "Expert bot (deep search)"]  # the catalogs' msgids
    assert get_bot("expert", iterations=7).iterations == 7
    assert get_bot("expert_ismcts", budget_ms=30).budget_ms == 30


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_plays_legal_moves_from_its_view_to_the_end(name):
    bot = _quick(name)
    for n, teams in [(3, False), (4, True)]:
        state = new_game([f"P{i}" for i in range(n)], teams=teams, seed=11)
        rng = random.Random(11)
        while not state.finished:
            view = player_view(state, state.to_move)
            move = bot.choose(view, rng)
            assert move in view["legal_moves"]
            state, _ = apply_move(state, state.to_move, move)


@pytest.mark.parametrize("name", BOTS)
def test_a_bot_is_deterministic_given_view_and_rng(name):
    view = player_view(new_game(["A", "B"], seed=3), 0)
    bot = _quick(name)
    assert bot.choose(view, random.Random(5)) == bot.choose(view, random.Random(5))


def test_a_bot_refuses_a_view_without_legal_moves():
    view = player_view(new_game(["A", "B"], seed=3), 1)
    with pytest.raises(ValueError):
        get_bot("greedy").choose(view, random.Random(1))


def test_greedy_beats_random_in_four_player_games():
    result = duel(200, players=4, seed=1000)
    assert result.win_rate > 0.45  # a fair share is 0.25; about 0.67 over 1,000 games


def test_random_games_bench_counts_games_and_actions():
    result = random_games(4, 10, seed=3)
    assert result.games == 10 and 10 * 30 < result.actions < 10 * 133
