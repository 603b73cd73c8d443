"""The bots job keeps the worker's clock: it stops between moves when the worker is asked to
stop, and gives each move's thinking no more wall time than the poll has left."""
from __future__ import annotations

from datetime import datetime, timedelta

import engine.bots
from game_helpers import bot_turns_due, cfg_of, db_of, game_row

from pbem.games import bots

NOW = datetime(2026, 1, 5, 12, 0, 0)


def test_the_bots_job_starts_no_move_once_the_worker_is_asked_to_stop(app):
    ids = bot_turns_due(app, 3, NOW)
    later = NOW + timedelta(minutes=1)
    assert bots.play_due_bots(db_of(app), cfg_of(app), later, stop=lambda: True) == 0
    asked = iter([False, True])
    assert bots.play_due_bots(db_of(app), cfg_of(app), later, stop=lambda: next(asked)) == 1
    assert [game_row(app, g).version for g in ids] == [2, 1, 1]


def test_the_workers_stop_reaches_the_bots_job(app):
    import pbem.worker as worker
    bot_turns_due(app, 2, NOW)
    calls = iter([False, True, True, True])
    result = worker.run_job("bots", db_of(app), cfg_of(app), NOW + timedelta(minutes=1),
                            stop=lambda: next(calls))
    assert result["moves"] == 0  # run_job's own check passed; the job's first check stopped it


def test_a_bot_thinks_no_longer_than_the_poll_has_left(app, monkeypatch):
    bot_turns_due(app, 2, NOW, bot="expert")
    caps = []
    real = engine.bots.get_bot

    def recording(name, **kwargs):
        caps.append(kwargs.get("wall_ms"))
        return real(name, **kwargs)

    monkeypatch.setattr(engine.bots, "get_bot", recording)
    later = NOW + timedelta(minutes=1)
    assert bots.play_due_bots(db_of(app), cfg_of(app), later, budget_seconds=0.3) == 1
    assert len(caps) == 1 and 0 <= caps[0] <= 300  # the second move did not fit: left due
    caps.clear()
    assert bots.play_due_bots(db_of(app), cfg_of(app), later, budget_seconds=10) == 1
    assert caps == [bots.BOT_MOVE_WALL_SECONDS * 1000]
