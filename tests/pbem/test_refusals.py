"""One refusal type (`pbem.refusals.Refusal`): raised by its code, worded where it is shown.

Every declared code has its sentence in a catalog template; a refusal raised while one language
is in force is worded in the language of whoever reads it; and each entry (the command line, the
admin, /new, a reply's answer) shows a refusal of the domain in its reader's words."""
from __future__ import annotations

import ast
from pathlib import Path

import pytest
from admin_helpers import new_game
from babel.messages.pofile import read_po
from game_helpers import db_of, deliver, make_cfg, start_game
from inbound_helpers import latest, new_mail, outbox_ids, receiver, reply_to, send  # noqa: F401

import pbem.games.clocks.refusals  # noqa: F401  (each module declares its codes on import)
import pbem.games.limits  # noqa: F401
import pbem.web.replay  # noqa: F401
from pbem import i18n, links
from pbem.db import session_scope
from pbem.games import errors, service, setup
from pbem.games.setup import SeatSpec
from pbem.refusals import REFUSALS, Refusal

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "pbem" / "translations"
# The classes a refusal is raised with: their first argument is a declared code, never a sentence.
REFUSAL_CLASSES = {"Refusal", "GameError", "NotFound", "StaleMove", "IllegalMoveError", "GameNotRunning",
                   "SeatHandedToBot", "GameNotOver", "LinkError"}


def _template_msgids() -> set[str]:
    found: set[str] = set()
    for domain in ("pages", "emails"):
        with (TRANSLATIONS / f"{domain}.pot").open("rb") as template:
            found |= {m.id for m in read_po(template) if isinstance(m.id, str)}
    return found


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_every_declared_code_has_its_sentence_in_a_catalog_template(code):
    assert REFUSALS[code][0] in _template_msgids()


def _literal_messages(path: Path) -> list[str]:
    """The refusals of `path` raised with a sentence (or a code nobody declared) instead of a code."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        first = node.args[0]
        if called not in REFUSAL_CLASSES:
            continue
        if isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value not in REFUSALS:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {first.value!r}")
        elif isinstance(first, (ast.JoinedStr, ast.BinOp)) or (isinstance(first, ast.Call)
                                                                and getattr(first.func, "id", "") == "_"):
            literal = "".join(p.value for p in getattr(first, "values", []) if isinstance(p, ast.Constant))
            if " " in literal or not isinstance(first, ast.JoinedStr):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: a sentence built at the raise")
    return found


def test_no_refusal_in_pbem_is_raised_with_a_sentence_instead_of_a_declared_code():
    sources = [p for p in (ROOT / "pbem").rglob("*.py") if "versions" not in p.parts]
    assert [hit for path in sources for hit in _literal_messages(path)] == []


# ---------------------------------------------------------------- worded where it is shown
def test_a_refusal_raised_in_one_language_is_worded_in_the_readers():
    with i18n.using("fr"):
        refused = errors.NotFound("no_such_game")
    assert refused.text("en") == "There is no such game."
    assert refused.text("vi") == "Không có ván chơi này."
    with i18n.using("vi"):
        assert refused.message == "Không có ván chơi này."


def test_a_signed_links_refusal_is_a_refusal_worded_in_the_readers_language():
    with pytest.raises(links.LinkError) as refused:
        links.read_record(make_cfg("sqlite://"), links.PROPOSAL_SALT, "forged")
    assert isinstance(refused.value, Refusal) and refused.value.status == 400
    assert refused.value.text("en") == ("This link is damaged or was not made by us. "
                                        "Copy the whole link from your email.")
    assert refused.value.text("fr") != refused.value.text("en")


def test_a_seats_problem_is_named_as_each_entry_names_it():
    (problem,) = setup.setup_problems([SeatSpec("Ann", "ann@example.com"), SeatSpec("Bob", "not an address")])
    assert problem.refusal.text("en").startswith("Seat 2 (Bob): ")
    line = setup.named(setup.SetupProblem(problem.refusal.params["problem"], "players", 1), (), setup.LINE)
    assert line.refusal.text("en").startswith("Line 2: ")
    assert line.refusal.text("en").removeprefix("Line 2: ") == problem.refusal.text("en").removeprefix("Seat 2 (Bob): ")


@pytest.mark.parametrize("your_name, your_email, lines, problem", [
    ("Ann", "ann@example.com", ["Ann Again <ANN@example.com>"],
     ("players", 0, "Line 1: ann@example.com is already playing in this game.")),
    ("Ann", "ann@example.com", ["ann@example.com"],  # the same person: not also the same name
     ("players", 0, "Line 1: ann@example.com is already playing in this game.")),
    ("Ann", "ann@example.com", ["bot:greedy", "Ann <ann2@example.com>"],
     ("players", 1, "Line 2: Two players are called 'Ann': give them different names.")),
    ("", "ann@example.com", ["bot:greedy"], ("your_name", None, "Write your name as the other players will see it.")),
    ("Ann", " ", ["bot:greedy"], ("your_email", None, "Write your email address, like ann@example.com.")),
    ("Ann", "ann@example.com", ["bot:greedy"] * 5,
     ("players", None, "Korsar is played by 2 to 5 players alone (4, 6 or 8 in teams); with you, you have 6.")),
])
def test_the_new_forms_problems_come_from_the_one_setup_pass_on_its_fields_and_lines(
        your_name, your_email, lines, problem):
    with pytest.raises(setup.SetupError) as refused:
        setup.check_form(your_name, your_email, lines, setup.GameSettings())
    assert [(p.field, p.seat, p.refusal.text("en")) for p in refused.value.problems] == [problem]


def test_the_new_form_returns_its_setup_normalised_by_the_same_pass():
    checked = setup.check_form(" Ann ", "Ann@Example.COM", ["bot:greedy", "bot:greedy"],
                               setup.GameSettings(reminders="85,50"))
    assert [(s.name, s.email) for s in checked.specs] == [("Ann", "ann@example.com"), ("Greedy bot", None),
                                                          ("Greedy bot 2", None)]
    assert checked.settings.reminders == "50,85"


def test_a_seats_problem_is_worded_whole_in_the_readers_language():
    """The seat's naming and the problem inside it, both in the reader's language (pass once the
    catalogs hold the setup's sentences)."""
    (problem,) = setup.setup_problems([SeatSpec("Ann", "ann@example.com"), SeatSpec("B" * 41, "bob@example.com")])
    assert problem.refusal.text("en") == "Seat 2: A player name may have at most 40 characters."
    assert problem.refusal.text("fr") == "Place 2\u00a0: Le nom d'un joueur compte au plus 40 caractères."


def test_check_setup_returns_what_it_checked_normalised_in_the_same_pass():
    checked = setup.check_setup([SeatSpec("  Ann ", "Ann@Example.COM"), "bot:greedy", "bot:greedy"],
                                setup.GameSettings(name="  Friday ", reminders="85,50"))
    assert [s.name for s in checked.specs] == ["Ann", "Greedy bot", "Greedy bot 2"]
    assert checked.settings.name == "Friday" and checked.settings.reminders == "50,85"


# ---------------------------------------------------------------- each entry
def test_the_command_line_shows_a_refusal_in_english(app, runner):
    result = runner.invoke(args=["create-game", "--player", "Ann <ann@example.com>", "--player", "bot:nope"])
    assert result.exit_code != 0
    assert "Seat 2: Unknown bot 'nope': choose one of" in result.output


def test_the_admin_shows_a_refusal_in_english_whatever_the_browser_asks(admin_client, admin_app):
    game_id = new_game(admin_app)
    response = admin_client.post(f"/admin/games/{game_id}/resume", headers={"Accept-Language": "fr"})
    assert response.status_code == 409
    assert "Only a paused game can be resumed." in response.get_data(as_text=True)


def test_the_new_game_form_shows_a_refusal_in_the_visitors_language(app, client):
    client.get("/new?lang=fr")
    response = client.post("/new", data={
        "your_name": "Ann", "your_email": "ann@example.com", "players": "ann@example.com\nbot:greedy",
        "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"})
    assert response.status_code == 422
    assert "ann@example.com joue déjà dans cette partie." in response.get_data(as_text=True)


def test_a_replys_answer_shows_the_domains_refusal_in_the_seats_language(app, smtp_server, receiver):
    game_id = start_game(app, ["Ann <ann@example.com> [fr]", "Bob <bob@example.com>"], seed=11)
    deliver(app)
    with session_scope(db_of(app)) as session:
        ann = service.seats_of(session, game_id)[0]
        ann.handed_to_bot, ann.bot = True, "random"
        session.add(ann)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, "ann@example.com"), "ann@example.com", "piocher", lang="fr"))
    answer = next(r for r in new_mail(app, before) if r.to_addr == "ann@example.com" and r.kind == "reply_refused")
    with i18n.using("fr"):
        expected = errors.SeatHandedToBot("handed_to_bot").text()
    assert expected != errors.SeatHandedToBot("handed_to_bot").text("en")
    assert expected.replace("\u202f", " ").split(";")[0] in answer.text_body.replace("\u202f", " ")
