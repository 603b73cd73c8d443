"""The sweep's time budget: work left over stays due and unclaimed for the next sweep."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta

from clockkit import T0, mails, make_cfg, start_game
from pbem.games.clocks.sweep import run_sweep
from pbem.db import make_engine


def test_a_spent_budget_leaves_the_work_due_for_the_next_sweep(database_url):
    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    games = [start_game(engine, cfg, deadline_hours=10) for _ in range(3)]
    now = T0 + timedelta(hours=5)
    first = run_sweep(engine, cfg, now, budget_seconds=0)
    assert first == {"timeouts": 0, "reminders": 0, "notice_emails": 0, "deferred": 3}
    assert mails(engine, "reminder") == []
    second = run_sweep(engine, cfg, now)
    assert second["reminders"] == 3 and second["deferred"] == 0
    assert Counter(m.game_id for m in mails(engine, "reminder")) == Counter(games)
    engine.dispose()


def test_the_workers_clock_job_keeps_to_its_budget_and_catches_up_at_the_next_poll(database_url):
    from pbem.worker import run_job

    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    for _ in range(3):
        start_game(engine, cfg, deadline_hours=10)
    now = T0 + timedelta(hours=5)
    spent = run_job("clocks", engine, cfg, now, sweep_budget=0)
    assert (spent["reminders"], spent["deferred"]) == (0, 3)
    caught_up = run_job("clocks", engine, cfg, now, sweep_budget=0.4)
    assert (caught_up["reminders"], caught_up["deferred"]) == (3, 0)
    engine.dispose()


def _statements_of_a_sweep(engine, cfg, games: int) -> int:  # type: ignore[no-untyped-def]
    from sqlalchemy import event, update

    from pbem.models import Game

    with engine.begin() as conn:  # only the games started here are due
        conn.execute(update(Game).values(next_reminder_at=None))
    for _ in range(games):
        start_game(engine, cfg, deadline_hours=10)
    statements: list[str] = []

    def count(*args) -> None:  # type: ignore[no-untyped-def]
        statements.append(args[2])

    event.listen(engine, "before_cursor_execute", count)
    try:
        report = run_sweep(engine, cfg, T0 + timedelta(hours=5))
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert report["reminders"] == games
    return len(statements)


def test_a_sweep_of_many_reminders_costs_the_statements_of_a_few(database_url):
    """Claims, ladder steps and outbox rows go in a few statements per chunk: no query per game
    (a column left out of the claim's load_only would be lazy-loaded once per reminder)."""
    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    assert _statements_of_a_sweep(engine, cfg, 12) == _statements_of_a_sweep(engine, cfg, 2)
    engine.dispose()
