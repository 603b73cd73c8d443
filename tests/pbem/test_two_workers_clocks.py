"""Two workers sweeping at the same moment never send a reminder twice, never apply a timeout
twice and never send an attack batch twice."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

from sqlmodel import select

from clockkit import T0, mails, make_cfg, start_game
from pbem.clocks.notices import record_attacks
from pbem.clocks.sweep import run_sweep
from pbem.db import make_engine, session_scope
from pbem.games.service import lock_game, seats_of
from pbem.models import MoveRecord


def test_two_workers_at_once_do_each_piece_of_due_work_exactly_once(database_url):
    setup = make_engine(database_url)
    cfg = make_cfg(database_url)
    reminder_games = [start_game(setup, cfg, deadline_hours=10) for _ in range(12)]
    timeout_games = [start_game(setup, cfg, now=T0 - timedelta(hours=10), deadline_hours=10)
                     for _ in range(12)]
    for game_id in reminder_games[:6]:
        with session_scope(setup) as session:
            game = lock_game(session, game_id)
            event = {"kind": "pirate", "seat": 1, "card": "B3", "ship": 1, "owner": 0, "value": 5}
            record_attacks(session, cfg, game, seats_of(session, game_id), [event], T0)
    now = T0 + timedelta(hours=5)  # the 50 % reminders and the timeouts are all due

    engines = [make_engine(database_url) for _ in range(2)]
    barrier = threading.Barrier(2)
    reports: list[dict] = []
    errors: list[BaseException] = []

    def worker(engine) -> None:
        try:
            barrier.wait()
            for _ in range(3):
                reports.append(run_sweep(engine, cfg, now))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors

    reminders = Counter(m.game_id for m in mails(setup, "reminder"))
    assert reminders == Counter({g: 1 for g in reminder_games})
    with session_scope(setup) as session:
        moves = Counter(r.game_id for r in session.exec(select(MoveRecord)))
    assert moves == Counter({g: 1 for g in timeout_games})
    assert len(mails(setup, "timeout_autoplay")) == 12
    attacked = Counter(m.game_id for m in mails(setup, "attacked"))
    assert attacked == Counter({g: 1 for g in reminder_games[:6]})
    assert sum(r["reminders"] for r in reports) == 12
    assert sum(r["timeouts"] for r in reports) == 12
    for engine in (setup, *engines):
        engine.dispose()
