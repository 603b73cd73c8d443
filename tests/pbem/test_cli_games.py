"""`flask --app pbem create-game` and `export-game`: the id alone on the last line, one-line
refusals that create nothing, and an export `python -m engine replay` turns into the game."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import engine
import pytest
from game_helpers import cfg_of, db_of, deck_with_hands, game_row, outbox, seats
from sqlmodel import func, select

from pbem.db import session_scope
from pbem.games import service
from pbem import store
from pbem.models import Game

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


def _games(app) -> int:
    with session_scope(db_of(app)) as s:
        return s.exec(select(func.count()).select_from(Game)).one()


def _create(runner, *args: str):
    return runner.invoke(args=["create-game", *args])


def test_create_game_prints_the_id_alone_on_its_last_line(app, runner):
    result = _create(runner, "--player", ANN, "--player", BOB, "--player", "bot:greedy",
                     "--seed", "17", "--name", "Friday game", "--deadline-hours", "24",
                     "--reminders", "25,75", "--on-timeout", "pause",
                     "--option", "waiting_time=on", "--option", "end_settlement=none")
    assert result.exit_code == 0, result.output
    game_id = int(result.output.strip().splitlines()[-1])
    game = game_row(app, game_id)
    assert (game.name, game.seed, game.deadline_hours, game.reminders, game.on_timeout) == (
        "Friday game", 17, 24.0, "25,75", "pause")
    assert json.loads(game.options_json) == {"end_settlement": "none", "waiting_time": True}
    assert [(s.name, s.kind, s.bot) for s in seats(app, game_id)] == [
        ("Ann", "human", None), ("Bob", "human", None), ("Greedy bot", "bot", "greedy")]
    assert [m.kind for m in outbox(app)] == ["welcome", "welcome", "turn"]


def test_create_game_invite_from_asks_the_players_first(app, runner):
    result = _create(runner, "--player", ANN, "--player", BOB, "--player", "bot:greedy",
                     "--invite-from", "boss@korsar.test")
    assert result.exit_code == 0, result.output
    assert "/p/" in result.output.strip().splitlines()[-1]  # the page to manage it
    assert sorted(m.kind for m in outbox(app)) == ["invitation", "invitation"]
    assert _games(app) == 0


@pytest.mark.parametrize("flag, talk", [((), False), (("--table-talk",), True)])
def test_table_talk_is_off_unless_the_game_is_created_with_it(app, runner, flag, talk):
    result = _create(runner, "--player", ANN, "--player", BOB, *flag)
    assert result.exit_code == 0, result.output
    assert game_row(app, int(result.output.strip().splitlines()[-1])).table_talk is talk


def test_create_game_with_teams_and_a_deck_file(app, runner, tmp_path):
    deck = deck_with_hands(["M8", "AD", "BC", "GC", "RC", "KC"])
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(deck))
    result = _create(runner, "--player", ANN, "--player", BOB, "--player", "Cid <cid@example.com>",
                     "--player", "Dan <dan@example.com>", "--teams", "--deck-file", str(path))
    assert result.exit_code == 0, result.output
    game = game_row(app, int(result.output.splitlines()[-1]))
    assert game.teams and game.seed is None and json.loads(game.deck_json) == deck
    assert [s.team for s in seats(app, game.id)] == [0, 0, 1, 1]


@pytest.mark.parametrize("args,reason", [
    (["--player", ANN], "player"),
    (["--player", ANN, "--player", "Bob <bob@example>"], "not an email address"),
    (["--player", ANN, "--player", "Bob bob@example.com"], "not a player"),
    (["--player", ANN, "--player", BOB, "--option", "speed=fast"], "Unknown option 'speed'"),
    (["--player", ANN, "--player", BOB, "--option", "waiting_time"], "key=value"),
    (["--player", ANN, "--player", BOB, "--seed", "abc"], "The seed must be a number"),
    (["--player", ANN, "--player", BOB, "--deck-file", "/nonexistent/deck.json"], "Cannot read"),
    (["--player", ANN, "--player", BOB, "--on-timeout", "sulk"], "on_timeout"),
    (["--player", ANN, "--player", BOB, "--player", "bot:genius"], "Unknown bot"),
    (["--player", ANN, "--player", BOB, "--player", "Cid <cid@example.com>", "--teams"], "(?i)team"),
])
def test_create_game_refuses_bad_input_with_one_line_and_creates_nothing(app, runner, args, reason):
    result = _create(runner, *args)
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ")
    assert re.search(reason, lines[0])
    assert _games(app) == 0 and outbox(app) == []


@pytest.mark.parametrize("content,reason", [("{not json", "not JSON"), ('{"a": 1}', "JSON list"),
                                            ('["M2"]', "78")])
def test_create_game_refuses_a_bad_deck_file(app, runner, tmp_path, content, reason):
    path = tmp_path / "deck.json"
    path.write_text(content)
    result = _create(runner, "--player", ANN, "--player", BOB, "--deck-file", str(path))
    assert result.exit_code != 0 and reason in result.output and _games(app) == 0


def test_export_game_prints_a_record_that_replays_to_the_stored_state(app, runner):
    game_id = int(_create(runner, "--player", ANN, "--player", BOB, "--seed", "3").output.split()[-1])
    with session_scope(db_of(app)) as s:
        while (game := s.get(Game, game_id)).to_move is not None:  # played to the end
            move = engine.legal_moves(store.load_state(game))[-1]
            service.apply_game_move(s, cfg_of(app), game_id, game.to_move, move,
                                    expected_version=game.version)
    game = game_row(app, game_id)
    assert game.status == "finished"
    result = runner.invoke(args=["export-game", str(game_id)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert set(record) == {"players", "teams", "options", "deck", "moves"}
    assert len(record["moves"]) == game.version and all("player" in m for m in record["moves"])
    engine_cli = subprocess.run([sys.executable, "-m", "engine", "replay", "-"], input=result.output,
                                capture_output=True, text=True, check=True)
    report = json.loads(engine_cli.stdout)
    state = store.load_state(game)
    assert report["ok"] and report["version"] == game.version
    assert [sorted(h) for h in report["hands"]] == \
        [sorted(engine.player_view(state, s)["hand"]) for s in range(2)]
    assert report["scores"] == engine.scores(state)


def test_export_game_of_a_game_still_being_played_is_refused_with_one_line(app, runner):
    game_id = int(_create(runner, "--player", ANN, "--player", BOB).output.split()[-1])
    result = runner.invoke(args=["export-game", str(game_id)])
    assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1
    assert result.output.startswith(f"Error: Game {game_id} is still being played")
    assert "[" not in result.output  # no deck


def test_create_game_never_prints_the_seed_and_says_how_it_was_dealt(app, runner):
    seeded = _create(runner, "--player", ANN, "--player", BOB, "--seed", "424242")
    assert seeded.exit_code == 0 and "424242" not in seeded.output and "the given seed" in seeded.output
    live = _create(runner, "--player", ANN, "--player", BOB)
    assert "dealt from the system's randomness" in live.output
    assert game_row(app, int(live.output.split()[-1])).seed is None
    help_text = runner.invoke(args=["create-game", "--help"]).output
    assert "predictable deal, for tests and replays" in " ".join(help_text.split())


def test_export_game_of_an_unknown_id_fails_with_one_line(app, runner):
    result = runner.invoke(args=["export-game", "999"])
    assert result.exit_code != 0 and result.output.strip() == "Error: There is no game 999."


def test_the_real_flask_command_prints_the_id_last(app, app_config):
    env = {**os.environ, "DATABASE_URL": app_config["DATABASE_URL"], "SECRET_KEY": "test-secret",
           "KORSAR_ENV": "testing", "BASE_URL": "http://korsar.test"}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "pbem", "create-game",
                           "--player", ANN, "--player", "bot:random"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    last = done.stdout.strip().splitlines()[-1]
    assert last.isdigit() and game_row(app, int(last)).status == "running"
    bad = subprocess.run([sys.executable, "-m", "flask", "--app", "pbem", "create-game",
                          "--player", ANN], capture_output=True, text=True, env=env, timeout=60)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1
