"""The expert's analysis of a finished game (engine/analysis.py): deterministic for a key, from
each seat's view only, a known blunder marked as one, running games refused, caps honoured."""
import random

import pytest

from engine import apply_move, new_game, player_view
from engine.analysis import BLUNDER, GOOD, INACCURATE, MISTAKE, AnalysisError, Budget, \
    analyse_game, analyse_position, mark_of, step_rng
from engine.bots import get_bot
from engine.replay import game_record
from engine.testing import build_deck, move_from_text

SMALL = Budget(samples=24, max_playouts=240, cpu_ms_per_move=None, cpu_ms_per_game=None)


def _finish(state, seed=0):
    """Play the game to its end with greedy bots (deterministic for the seed)."""
    bot, rng = get_bot("greedy"), random.Random(seed)
    while not state.finished:
        state, _ = apply_move(state, state.seat, bot.choose(player_view(state, state.seat), rng))
    return state


def _greedy_record(players=2, seed=3):
    return game_record(_finish(new_game([f"P{i}" for i in range(players)], seed=seed), seed))


HANDS = [["M8", "B2", "AD", "M2", "M3", "M4"], ["G2", "GC", "M2", "M3", "M4", "M5"]]
OPENING = ("M8", "G2 on 1", "B2 on 1", "GC on 1")  # Bob's captain leads on Ann's 8-gold ship
CHOICE = len(OPENING)  # the step of Ann's answer


def _blunder_record(answer):
    """Ann plays her 8-gold ship, Bob attacks it with Green 2, Ann ties with Blue 2, Bob's
    Green captain takes the lead; Ann's answer: her Admiral makes the ship hers for good (Bob's
    only green captain is then out of the game), a draw lets Bob take it at the start of his
    turn (a 16-gold swing). Then greedy bots finish the game."""
    state = new_game(["Ann", "Bob"], deck=build_deck(HANDS))
    for text in (*OPENING, answer):
        state, _ = apply_move(state, state.seat, move_from_text(text))
    return game_record(_finish(state, seed=5))


def test_thresholds_in_gold():
    assert [mark_of(x) for x in (0.0, 0.99, 1.0, 2.9, 3.0, 5.9, 6.0, 16.0)] == \
        [GOOD, GOOD, INACCURATE, INACCURATE, MISTAKE, MISTAKE, BLUNDER, BLUNDER]


def test_analysis_is_deterministic_for_a_key():
    record = _greedy_record()
    one = analyse_game(record, [0], "game-7", SMALL)
    two = analyse_game(record, [0], "game-7", SMALL)
    assert [m.to_json() for m in one.moves] == [m.to_json() for m in two.moves]
    assert one.complete and one.playouts == two.playouts > 0
    other = analyse_game(record, [0], "game-8", SMALL)
    assert [m.played_margin for m in other.moves] != [m.played_margin for m in one.moves]


def test_every_move_of_the_seats_asked_and_only_theirs():
    record = _greedy_record(players=3, seed=4)
    result = analyse_game(record, [1], "k", SMALL)
    steps = [i for i, m in enumerate(record["moves"]) if m["player"] == 1]
    assert [m.step for m in result.moves] == steps
    assert all(m.seat == 1 and m.best_margin >= m.played_margin for m in result.moves)
    assert all(m.loss == 0 and m.mark == GOOD for m in result.moves if m.forced)


def test_giving_away_a_big_ship_is_a_blunder():
    bad = analyse_game(_blunder_record("draw"), [0], "k", SMALL)
    move = next(m for m in bad.moves if m.step == CHOICE)
    assert move.played == {"action": "draw"}
    assert move.mark == BLUNDER, move
    assert move.best == {"action": "play", "card": "AD", "target": 1}
    good = analyse_game(_blunder_record("AD on 1"), [0], "k", SMALL)
    assert next(m for m in good.moves if m.step == CHOICE).mark == GOOD


def test_a_running_game_is_refused():
    record = _greedy_record()
    record["moves"] = record["moves"][:-3]
    with pytest.raises(AnalysisError) as exc:
        analyse_game(record, [0, 1], "k", SMALL)
    assert exc.value.code == "not_finished"


def test_the_analysis_reads_only_the_seats_view():
    """The same view valued from two different truths behind it gives the same result: the
    hidden cards of the real game are never read."""
    other = [HANDS[0], ["G2", "GC", "K4", "KC", "R4", "RC"]]
    results = []
    for hands in (HANDS, other):
        state = new_game(["Ann", "Bob"], deck=build_deck(hands))
        for text in OPENING:
            state, _ = apply_move(state, state.seat, move_from_text(text))
        view = player_view(state, 0)
        results.append(analyse_position(view, {"action": "draw"}, step_rng("k", CHOICE), SMALL)[0])
    assert results[0] == results[1]


def test_the_game_cap_records_where_it_stopped():
    record = _greedy_record()
    result = analyse_game(record, [0], "k", Budget(cpu_ms_per_move=None, cpu_ms_per_game=0.0))
    assert not result.complete and result.stopped_at == 0 and result.moves == []


def test_the_move_cap_cuts_samples_and_says_so():
    record = _blunder_record("draw")
    result = analyse_game(record, [0], "k", Budget(samples=10_000, max_playouts=10**9,
                                                   cpu_ms_per_move=1.0, cpu_ms_per_game=None))
    judged = [m for m in result.moves if not m.forced]
    assert judged and all(m.capped and 1 <= m.samples < 10_000 for m in judged)


def test_only_the_steps_asked():
    record = _greedy_record()
    result = analyse_game(record, [0, 1], "k", SMALL, steps={0, 3, 5})
    assert [m.step for m in result.moves] == [0, 3, 5]
