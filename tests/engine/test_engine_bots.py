"""Bots: one interface, legal choices from a view and an rng, greedy beats random."""
import random

import pytest

from engine import apply_move, new_game, player_view
from engine.bench import duel, random_games
from engine.bots import BOTS, LEVELS, REGISTRY, get_bot


def _quick(name):
    """A bot with a small fixed search (the search bots' own tests: test_engine_expert.py)."""
    return get_bot(name, iterations=24)


def test_the_bots_are_known_by_name():
    assert BOTS == ("random", "beginner", "greedy", "expert", "expert_flat", "expert_ismcts")
    assert [get_bot(name).name for name in BOTS] == list(BOTS)
    with pytest.raises(ValueError, match="Unknown bot"):
        get_bot("clever")


def test_the_registry_is_the_one_list_of_bots_and_names_each_one():
    assert BOTS == tuple(REGISTRY)
    assert [kind.display for kind in REGISTRY.values()] == [
        "Random bot", "Beginner bot", "Greedy bot", "Expert bot", "Expert bot (uniform deals)",
        "Expert bot (deep search)"]  # the catalogs' msgids
    assert get_bot("expert", iterations=7).iterations == 7
    assert get_bot("expert_ismcts", budget_ms=30).budget_ms == 30


def test_players_choose_from_the_levels_easiest_first_and_the_experiments_are_not_offered():
    assert LEVELS == ("beginner", "greedy", "expert", "random")
    assert "expert_ismcts" not in LEVELS and "expert_flat" not in LEVELS
    assert set(LEVELS) <= set(BOTS)


def test_the_levels_are_in_the_duel_commands_help(capsys):
    from engine.__main__ import main
    with pytest.raises(SystemExit):
        main(["duel", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "levels, easiest first: beginner" in text and "For experiments: expert_flat" in text


def test_the_beginner_overlooks_moves_but_never_plays_an_illegal_one():
    """It plays the greedy move among those it noticed: over many turns it sometimes differs
    from the greedy bot, and always plays a legal move."""
    beginner, greedy = get_bot("beginner"), get_bot("greedy")
    state = new_game(["A", "B", "C"], seed=5)
    rng, differs = random.Random(5), 0
    while not state.finished:
        view = player_view(state, state.to_move)
        move = beginner.choose(view, rng)
        assert move in view["legal_moves"]
        differs += move not in [greedy.choose(view, random.Random(r)) for r in range(4)]
        state, _ = apply_move(state, state.to_move, move)
    assert differs > 0


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


def _reference_greedy_choices(st):
    """greedy_choices as it was before it read the ship's stored best strength: the strongest
    other side recomputed with a max over the sides (the oracle the fast version must match)."""
    from engine.bots.greedy import _ATTACK_BONUS, _DISCARD_SCORE, _LEADERS, _PIRATE_COST
    from engine.cards import KIND_STRENGTH, KIND_VALUE, N_MERCHANT_KINDS
    from engine.core import DRAW, KIND_MASK, SHIP_SHIFT, legal_moves
    seat, side = st.seat, st.side_of[st.seat]
    partner = seat ^ 1 if st.teams else -1
    best, choices = -1e9, []
    for m in legal_moves(st):
        if m == DRAW:
            score = 0.5
        else:
            kind, ship_id = m & KIND_MASK, m >> SHIP_SHIFT
            if not ship_id:
                score = (KIND_VALUE[kind] + (10 if not st.pile else 0) if kind < N_MERCHANT_KINDS
                         else _DISCARD_SCORE[kind])
            else:
                sh = st.ships[ship_id]
                ours = sh.owner == seat or sh.owner == partner
                if sh.played:
                    already = (sh.leader_side if sh.leader_side >= 0 else sh.best_side) == side
                else:
                    already = ours
                if already:
                    score = -5.0
                else:
                    swing = 0.0 if ours else _ATTACK_BONUS
                    if _LEADERS[kind]:
                        score = sh.value - 3.5 + swing
                    elif sh.leader_side >= 0 and sh.leader_side != side:
                        score = -4.0
                    else:
                        others = max(x for s, x in enumerate(sh.strength) if s != side)
                        if sh.strength[side] + KIND_STRENGTH[kind] > others:
                            score = sh.value + (0.5 if ours else swing) - _PIRATE_COST[kind]
                        else:
                            score = -3.0 + 0.1 * sh.value
        if score > best:
            best, choices = score, [m]
        elif score == best:
            choices.append(m)
    return choices


@pytest.mark.parametrize("players,teams,waiting", [(2, False, False), (3, False, True),
                                                   (2, False, True), (4, False, False), (4, True, False),
                                                   (5, False, False), (6, True, False)])
def test_greedy_reads_the_stored_best_strength_and_chooses_as_before(players, teams, waiting):
    from engine import Options
    from engine.bots.greedy import greedy_choices
    from engine.core import legal_moves, step
    for seed in range(25):  # random play reaches many more battles than greedy play does
        state = new_game([f"P{i}" for i in range(players)], teams=teams,
                         options=Options(waiting_time=waiting), seed=seed)
        rng = random.Random(seed)
        while not state.finished:
            assert greedy_choices(state) == _reference_greedy_choices(state)
            step(state, rng.choice(legal_moves(state)))
