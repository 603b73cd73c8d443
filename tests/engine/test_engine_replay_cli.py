"""`python -m engine replay FILE|-`, `bench` and `duel` as other programs call them."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from engine import FULL_DECK, apply_move, legal_moves, new_game
from engine.replay import game_record
from engine.testing import build_deck

ROOT = Path(__file__).resolve().parents[2]
KEYS = {"ok", "error", "finished", "to_move", "draw_pile", "hands", "captured", "scores",
        "team_scores", "winners", "legal_moves", "table"}


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "engine", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=60)


def replay_stdin(record):
    text = record if isinstance(record, str) else json.dumps(record)
    return run("replay", "-", stdin=text)


def record(**changes):
    base = {"players": ["Ann", "Bob", "Cy"], "teams": False,
            "options": {"end_settlement": "resolve", "waiting_time": False},
            "deck": build_deck([["M5", "G1", "G2", "G2", "G3", "G3"],
                                ["B3", "K1", "K2", "K2", "K3", "K3"],
                                ["R1", "M2", "M2", "M2", "M2", "M3"]]),
            "moves": [{"player": 0, "action": "play", "card": "M5"},
                      {"player": 1, "action": "play", "card": "B3", "target": 1},
                      {"player": 2, "action": "draw"}]}
    base.update(changes)
    return {k: v for k, v in base.items() if v is not None}


def test_replay_prints_the_state_after_the_moves():
    result = replay_stdin(record())
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert KEYS <= set(out)
    assert out["ok"] is True and out["error"] is None and out["finished"] is False
    assert out["to_move"] == 0 and out["draw_pile"] == 78 - 18 - 1
    assert out["hands"][1] == ["K1", "K2", "K2", "K3", "K3"]
    assert out["hands"][0] == sorted(out["hands"][0])
    assert out["captured"] == [[], [], []] and out["scores"] == [0, 0, -13]  # Cy drew an M2
    assert out["team_scores"] is None and out["winners"] == []
    assert out["table"][0]["id"] == 1 and out["table"][0]["owner"] == 0
    assert out["table"][0]["value"] == 5
    assert {"action": "draw"} in out["legal_moves"]


def test_replay_applies_captures_of_the_player_to_move():
    moves = record()["moves"] + [{"player": 0, "action": "draw"}]
    out = json.loads(replay_stdin(record(moves=moves)).stdout)
    assert out["to_move"] == 1 and out["captured"] == [[], [5], []] and out["table"] == []


def test_replay_stops_at_the_first_illegal_move_and_prints_the_state_before_it():
    moves = record()["moves"] + [{"player": 0, "action": "play", "card": "R1", "target": 1},
                                 {"player": 1, "action": "draw"}]
    result = replay_stdin(record(moves=moves))
    assert result.returncode == 0
    out = json.loads(result.stdout)
    assert out["ok"] is False
    assert out["error"] == {"move_index": 3, "message": "You have no Red 1 in your hand."}
    assert out["to_move"] == 0 and out["draw_pile"] == 78 - 18 - 1


def test_replay_refuses_a_move_out_of_turn():
    moves = [{"player": 1, "action": "draw"}]
    out = json.loads(replay_stdin(record(moves=moves)).stdout)
    assert out["error"] == {"move_index": 0, "message": "It is Ann's turn, not yours."}


def test_replay_from_a_seed_with_defaults_and_from_a_file(tmp_path):
    rec = {"players": ["Ann", "Bob"], "seed": 17, "moves": [{"player": 0, "action": "draw"}]}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(rec))
    result = run("replay", str(path))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    state = new_game(["Ann", "Bob"], seed=17)
    state, _ = apply_move(state, 0, {"action": "draw"})
    assert out["hands"][0] == sorted(game_record(state)["deck"][:6] + [state.deck[12]])
    assert out["to_move"] == 1 and out["ok"]


def test_replay_a_whole_team_game_to_its_end():
    rng = random.Random(4)
    state = new_game(["A", "B", "C", "D"], teams=True, seed=4)
    while not state.finished:
        state, _ = apply_move(state, state.to_move, rng.choice(legal_moves(state)))
    out = json.loads(replay_stdin(game_record(state)).stdout)
    assert out["finished"] and out["to_move"] is None and out["legal_moves"] == []
    assert out["winners"] and set(out["winners"]) <= {0, 1}
    assert len(out["team_scores"]) == 2


@pytest.mark.parametrize("text", [
    "{not json",
    json.dumps([1, 2]),
    json.dumps(record(deck=list(FULL_DECK[:-1]))),
    json.dumps(record(deck=list(FULL_DECK[:-1]) + ["X9"])),
    json.dumps(record(deck=list(FULL_DECK[:-1]) + ["M2"])),
    json.dumps(record(players=["Ann", "Bob", "Cy", "Dee", "Eve", "Fay"])),
    json.dumps(record(players=["Ann", "Bob", "Cy"], teams=True)),
    json.dumps(record(options={"end_settlement": "later"})),
    json.dumps(record(options={"waiting_time": True}, players=["A", "B", "C", "D"])),
    json.dumps(record(options={"colour": "blue"})),
    json.dumps(record(deck=None)),
    json.dumps(record(seed=3)),
    json.dumps(record(moves=[{"player": 0, "action": "play", "card": "Q4"}])),
    json.dumps(record(moves=[{"action": "draw"}])),
    json.dumps(record(moves=[{"player": 0, "action": "sing"}])),
    json.dumps(record(moves={"player": 0})),
])
def test_a_malformed_record_exits_2_with_one_line_on_stderr(text):
    result = replay_stdin(text)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.strip() and len(result.stderr.strip().splitlines()) == 1


def test_replay_of_a_missing_file_exits_2():
    result = run("replay", "/nonexistent/game.json")
    assert result.returncode == 2 and "cannot read" in result.stderr


def test_bench_prints_games_per_second_last():
    result = run("bench", "--players", "4", "--games", "20")
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("games_per_second: ") and float(last.split(": ")[1]) > 0


def test_duel_prints_the_win_rate_margin_and_think_times_last():
    result = run("duel", "--games", "8")
    assert result.returncode == 0, result.stderr
    keys = [line.split(": ")[0] for line in result.stdout.strip().splitlines()[-4:]]
    assert keys == ["win_rate", "mean_score_margin", "think_ms_p50", "think_ms_p95"]
    win_rate = float(result.stdout.strip().splitlines()[-4].split(": ")[1])
    assert 0 <= win_rate <= 1
