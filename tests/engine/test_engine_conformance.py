"""OpenSpiel-style random simulation: every check after every single step."""
import json
import random

import pytest

from engine import Options, apply_move, is_legal, legal_moves, new_game, player_view
from engine.replay import game_record, replay
from korsar_checks import candidate_moves, internals, oracle_moves, perturb_hidden, round_trip

SETUPS = [
    (2, False, Options()), (2, False, Options(waiting_time=True)),
    (3, False, Options(end_settlement="none", waiting_time=True)), (4, False, Options()),
    (5, False, Options(end_settlement="none")), (4, True, Options()), (6, True, Options()),
    (8, True, Options(end_settlement="none")),
]


@pytest.mark.parametrize("n, teams, options", SETUPS)
@pytest.mark.parametrize("seed", [1, 2])
def test_random_sim(n, teams, options, seed):
    rng = random.Random(seed)
    state = new_game([f"P{i}" for i in range(n)], teams=teams, options=options, seed=seed)
    history = []
    while True:
        mover = state.to_move
        # Nobody but the player to move has a legal move (none at all once finished).
        for seat in range(n):
            if seat != mover:
                assert legal_moves(state, seat) == []
                assert player_view(state, seat)["legal_moves"] == []
        moves = legal_moves(state)
        as_text = [json.dumps(m, sort_keys=True) for m in moves]
        assert len(as_text) == len(set(as_text))  # each move once
        # The state survives JSON, derived bookkeeping included.
        back = round_trip(state)
        assert back == state and internals(back) == internals(state)
        # Replaying the history from the deck gives the same state.
        again = new_game(state.players, teams=teams, options=options, deck=state.deck)
        for seat, move in history:
            again, _ = apply_move(again, seat, move)
        assert again == state
        if state.finished:
            break
        # Views keep other sides' hands out (I5) and agree with a naive reading of the rules.
        view = player_view(state, mover)
        assert "hands" not in view
        assert oracle_moves(view) == set(as_text)
        if len(history) % 5 == 0:  # same view whatever the hidden cards are
            for seat in range(n):
                hidden = perturb_hidden(state, seat, rng)
                assert player_view(hidden, seat) == player_view(state, seat)
        if len(history) % 7 == 0:  # check_move agrees with legal_moves on every candidate
            for move in candidate_moves(state):
                assert is_legal(state, mover, move) == (move in moves)
        move = rng.choice(moves)
        history.append((mover, move))
        state, _ = apply_move(state, mover, move)
    report = replay(game_record(state))
    assert report["ok"] and report["finished"] and report["to_move"] is None
