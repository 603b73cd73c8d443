"""`flask --app pbem create-game` stores the clock settings and starts the first turn's clock."""
from __future__ import annotations

import pytest

from pbem.db import session_scope
from pbem.models import Game


@pytest.mark.parametrize("args,hours,ladder,policy", [
    ([], 72.0, "50,85", "autoplay"),
    (["--deadline-hours", "720", "--reminders", "25,50,90", "--on-timeout", "pause"], 720.0, "25,50,90", "pause"),
    (["--deadline-hours", "36.5", "--reminders", "85,50", "--on-timeout", "bot"], 36.5, "50,85", "bot"),
])
def test_create_game_stores_the_deadline_the_ladder_and_the_timeout_policy(app, runner, args, hours,
                                                                          ladder, policy):
    result = runner.invoke(args=["create-game", "--player", "Ann <ann@example.com>",
                                 "--player", "Bob <bob@example.com>", "--seed", "1", *args])
    assert result.exit_code == 0, result.output
    game_id = int(result.output.strip().splitlines()[-1])
    with session_scope(app.extensions["korsar_db"]) as session:
        game = session.get(Game, game_id)
    assert (game.deadline_hours, game.reminders, game.on_timeout) == (hours, ladder, policy)
    assert game.deadline_at is not None and game.turn_started_at is not None
    assert game.next_reminder_at is None or game.next_reminder_at < game.deadline_at


@pytest.mark.parametrize("args,message", [
    (["--deadline-hours", "-1"], "deadline"),
    (["--reminders", "50,abc"], "Reminders"),
    (["--reminders", "150"], "between 0 and 100"),
    (["--on-timeout", "explode"], "on_timeout"),
])
def test_bad_clock_settings_are_refused_and_create_nothing(app, runner, args, message):
    result = runner.invoke(args=["create-game", "--player", "Ann <ann@example.com>",
                                 "--player", "Bob <bob@example.com>", *args])
    assert result.exit_code != 0
    assert message.lower() in result.output.lower()
    with session_scope(app.extensions["korsar_db"]) as session:
        assert session.get(Game, 1) is None
