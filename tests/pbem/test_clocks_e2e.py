"""End to end with real processes: `flask --app pbem worker` against a real SMTP server, a game
whose reminder is due and whose deadline then passes: the reminder and then the timeout autoplay
arrive by email."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.db import make_engine, session_scope
from pbem.models import Game, MoveRecord, OnTimeout, Seat
from pbem.games.settings import GameSettings

ROOT = Path(__file__).resolve().parents[2]
FLASK = [sys.executable, "-m", "flask", "--app", "pbem"]


def wait_for(condition: Callable[[], bool], seconds: float = 180) -> bool:
    """Poll `condition` until it holds (True) or `seconds` pass (False): generous, as a loaded
    machine (8 test processes on 2 cores) may take a minute to start a worker."""
    until = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > until:
            return False
        time.sleep(0.1)
    return True


def daytime_zone() -> str:
    """A fixed-offset zone where it is now around midday (so quiet hours never hold the reminder)."""
    hour = datetime.now(timezone.utc).hour
    offset = (13 - hour + 12) % 24 - 12  # local = UTC + offset, in -12..11
    return "UTC" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"


@pytest.mark.slow
def test_a_worker_process_sends_the_reminder_then_applies_the_timeout(database_url, smtp_server, tmp_path):
    env = dict(os.environ, DATABASE_URL=database_url, SECRET_KEY="e2e-secret",
               BASE_URL="http://korsar.test", SMTP_HOST=smtp_server.host, SMTP_PORT=str(smtp_server.port),
               MAIL_FROM="Korsar <korsar@korsar.test>", KORSAR_ENV="testing", WORKER_POLL_SECONDS="0.2",
               BOT_DELAY_SECONDS="0")
    created = subprocess.run(
        [*FLASK, "create-game", "--player", "Ann <ann@example.com>", "--player", "Bob <bob@example.com>",
         "--seed", "5", "--deadline-hours", "1", "--reminders", "50", "--on-timeout", "autoplay"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    engine = make_engine(database_url)
    if created.returncode != 0 and "No such command" in created.stderr:  # the CLI lands in parallel
        from pbem.config import Config
        from pbem.games.service import create_game

        with session_scope(engine) as session:
            game_id = create_game(session, Config.from_env(env), ["Ann <ann@example.com>", "Bob <bob@example.com>"],
                                  GameSettings(deadline_hours=1, reminders="50", on_timeout=OnTimeout.AUTOPLAY),
                                  seed=5).id
    else:
        assert created.returncode == 0, created.stderr
        game_id = int(created.stdout.strip().splitlines()[-1])
    # The turn began half an hour ago (of its hour): the 50 % reminder is due now and the deadline
    # half an hour away, so however slowly the worker starts on a loaded machine, it sends the
    # reminder first; the test then moves the deadline to now. Nothing waits on a fixed window.
    with session_scope(engine) as session:
        from pbem.schedule import plan_turn
        from pbem.models import utcnow

        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == game.to_move)).one()
        seat.timezone = daytime_zone()  # a zone where it is daytime: quiet hours hold nothing
        plan_turn(game, seat, utcnow() - timedelta(minutes=30))
        session.add_all([seat, game])
        mover = seat.email
    assert game.deadline_at is not None and game.next_reminder_at is not None

    log = tmp_path / "worker.log"  # a file, not a pipe nobody reads while the worker runs
    with log.open("w") as stderr:
        worker = subprocess.Popen([*FLASK, "worker"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            if wait_for(lambda: any("reminder" in m["Subject"] for m in smtp_server.to(mover))):
                with session_scope(engine) as session:
                    session.get(Game, game_id).deadline_at = utcnow()
                wait_for(lambda: any("bot played for you" in m["Subject"] for m in smtp_server.to(mover)))
        finally:
            worker.terminate()
            worker.wait(timeout=60)
    err = log.read_text()
    subjects = [m["Subject"] for m in smtp_server.to(mover)]
    assert sum("reminder" in s for s in subjects) == 1, (subjects, err[-2000:])
    assert sum("bot played for you" in s for s in subjects) == 1, (subjects, err[-2000:])
    reminder = next(m for m in smtp_server.to(mover) if "reminder" in m["Subject"])
    assert reminder["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    with session_scope(engine) as session:
        (move,) = session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)).all()
    assert move.source == "timeout"
    engine.dispose()
