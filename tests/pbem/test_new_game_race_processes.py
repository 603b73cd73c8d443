"""One /new form makes one proposal whatever the timing (issue 23, point 8a): ten identical posts
sent at the same moment to the Procfile's web process (gunicorn, 3 workers) make exactly one
proposal and one confirmation email, each post answered like the first. The database decides
(a unique key on the form), not a check before the insert. SQLite and PostgreSQL."""
from __future__ import annotations

import re
import threading
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import select

from benchmarks.common import gunicorn, procfile_web_command
from benchmarks.load_bench import SECRET
from pbem.db import make_engine, read_scope
from pbem.models import OutboxMessage, Proposal

pytestmark = pytest.mark.slow
POSTS = 10


def _post_all_at_once(base: str, form: dict[str, str]) -> list[tuple[int, str]]:
    """POST `form` to /new from POSTS threads released together, each on its own connection."""
    barrier = threading.Barrier(POSTS)
    answers: list[tuple[int, str]] = []
    lock = threading.Lock()

    def post() -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            client.get("/healthz")  # connected before the start: the posts race, not the connects
            barrier.wait(timeout=30)
            response = client.post("/new", data=form)
        with lock:
            answers.append((response.status_code, response.headers.get("location", "")))

    threads = [threading.Thread(target=post) for _ in range(POSTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_ten_identical_posts_at_once_make_one_proposal_and_one_email(database_url, tmp_path: Path):
    env = {"DATABASE_URL": database_url, "SECRET_KEY": SECRET, "KORSAR_ENV": "production",
           "BASE_URL": "http://127.0.0.1", "DEV_INBOX": "0", "WEB_CONCURRENCY": "3"}
    with gunicorn(procfile_web_command(), env, log_path=tmp_path / "web.log") as base:
        page = httpx.get(f"{base}/new").text
        form_id = re.search(r'name="form_id" value="([\w-]+)"', page)
        assert form_id is not None
        form = {"your_name": "Ann", "your_email": "ann@example.com", "players": "Bob <bob@example.com>\nbot:greedy",
                "name": "Race", "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay",
                "form_id": form_id[1]}
        answers = _post_all_at_once(base, form)
    assert answers == [(303, "/new/sent")] * POSTS, (tmp_path / "web.log").read_text()[-3000:]
    engine = make_engine(database_url)
    with read_scope(engine) as session:
        proposals = session.exec(select(func.count()).select_from(Proposal)).one()
        emails = session.exec(select(func.count()).select_from(OutboxMessage)
                              .where(OutboxMessage.kind == "confirm_game")).one()
    engine.dispose()
    assert (proposals, emails) == (1, 1)
