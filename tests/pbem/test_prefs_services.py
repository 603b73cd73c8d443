"""Preference, vacation and unsubscribe pages call the game domain's services
(`pbem.games.clocks.preferences`), which lock once, decide and say why not with the sentences of
`pbem.games.clocks.refusals`; a game's setup has one check (`pbem.games.setup.check_setup`) for
the CLI, the admin form and `create_game` itself."""
from __future__ import annotations

import ast
import inspect

import pytest
from sqlalchemy import event

from clockkit import T0, mover, seat_row, start_game
from game_helpers import outbox, with_settings
from pbem.games.clocks import refusals
from pbem.games import service
from pbem.games.settings import GameSettings
from pbem.games.setup import SeatSpec, SetupError, check_setup, setup_problems
from pbem.links import sign_seat
from pbem.models import SeatKind


@pytest.fixture
def setup(app, monkeypatch):
    import pbem.web.prefs as prefs

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)
    engine = app.extensions["korsar_db"]
    cfg = app.config["KORSAR"]
    return engine, cfg, start_game(engine, cfg, deadline_hours=48)


def _statements(engine, call):  # type: ignore[no-untyped-def]
    statements: list[str] = []

    def record(conn, cursor, statement, *args):  # type: ignore[no-untyped-def]
        statements.append(" ".join(statement.split()).upper())

    event.listen(engine, "before_cursor_execute", record)
    try:
        response = call()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return response, statements


def _game_reads(statements: list[str]) -> list[str]:
    return [s for s in statements if s.startswith("SELECT") and " FROM GAME" in s]


def _prefs_url(cfg, seat) -> str:  # type: ignore[no-untyped-def]
    return f"/g/{sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce)}"


def test_a_vacation_post_locks_the_game_once(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    response, statements = _statements(engine, lambda: client.post(
        _prefs_url(cfg, seat) + "/vacation", data={"first_day": "2026-01-13", "last_day": "2026-01-14"}))
    assert response.status_code == 303
    # One read of the game, with its seats (the lock, on PostgreSQL FOR UPDATE), and no seat read again.
    reads = _game_reads(statements)
    assert len(reads) == 1 and " JOIN SEAT " in reads[0]
    assert not [s for s in statements if s.startswith("SELECT") and " FROM SEAT" in s]
    assert seat_row(engine, game_id, seat.position).vacation_end is not None


def test_a_vacation_cancel_post_locks_the_game_once(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    client.post(_prefs_url(cfg, seat) + "/vacation", data={"first_day": "2026-01-13", "last_day": "2026-01-14"})
    response, statements = _statements(engine, lambda: client.post(_prefs_url(cfg, seat) + "/vacation/cancel"))
    assert response.status_code == 303
    assert len(_game_reads(statements)) == 1
    assert seat_row(engine, game_id, seat.position).vacation_end is None


@pytest.mark.parametrize("path,data,code", [
    ("/vacation", {"first_day": "2026-01-14", "last_day": "2026-01-13"}, "last_before_first"),
    ("/vacation", {"first_day": "soon", "last_day": "2026-01-13"}, "bad_date"),
    ("/vacation/cancel", {}, "no_vacation"),
    ("/timezone", {"timezone": "Mars/Olympus"}, "bad_time_zone"),
])
def test_a_refused_preference_shows_the_sentence_of_its_code(client, setup, path, data, code):
    engine, cfg, game_id = setup
    response = client.post(_prefs_url(cfg, mover(engine, game_id)) + path, data=data)
    sentence, status = refusals.SENTENCES[code]
    assert response.status_code == status
    assert sentence.split("%(")[0].replace("'", "&#39;") in response.get_data(as_text=True)


def test_a_damaged_unsubscribe_link_says_so_with_the_tables_sentence(client):
    response = client.post("/u/not-a-token")
    sentence, status = refusals.SENTENCES["damaged_unsubscribe_link"]
    assert response.status_code == status == 400 and sentence in response.get_data(as_text=True)


def test_the_prefs_views_hold_no_refusal_sentence_of_their_own():
    """Every sentence a refused player reads comes from `pbem.games.clocks.refusals`."""
    import pbem.web.prefs as prefs

    tree = ast.parse(inspect.getsource(prefs))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    sentences = [node.value for node in ast.walk(tree)
                 if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                 and " " in node.value.strip() and node.value.rstrip().endswith((".", "!"))]
    assert sentences == []


# ---------------------------------------------------------------- one setup check
ANN, BOB = "Ann <a@x.org>", "Bob <a@x.org>"


def test_the_cli_refuses_one_address_twice_like_the_admin_form(app, runner):
    result = runner.invoke(args=["create-game", "--player", ANN, "--player", "Bob <A@X.org>"])
    assert result.exit_code != 0
    assert result.output.strip() == "Error: Two seats have the same email address."
    assert outbox(app) == []


def test_create_game_itself_refuses_one_address_twice_whatever_its_case(app):
    from pbem.db import session_scope

    with pytest.raises(SetupError, match="same email address"), \
            session_scope(app.extensions["korsar_db"]) as session:
        service.create_game(session, app.config["KORSAR"], [ANN, "Bob <A@x.ORG>"])


def test_the_setup_check_gives_every_problem_with_the_field_it_is_about():
    problems = setup_problems(
        [SeatSpec("Ann", "a@x.org"), SeatSpec("", "b@x.org"),
         SeatSpec("Cy", "A@x.org"), SeatSpec("Robo", kind=SeatKind.BOT, bot="genius")],
        **with_settings({"deadline_hours": 0, "reminders": "50,120", "on_timeout": "sulk"}))
    assert [(p.seat, p.field) for p in problems] == [
        (1, "name"), (None, None), (3, "bot"), (None, "on_timeout"),
        (None, "deadline_hours"), (None, "reminders")]
    assert problems[1].message == "Two seats have the same email address."


def test_a_setup_the_check_accepts_is_normalised():
    setup = check_setup(["Ann <a@x.org>", "bot:greedy", "bot:greedy"], GameSettings(reminders="85,50"))
    assert [s.name for s in setup.specs] == ["Ann", "Greedy bot", "Greedy bot 2"]
    assert setup.reminders == [50.0, 85.0]
