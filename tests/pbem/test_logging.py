"""Structured logs: one JSON line per request, with the game id, and never a token, a secret
or an email body. (The worker's one line per job goes through the same JSON formatter.)"""
from __future__ import annotations

import io
import json
import logging

import pytest

from pbem.logging import JsonFormatter, log_context, redact

TOKEN = "WzEsMCwiYWJjZGVmIiwxLHsiYWN0aW9uIjoiZHJhdyJ9XQ.Z0k2lg.Qk9x3Vd1ivsNhVkyVA8mQvU2v_4"


@pytest.fixture
def log_output():
    """Everything pbem logs during the test, formatted as in production."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    loggers = [logging.getLogger(name) for name in ("pbem", "werkzeug")]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.INFO)
    yield stream
    for lg, (level, _propagate) in zip(loggers, saved):
        lg.removeHandler(handler)
        lg.setLevel(level)


def _lines(stream: io.StringIO, event: str) -> list[dict]:
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    return [line for line in lines if line.get("event") == event]


def test_one_json_line_per_request(client, log_output):
    client.get("/healthz")
    client.get("/no-such-page")
    lines = _lines(log_output, "request")
    assert [(line["method"], line["path"], line["status"]) for line in lines] == [
        ("GET", "/healthz", 200), ("GET", "/no-such-page", 404)]
    assert all(isinstance(line["duration_ms"], float) for line in lines)


@pytest.mark.parametrize("path", [f"/m/{TOKEN}", f"/g/{TOKEN}", f"/u/{TOKEN}", f"/m/{TOKEN}?confirm=1",
                                  f"/g/{TOKEN}/history"])
def test_link_tokens_never_reach_the_log(client, log_output, path):
    client.get(path)
    client.post(path, data={"token": TOKEN})
    output = log_output.getvalue()
    assert TOKEN not in output
    assert TOKEN.split(".")[0] not in output
    assert _lines(log_output, "request")[0]["path"].startswith(path[:3] + "[token]")


def test_the_game_id_comes_from_the_url_or_from_the_view(app, log_output):
    @app.get("/test-only/games/<int:game_id>")
    def by_url(game_id: int) -> str:
        return "ok"

    @app.get("/test-only/link")
    def by_view() -> str:
        log_context(game_id=42, seat=1)
        return "ok"

    client = app.test_client()
    client.get("/test-only/games/7")
    client.get("/test-only/link")
    assert [(line["game_id"], line.get("seat")) for line in _lines(log_output, "request")] == [(7, None), (42, 1)]


def test_a_failing_request_is_logged_once_with_its_error_class(app, log_output):
    app.config["PROPAGATE_EXCEPTIONS"] = False

    @app.get("/test-only/boom")
    def boom() -> str:
        raise RuntimeError(f"crash with secret {TOKEN}")

    assert app.test_client().get("/test-only/boom").status_code == 500
    lines = _lines(log_output, "request")
    assert [line["status"] for line in lines] == [500]
    assert TOKEN not in log_output.getvalue()


def test_the_secret_key_is_never_logged(app, client, log_output):
    client.get("/healthz")
    client.get(f"/m/{TOKEN}")
    assert app.config["SECRET_KEY"] not in log_output.getvalue()


@pytest.mark.parametrize("text, expected", [
    (f'127.0.0.1 - - "GET /m/{TOKEN} HTTP/1.1" 200', '127.0.0.1 - - "GET /m/[token] HTTP/1.1" 200'),
    (f"see http://korsar.test/g/{TOKEN}", "see http://korsar.test/g/[token]"),
    (f"token {TOKEN} in a message", "token [token] in a message"),
    ("pbem.web.admin loaded from korsar.sqlite3", "pbem.web.admin loaded from korsar.sqlite3"),
])
def test_redact_replaces_tokens_and_leaves_plain_words(text, expected):
    assert redact(text) == expected


def test_an_exception_is_logged_with_its_place_but_not_its_text():
    record_stream = io.StringIO()
    handler = logging.StreamHandler(record_stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("pbem.test_only")
    logger.addHandler(handler)
    try:
        raise ValueError(f"INSERT ... parameters: body with link /m/{TOKEN} and the secret body text")
    except ValueError:
        logger.error("delivery failed", exc_info=True)
    finally:
        logger.removeHandler(handler)
    line = json.loads(record_stream.getvalue())
    assert line["exc_type"] == "ValueError"
    assert any("test_an_exception_is_logged" in frame for frame in line["traceback"])
    assert "secret body text" not in record_stream.getvalue()
    assert TOKEN not in record_stream.getvalue()


def test_a_game_page_request_is_logged_with_its_game_id_and_without_its_token(app, client, log_output):
    from pbem import links
    from pbem.db import session_scope
    from pbem.games.service import create_game

    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as session:
        game = create_game(session, cfg, ["Ann <ann@korsar.test>", "Bob <bob@korsar.test>"], seed=1)
        token = links.sign_seat(cfg, game.id, 0, game_seats_nonce(session, game.id))
    assert client.get(f"/g/{token}").status_code == 200
    line = _lines(log_output, "request")[-1]
    assert (line["game_id"], line["path"]) == (game.id, "/g/[token]")
    assert token not in log_output.getvalue()


def game_seats_nonce(session, game_id: int) -> str:
    from sqlmodel import select

    from pbem.models import Seat

    return session.exec(select(Seat.link_nonce).where(Seat.game_id == game_id, Seat.position == 0)).one()
