"""The expert's analysis in the service: queued by the one end of a game, computed once by the
worker outside any transaction (two workers included), shown on the seat's page, announced by
the game-over email, and mailed when ready only to an address that chose it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from game_helpers import cfg_of, db_of, game_row, outbox, seats, start_game
from sqlmodel import select
from test_seat_actions import play_to_the_end

from pbem import links
from pbem.db import session_scope
from pbem.games import analysis, lifecycle
from pbem.games.errors import GameNotOver
from pbem.games.seated import lock_seated
from pbem.letters.analysis import analysis_notice
from pbem.models import GameStatus, MoveRecord, utcnow
from pbem.models_analysis import AnalysisJob, AnalysisMove, AnalysisStatus
from pbem.worker import run_job

ANN = "Ann <ann@example.com>"


@pytest.fixture
def finished(app) -> int:
    game_id = start_game(app, [ANN, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    return game_id


def _job(app, game_id: int) -> AnalysisJob | None:
    with session_scope(db_of(app)) as s:
        return s.exec(select(AnalysisJob).where(AnalysisJob.game_id == game_id)).first()


def _stored(app, game_id: int) -> list[AnalysisMove]:
    with session_scope(db_of(app)) as s:
        return analysis.moves_analysed(s, game_id)


def _page(app, game_id: int) -> str:
    ann = seats(app, game_id)[0]
    return "/g/" + links.sign_seat(cfg_of(app), game_id, 0, ann.link_nonce) + "/analysis"


def test_the_end_of_a_game_queues_one_job_and_the_worker_stores_every_human_move(app, finished):
    job = _job(app, finished)
    assert job is not None and job.status == AnalysisStatus.PENDING and job.ready_by > job.queued_at
    report = run_job("analysis", db_of(app), cfg_of(app))
    assert report["analysed"] == 1
    assert run_job("analysis", db_of(app), cfg_of(app))["analysed"] == 0  # nothing left
    job = _job(app, finished)
    assert job.status == AnalysisStatus.DONE and job.stopped_at is None and job.playouts > 0
    with session_scope(db_of(app)) as s:
        played = [m.number - 1 for m in s.exec(select(MoveRecord).where(
            MoveRecord.game_id == finished, MoveRecord.seat == 0, MoveRecord.source == "player"))]
    stored = _stored(app, finished)
    assert [m.step for m in stored] == sorted(played) and all(m.seat == 0 for m in stored)


def test_an_aborted_game_gets_no_analysis(app):
    game_id = start_game(app, [ANN, "bot:greedy"], seed=3)
    with session_scope(db_of(app)) as s:
        lifecycle.abort_game(s, cfg_of(app), game_id, now=utcnow(), actor="admin@example.com")
    assert _job(app, game_id) is None


def test_a_running_game_is_never_analysed(app, client):
    game_id = start_game(app, [ANN, "bot:greedy"], seed=3)
    assert _job(app, game_id) is None
    with session_scope(db_of(app)) as s:
        with pytest.raises(GameNotOver):
            analysis.analysis_page(s, lock_seated(s, game_id, 0))
    response = client.get(_page(app, game_id))
    assert response.status_code == 409
    assert "still being played" in response.get_data(as_text=True)


def test_two_workers_analyse_a_game_once(app, finished):
    db, cfg = db_of(app), cfg_of(app)
    now = utcnow()
    assert analysis.claim_job(db, "w1", now) == finished
    assert analysis.claim_job(db, "w2", now) is None  # leased to w1
    # w1 dies; after its lease, w2 takes the job over; w1's late result is not stored.
    later = now + analysis.LEASE + timedelta(seconds=1)
    assert analysis.claim_job(db, "w2", later) == finished
    assert analysis.analyse_one(db, cfg, finished, "w2") == "analysed"
    assert analysis.analyse_one(db, cfg, finished, "w1") == "lost"
    stored = _stored(app, finished)
    assert stored and len({m.step for m in stored}) == len(stored)
    assert _job(app, finished).attempts == 2


def test_the_page_shows_marks_the_experts_move_and_the_chart(app, client, finished):
    response = client.get(_page(app, finished))
    assert response.status_code == 200
    assert "data-pending" in response.get_data(as_text=True)  # not computed yet: when it will be
    run_job("analysis", db_of(app), cfg_of(app))
    html = client.get(_page(app, finished)).get_data(as_text=True)
    assert "data-analysis-step" in html and "data-best" in html and "data-counts" in html
    assert "<svg" in html and "<title id=\"analysis-chart-title\">" in html and "<table>" in html
    # Bob's hand is never on the page (it is over, but the analysis shows the views only).
    assert "data-played" in html


def test_the_page_says_it_is_late_once_the_promised_time_has_passed(app, client, finished):
    html = client.get(_page(app, finished)).get_data(as_text=True)
    assert "data-pending" in html and "data-late" not in html  # "ready in about N minutes"
    with session_scope(db_of(app)) as s:
        job = s.exec(select(AnalysisJob).where(AnalysisJob.game_id == finished)).one()
        job.ready_by = utcnow() - timedelta(minutes=5)  # the worker is behind
        s.add(job)
    html = client.get(_page(app, finished)).get_data(as_text=True)
    assert "data-late" in html and "taking longer than expected" in html and "about 1 minute" not in html


def test_the_game_over_email_says_when_and_links(app, finished):
    cfg = cfg_of(app)
    with session_scope(db_of(app)) as s:
        game = game_row(app, finished)
        ann = seats(app, finished)[0]
        notice = analysis_notice(s, cfg, game, ann)
    assert notice is not None and not notice["ready"] and notice["minutes"] >= 1
    assert notice["url"].endswith("/analysis")
    from pbem.letters.notify import game_over_email

    with session_scope(db_of(app)) as s:
        email = game_over_email(s, cfg, game_row(app, finished), seats(app, finished)[0])
    assert "will be ready in about" in email.text_body and "/analysis" in email.text_body
    run_job("analysis", db_of(app), cfg)
    with session_scope(db_of(app)) as s:
        email = game_over_email(s, cfg, game_row(app, finished), seats(app, finished)[0])
    assert "analysis of your moves is ready" in email.text_body


def test_no_ready_email_unless_chosen(app, finished):
    run_job("analysis", db_of(app), cfg_of(app))
    assert outbox(app, finished, kind="analysis_ready") == []


def test_the_ready_email_when_chosen_on_me(app):
    with session_scope(db_of(app)) as s:
        analysis.set_ready_email(s, "ANN@example.com", True)
    game_id = start_game(app, [ANN, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    assert game_row(app, game_id).status == GameStatus.FINISHED
    run_job("analysis", db_of(app), cfg_of(app))
    rows = outbox(app, game_id, kind="analysis_ready")
    assert len(rows) == 1 and "/analysis" in rows[0].text_body
    assert "my games" in rows[0].text_body  # how to stop it


def test_the_ready_email_is_chosen_on_me_off_by_default(app, client):
    start_game(app, [ANN, "bot:greedy"], seed=3)
    path = links.my_games_url(cfg_of(app), "ann@example.com").removeprefix(cfg_of(app).BASE_URL)
    page = client.get(path).text
    assert 'name="analysis_email" data-analysis-email>' in page  # not checked
    assert client.post(path + "/prefs", data={"timezone": "UTC", "analysis_email": "on"}).status_code == 303
    with session_scope(db_of(app)) as s:
        assert analysis.ready_email_chosen(s, "ann@example.com")
    assert 'name="analysis_email" checked data-analysis-email>' in client.get(path).text
    client.post(path + "/prefs", data={"timezone": "UTC"})
    with session_scope(db_of(app)) as s:
        assert not analysis.ready_email_chosen(s, "ann@example.com")


def test_the_replay_gets_one_steps_analysis_and_the_chart(app, finished):
    with session_scope(db_of(app)) as s:
        assert analysis.replay_analysis(s, lock_seated(s, finished, 0), 1) == (None, None)  # not yet
    run_job("analysis", db_of(app), cfg_of(app))
    first = _stored(app, finished)[0]
    with session_scope(db_of(app)) as s:
        step, chart = analysis.replay_analysis(s, lock_seated(s, finished, 0), first.step + 1)
        bot_step, _chart = analysis.replay_analysis(s, lock_seated(s, finished, 0), first.step + 2)
    assert step is not None and step.number == first.step + 1 and step.mark == first.mark
    assert bot_step is None  # the bot's move: not analysed
    # The replay hands its own states in (its cache): the same analysis, the record not replayed again.
    from pbem.games.records import export_record
    from pbem.present.replay import replay_states

    with session_scope(db_of(app)) as s:
        states = replay_states(export_record(s, finished))
        assert analysis.replay_analysis(s, lock_seated(s, finished, 0), first.step + 1, states) == (step, chart)
    assert chart is not None and chart.rows and chart.path.startswith("M")
    html = app.jinja_env.get_template("replay/_analysis.html").render(analysis=step, analysis_chart=chart)
    assert "data-analysis-step" in html and "<svg" in html and "<title" in html and "<table>" in html


def test_the_admin_sees_the_marks_counted_and_each_steps_mark_in_the_replay(admin_app, admin_client):
    game_id = start_game(admin_app, [ANN, "bot:greedy"], seed=3)
    play_to_the_end(admin_app, game_id)
    page = admin_client.get(f"/admin/games/{game_id}").text
    assert 'data-admin-analysis="pending"' in page
    run_job("analysis", db_of(admin_app), cfg_of(admin_app))
    stored = _stored(admin_app, game_id)
    with session_scope(db_of(admin_app)) as s:
        summary = analysis.admin_summary(s, game_id)
    assert summary is not None and summary.status == AnalysisStatus.DONE
    assert sum(summary.counts[0].values()) == len(stored) and list(summary.counts) == [0]
    flagged = [m.step for m in stored if m.mark != "good"]
    assert summary.first_flagged == (min(flagged) if flagged else None)
    page = admin_client.get(f"/admin/games/{game_id}").text
    assert 'data-admin-analysis="done"' in page and "good" in page
    first = stored[0]
    step_page = admin_client.get(f"/admin/games/{game_id}/replay/{first.step + 1}").text
    assert f'data-analysis-step="{first.step}"' in step_page and "data-analysis-chart" not in step_page


def test_a_running_games_replay_has_no_analysis(app):
    game_id = start_game(app, [ANN, "bot:greedy"], seed=3)
    with session_scope(db_of(app)) as s:
        assert analysis.replay_analysis(s, lock_seated(s, game_id, 0), 1) == (None, None)


def test_two_workers_at_once_analyse_a_game_once(app, finished):
    """Two workers polling at the same instant (threads, each its own connection): one claims
    the job, the other finds nothing to do."""
    import threading

    db, cfg = db_of(app), cfg_of(app)
    reports: list[dict[str, int]] = []
    start = threading.Barrier(2)

    def work(name: str) -> None:
        start.wait()
        reports.append(analysis.run_analyses(db, cfg, name))

    threads = [threading.Thread(target=work, args=(f"w{i}",)) for i in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["analysed"] for r in reports) == [0, 1]
    stored = _stored(app, finished)
    assert stored and len({m.step for m in stored}) == len(stored)
    assert _job(app, finished).attempts == 1


def test_the_replay_page_of_an_analysed_move_shows_its_mark_and_the_chart(app, client, finished):
    run_job("analysis", db_of(app), cfg_of(app))
    first = _stored(app, finished)[0]
    replay = _page(app, finished).removesuffix("/analysis") + "/replay"
    html = client.get(f"{replay}/{first.step + 1}").get_data(as_text=True)
    assert "data-analysis-step" in html
    assert f'data-mark="{first.mark}"' in html and "<svg" in html
    assert "data-analysis-step" not in client.get(f"{replay}/0").get_data(as_text=True)  # the deal: no move
