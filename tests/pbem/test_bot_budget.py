"""Bots in the worker: a time budget per poll, a backlog that drains over polls, thinking
outside the game's row lock, and the expert bot wherever a bot can be named."""
from __future__ import annotations

from datetime import datetime, timedelta

import engine
from game_helpers import bot_turns_due, cfg_of, db_of, game_row, move_count, seats, start_game
from sqlmodel import select

import pbem.worker as worker
from pbem.db import session_scope
from pbem.games import bots, service, setup
from pbem.models import MoveRecord

NOW = datetime(2026, 1, 5, 12, 0, 0)
ANN = "Ann <ann@example.com>"


def test_a_backlog_of_bot_moves_drains_over_polls_oldest_first_within_the_budget(app):
    ids = bot_turns_due(app, 4, NOW)
    later = NOW + timedelta(minutes=1)
    for poll in range(len(ids)):
        # A spent budget still plays one move a poll: the backlog always makes progress.
        assert bots.play_due_bots(db_of(app), cfg_of(app), later, budget_seconds=0) == 1
        assert [game_row(app, g).version for g in ids] == [2] * (poll + 1) + [1] * (3 - poll)
    assert bots.play_due_bots(db_of(app), cfg_of(app), later, budget_seconds=0) == 0


def test_the_workers_bots_job_stops_at_its_budget_and_the_next_polls_go_on(app, monkeypatch):
    ids = bot_turns_due(app, 3, NOW)
    monkeypatch.setattr(worker, "BOTS_BUDGET_SECONDS", 0.0)
    later = NOW + timedelta(minutes=1)
    moves = [worker.run_job("bots", db_of(app), cfg_of(app), later)["moves"] for _ in range(4)]
    assert moves == [1, 1, 1, 0]
    assert all(game_row(app, g).version == 2 for g in ids)


def test_without_a_budget_every_due_bot_move_is_played_at_once(app):
    ids = bot_turns_due(app, 3, NOW)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(minutes=1)) == 3
    assert all(game_row(app, g).version == 2 for g in ids)


def test_the_bot_thinks_without_holding_the_games_row_lock(app, monkeypatch):
    [game_id] = bot_turns_due(app, 1, NOW)
    think = bots.bot_move
    locked_while_thinking = []

    def thinking(game, seat, state, view=None, *, cfg):
        with session_scope(db_of(app)) as s:  # would wait for (and time out on) a held lock
            service.lock_game_with_seats(s, game_id)
            locked_while_thinking.append(True)
        return think(game, seat, state, view, cfg=cfg)

    monkeypatch.setattr(bots, "bot_move", thinking)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(minutes=1)) == 1
    assert locked_while_thinking == [True] and game_row(app, game_id).version == 2


def test_a_game_that_moved_on_while_the_bot_thought_gets_no_second_move(app, monkeypatch):
    [game_id] = bot_turns_due(app, 1, NOW)
    think = bots.bot_move
    later = NOW + timedelta(minutes=1)

    def slow(game, seat, state, view=None, *, cfg):
        move = think(game, seat, state, view, cfg=cfg)
        monkeypatch.setattr(bots, "bot_move", think)
        # Another worker plays the same due move while this one is still thinking.
        assert bots.play_due_bots(db_of(app), cfg_of(app), later) == 1
        return move

    monkeypatch.setattr(bots, "bot_move", slow)
    assert bots.play_due_bots(db_of(app), cfg_of(app), later) == 0
    assert game_row(app, game_id).version == 2 and move_count(app, game_id) == 2


def test_an_expert_bot_seat_is_played_by_the_worker(app):
    game_id = start_game(app, [ANN, "bot:expert"], seed=3, now=NOW)
    assert [s.bot for s in seats(app, game_id)] == [None, "expert"]
    with session_scope(db_of(app)) as s:
        service.apply_game_move(s, cfg_of(app), game_id, 0, {"action": "draw"},
                                expected_version=0, now=NOW)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(seconds=1)) == 1
    with session_scope(db_of(app)) as s:
        assert s.exec(select(MoveRecord.source).where(MoveRecord.game_id == game_id,
                                                      MoveRecord.number == 2)).one() == "bot"


def test_the_expert_bot_is_named_like_every_engine_bot(runner, admin_client, admin_app):
    assert "expert" in engine.bots.BOTS
    assert setup.parse_player("bot:expert").bot == "expert"
    result = runner.invoke(args=["create-game", "--player", ANN, "--player", "bot:expert",
                                 "--seed", "5"])
    assert result.exit_code == 0, result.output
    cli_game = int(result.output.strip().splitlines()[-1])
    assert seats(runner.app, cli_game)[1].bot == "expert"
    form = {"name": "Expert table", "end_settlement": "resolve", "deadline_hours": "48",
            "reminders": "", "on_timeout": "pause",
            "players-0-name": "Ann", "players-0-email": "ann@example.com", "players-0-kind": "human",
            "players-1-name": "Robo", "players-1-email": "", "players-1-kind": "bot:expert"}
    assert 'value="bot:expert"' in admin_client.get("/admin/games/new").get_data(as_text=True)
    response = admin_client.post("/admin/games/new", data=form)
    assert response.status_code == 303
    game_id = int(response.headers["Location"].rsplit("/", 1)[1])
    assert seats(admin_app, game_id)[1].bot == "expert"
