"""Two workers sweeping at the same moment never send a reminder twice, never apply a timeout
twice and never send an attack batch twice."""
from __future__ import annotations

import threading
from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import select

from clockkit import T0, mails, make_cfg, start_game
from pbem.games.notices import record_attacks
from pbem.games.clocks.sweep import run_sweep
from pbem.db import make_engine, session_scope
from pbem.games.service import lock_game_with_seats, seats_of
from pbem.models import MoveRecord, OnTimeout
from pbem.games.settings import GameSettings


def test_two_workers_at_once_do_each_piece_of_due_work_exactly_once(database_url):
    setup = make_engine(database_url)
    cfg = make_cfg(database_url)
    reminder_games = [start_game(setup, cfg, deadline_hours=10) for _ in range(12)]
    timeout_games = [start_game(setup, cfg, now=T0 - timedelta(hours=10), deadline_hours=10)
                     for _ in range(12)]
    for game_id in reminder_games[:6]:
        with session_scope(setup) as session:
            game = lock_game_with_seats(session, game_id)[0]
            event = {"kind": "pirate", "seat": 1, "card": "B3", "ship": 1, "owner": 0, "value": 5, "attack": True}
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


@pytest.mark.slow
def test_two_worker_processes_send_each_reminder_once_and_apply_each_timeout_once(database_url,
                                                                                    smtp_server):
    import os
    import subprocess
    from pathlib import Path

    from test_clocks_e2e import FLASK, daytime_zone, wait_for

    from pbem.schedule import plan_turn
    from pbem.games.service import create_game
    from pbem.models import Game, Seat, utcnow

    env = dict(os.environ, DATABASE_URL=database_url, SECRET_KEY="e2e-secret",
               BASE_URL="http://korsar.test", SMTP_HOST=smtp_server.host, SMTP_PORT=str(smtp_server.port),
               MAIL_FROM="Korsar <korsar@korsar.test>", KORSAR_ENV="testing", WORKER_POLL_SECONDS="0.1",
               BOT_DELAY_SECONDS="0")
    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    games = []
    # Each turn began half an hour ago (of its hour): the 50 % reminders are due now, the deadlines
    # half an hour away; once the reminders are out the test moves the deadlines to now. However
    # slowly the workers start on a loaded machine, no due piece of work is passed over.
    with session_scope(engine) as session:
        for n in range(4):
            game = create_game(session, cfg, [f"P{n}a <p{n}a@example.com>", f"P{n}b <p{n}b@example.com>"],
                               GameSettings(deadline_hours=1, reminders="50", on_timeout=OnTimeout.PAUSE), seed=n)
            for seat in seats_of(session, game.id):
                seat.timezone = daytime_zone()
                session.add(seat)
            games.append(game)
        session.flush()
        began = utcnow() - timedelta(minutes=30)
        for game in games:
            plan_turn(game, seats_of(session, game.id)[game.to_move], began)
            session.add(game)
    ids = [g.id for g in games]
    root = Path(__file__).resolve().parents[2]

    def delivered(kind: str, count: int) -> bool:
        return len(mails(engine, kind)) >= count and len(smtp_server.messages) >= len(mails(engine))

    def all_paused() -> bool:
        with session_scope(engine) as session:
            paused = session.exec(select(Game).where(Game.status == "paused")).all()
        return len(paused) == 4 and delivered("paused", 8)

    workers = [subprocess.Popen([*FLASK, "worker"], cwd=root, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        if wait_for(lambda: delivered("reminder", 4)):
            with session_scope(engine) as session:
                for game_id in ids:
                    session.get(Game, game_id).deadline_at = utcnow()
            wait_for(all_paused)
    finally:
        for w in workers:
            w.terminate()
        for w in workers:
            w.wait(60)
    reminders = Counter(m.game_id for m in mails(engine, "reminder"))
    assert reminders == Counter({g: 1 for g in ids})
    paused_mails = Counter(m.game_id for m in mails(engine, "paused"))
    assert paused_mails == Counter({g: 2 for g in ids})  # the two players of each game, once
    with session_scope(engine) as session:
        assert len(session.exec(select(Seat).where(Seat.timeouts == 1)).all()) == 4
    ids_received = [m["Message-ID"] for m in smtp_server.messages]
    assert len(ids_received) == len(set(ids_received))  # no email delivered twice
    engine.dispose()
