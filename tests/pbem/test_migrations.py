"""Alembic migrations: they build exactly the models' schema, on SQLite and PostgreSQL, and
`init-db` brings any earlier schema (or one made by create_all) to the newest, idempotently."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlmodel import SQLModel

from pbem.db import create_all, make_engine
from pbem.migrations import (
    alembic_config,
    current_revision,
    head_revision,
    schema_diffs,
    upgrade_database,
)

REVISIONS = [r.revision for r in ScriptDirectory.from_config(alembic_config()).walk_revisions()]


def _drop_everything(url: str) -> None:
    engine = make_engine(url)
    with engine.begin() as conn:
        SQLModel.metadata.drop_all(conn)
        conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()


@pytest.fixture
def empty_url(database_url: str) -> Iterator[str]:
    """The test database with no tables at all (the fixture made them with create_all)."""
    _drop_everything(database_url)
    yield database_url
    _drop_everything(database_url)
    create_all_engine = make_engine(database_url)
    create_all(create_all_engine)  # leave the schema other fixtures expect
    create_all_engine.dispose()


def _diffs_and_revision(url: str) -> tuple[list, str | None]:
    engine = make_engine(url)
    with engine.connect() as conn:
        result = schema_diffs(conn), current_revision(conn)
    engine.dispose()
    return result


def test_schema_built_from_migrations_equals_the_models(empty_url):
    assert upgrade_database(empty_url).startswith("database created")
    diffs, revision = _diffs_and_revision(empty_url)
    assert diffs == []
    assert revision == head_revision()


def test_the_index_on_lower_case_addresses_is_made_by_the_migrations(empty_url):
    """Alembic cannot compare an index on an expression, so this one is checked by name."""
    upgrade_database(empty_url)
    engine = make_engine(empty_url)
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            names = set(conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'index'").scalars())
        else:
            names = set(conn.exec_driver_sql("SELECT indexname FROM pg_indexes").scalars())
    engine.dispose()
    assert "ix_seat_email_lower" in names
    assert "uq_leaderboard_entry_name_lower" in names


def test_init_db_twice_changes_nothing_the_second_time(empty_url):
    upgrade_database(empty_url)
    assert upgrade_database(empty_url) == f"database already at revision {head_revision()}"
    assert _diffs_and_revision(empty_url) == ([], head_revision())


@pytest.mark.parametrize("start", REVISIONS)
def test_every_earlier_revision_upgrades_to_the_newest(empty_url, start):
    engine = make_engine(empty_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(empty_url, conn), start)
    engine.dispose()
    upgrade_database(empty_url)
    assert _diffs_and_revision(empty_url) == ([], head_revision())


@pytest.mark.parametrize("made_by", ["create_all of today's models", "create_all of the first revision"])
def test_a_schema_made_by_create_all_is_adopted_and_keeps_its_data(empty_url, made_by):
    engine = make_engine(empty_url)
    if made_by == "create_all of today's models":
        create_all(engine)
    else:  # what create_all made before the migrations existed: the first revision, unversioned
        with engine.begin() as conn:
            command.upgrade(alembic_config(empty_url, conn), REVISIONS[-1])
            conn.execute(text("DROP TABLE alembic_version"))
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO game (name, status, teams, options_json, deck_json, state_json,"
                          " version, created_at, updated_at, thread_id, deadline_hours, reminders,"
                          " on_timeout, reminders_sent) VALUES ('kept', 'running', false, '{}', '[]',"
                          " '{}', 0, '2026-01-01', '2026-01-01', '', 72, '50', 'autoplay', 0)"))
    engine.dispose()
    assert "adopted" in upgrade_database(empty_url)
    assert _diffs_and_revision(empty_url) == ([], head_revision())
    engine = make_engine(empty_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM game")).scalar_one() == "kept"
    engine.dispose()


# Rows queued before 0004 by the code of 0003 (its placeholder texts and X-Korsar-* headers).
_OLD_TURN_TEXT = ("This turn email is written from the game as it stands just before it is "
                  "sent: the player's hand, the table and fresh move links.")
_OLD_AUTOPLAY_TEXT = ("This email is written just before it is sent: it tells the player which "
                      "move the bot played for them when their deadline passed.")
_OLD_REMINDER_TEXT = ("This reminder is written from the game as it stands just before it is sent: "
                      "the player's hand, the table and fresh move links.")
_OLD_ROWS = [  # (kind, text body, headers, status)
    ("turn", _OLD_TURN_TEXT, {"X-Korsar-Turn": "7:5", "List-Unsubscribe": "<u>"}, "pending"),
    ("timeout_autoplay", _OLD_AUTOPLAY_TEXT, {"X-Korsar-Autoplay-Move": "played the 3 of ships"}, "sending"),
    ("reminder", _OLD_REMINDER_TEXT, {"List-Unsubscribe": "<u>"}, "pending"),
    ("turn", "Your turn: the hand, written", {"List-Unsubscribe": "<u>"}, "pending"),  # written already
    ("turn", _OLD_TURN_TEXT, {"X-Korsar-Turn": "2:0"}, "cancelled"),  # never to go out
]


def _outbox_rows(engine) -> list[tuple]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(
            "SELECT kind, deferred, params_json, headers_json FROM outbox ORDER BY id"))]


def test_0004_gives_rows_queued_before_it_their_writer_and_params(empty_url):
    import json

    engine = make_engine(empty_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(empty_url, conn), "0003")
        for number, (kind, body, headers, status) in enumerate(_OLD_ROWS):
            conn.execute(text(
                "INSERT INTO outbox (kind, to_addr, subject, text_body, html_body, message_id,"
                " headers_json, status, attempts, next_attempt_at, created_at) VALUES (:kind, 'a@x.test',"
                " 's', :body, '', :mid, :headers, :status, 0, '2026-01-01', '2026-01-01')"),
                {"kind": kind, "body": body, "mid": f"<{number}@x.test>", "headers": json.dumps(headers),
                 "status": status})
        command.upgrade(alembic_config(empty_url, conn), "head")
    rows = [(kind, deferred, json.loads(params) if params else None, json.loads(headers))
            for kind, deferred, params, headers in _outbox_rows(engine)]
    assert rows == [
        ("turn", "turn", {"version": 7, "since": 5}, {"List-Unsubscribe": "<u>"}),
        ("timeout_autoplay", "timeout_autoplay", {"move_text": "played the 3 of ships"}, {}),
        ("reminder", "reminder", {}, {"List-Unsubscribe": "<u>"}),
        ("turn", None, None, {"List-Unsubscribe": "<u>"}),
        ("turn", None, None, {"X-Korsar-Turn": "2:0"}),
    ]
    with engine.begin() as conn:  # and back: the code before 0004 finds its headers again
        command.downgrade(alembic_config(empty_url, conn), "0003")
    with engine.connect() as conn:
        headers = [json.loads(h) for (h,) in conn.execute(text("SELECT headers_json FROM outbox ORDER BY id"))]
    assert headers == [h for _, _, h, _ in _OLD_ROWS]
    engine.dispose()


def test_downgrade_to_nothing_and_upgrade_again(empty_url):
    upgrade_database(empty_url)
    engine = make_engine(empty_url)
    with engine.begin() as conn:
        command.downgrade(alembic_config(empty_url, conn), "base")
    with engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    engine.dispose()
    upgrade_database(empty_url)
    assert _diffs_and_revision(empty_url) == ([], head_revision())


def test_flask_init_db_command_runs_the_migrations(app, runner, empty_url):
    result = runner.invoke(args=["init-db"])
    assert result.exit_code == 0, result.output
    assert "database ready" in result.output
    assert _diffs_and_revision(app.config["DATABASE_URL"]) == ([], head_revision())
    assert "already at revision" in runner.invoke(args=["init-db"]).output


def test_two_deploys_running_init_db_at_once_both_succeed(empty_url):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork")) as pool:
        outcomes = sorted(pool.map(upgrade_database, [empty_url, empty_url]))
    assert outcomes[0].startswith("database already at") or outcomes[1].startswith("database already at")
    assert _diffs_and_revision(empty_url) == ([], head_revision())
