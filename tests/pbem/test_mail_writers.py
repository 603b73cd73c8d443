"""The mail transport knows no game: emails written at delivery are typed rows (`deferred`,
`params_json`) whose writers the game side registers at start-up; pbem/mail imports nothing
above it."""
from __future__ import annotations

import ast
import json
from datetime import datetime
from pathlib import Path

from game_helpers import outbox
from smtp_fakes import FAKE_MAIL, mail_config

from pbem.config import Config
from pbem.db import session_scope
from pbem.mail import writers
from pbem.mail.delivery import deliver_due
from pbem.mail.outbox import Email, enqueue
from pbem.models import OutboxStatus

T0 = datetime(2026, 5, 1, 12, 0, 0)
MAIL_DIR = Path(__file__).resolve().parents[2] / "pbem" / "mail"
ALLOWED = ("pbem.config", "pbem.db", "pbem.models", "pbem.mail", "pbem.words", "pbem.i18n",
           "pbem.addresses",  # the never-list compares one mailbox's canonical key
           "pbem.models_mail", "pbem.metrics")  # bounces; the counters delivery moves


def _pbem_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("pbem.mail")  # relative: inside the package
    return {name for name in found if name == "pbem" or name.startswith("pbem.")}


def test_the_mail_transport_imports_only_config_db_models_and_itself():
    files = sorted(MAIL_DIR.glob("*.py"))
    assert files
    reaching_up = {f"{path.name}: {name}" for path in files for name in _pbem_imports(path)
                   if not any(name == ok or name.startswith(ok + ".") for ok in ALLOWED)}
    assert reaching_up == set()


def _queue(engine, name: str, params: dict) -> int:
    with session_scope(engine) as session:
        row = enqueue(session, FAKE_MAIL, Email(kind="note", to_addr="ann@example.test",
                                                subject="A note", text_body="(written when sent)",
                                                html_body=""),
                      now=T0, deferred=name, params=params)
    return row["id"]


def test_a_deferred_row_is_written_by_its_registered_writer_then_sent(engine, database_url, smtp_server,
                                                                     monkeypatch):
    seen = []

    def write(session, cfg: Config, row, params, now):
        seen.append(params)
        return Email(kind=row.kind, to_addr=row.to_addr, subject=row.subject,
                     text_body=f"Hello {params['who']}", html_body="<p>Hello</p>", headers={"X-Test": "1"})

    monkeypatch.setitem(writers._WRITERS, "note", write)
    row_id = _queue(engine, "note", {"who": "Ann"})
    (queued,) = outbox(engine)
    assert queued.deferred == "note" and json.loads(queued.params_json) == {"who": "Ann"}
    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0)
    assert report.sent == 1 and seen == [{"who": "Ann"}]
    (sent,) = outbox(engine)
    assert sent.id == row_id and sent.status == OutboxStatus.SENT and sent.deferred is None
    assert sent.text_body == "Hello Ann" and json.loads(sent.headers_json) == {"X-Test": "1"}
    (received,) = smtp_server.messages
    assert received.get_body(("plain",)).get_content().strip() == "Hello Ann"


def test_a_writer_that_cancels_keeps_its_reason_and_nothing_is_sent(engine, database_url, smtp_server,
                                                                  monkeypatch):
    monkeypatch.setitem(writers._WRITERS, "note", lambda *args: writers.Cancel("the turn was over"))
    _queue(engine, "note", {})
    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0)
    assert report.cancelled == 1 and report.sent == 0 and not smtp_server.messages
    (row,) = outbox(engine)
    assert row.status == OutboxStatus.CANCELLED and row.last_error == "the turn was over"


def test_a_row_whose_writer_is_not_registered_waits_and_is_retried(engine, database_url, smtp_server):
    _queue(engine, "nobody-writes-this", {})
    report = deliver_due(engine, mail_config(database_url, smtp_server.port), now=T0)
    assert report.retried == 1 and report.sent == 0 and not smtp_server.messages
    (row,) = outbox(engine)
    assert row.status == OutboxStatus.PENDING and row.deferred == "nobody-writes-this"
    assert "no writer registered" in (row.last_error or "")


def test_the_app_factory_hands_the_transport_the_game_writers(app_config, monkeypatch):
    from pbem import create_app

    monkeypatch.setattr(writers, "_WRITERS", {})
    create_app(app_config)  # what the web app, the worker and the CLI all run at start-up
    assert set(writers._WRITERS) == {"turn", "reminder", "timeout_autoplay", "game_over",
                                    "confirm_game", "my_games_link"}
