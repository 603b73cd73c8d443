"""axe-core over every player page and every kind of email, in English, French and Vietnamese, at
1280 and 390 px, in the system Chromium: no violation of impact moderate or worse (WCAG 2.x A/AA
and axe's best practices). The pages are those of test_phone_width (every player-facing GET
route, with its error pages), plus the pages after a form: /new refused, a preference saved, a
move played. The emails are the ones the service sends (phone_samples.play_every_kind). The
admin's pages (English only) are checked at both widths too.
Skipped, with the reason, where axe-core (`make install`, from npm) or Chromium is absent."""
from __future__ import annotations

from typing import Any

import phone_samples
import pytest
from axe_check import EMAIL_RULES_OFF, axe_script, described, violations
from conftest import DESKTOP, PHONE
from sqlmodel import select
from test_phone_width import by_kind, player_paths

from pbem import links
from pbem.db import session_scope
from pbem.mail.render import email_names
from pbem.models import Seat

LANGUAGES = ["en", "fr", "vi"]
WIDTHS = {"1280": DESKTOP, "390": PHONE}

# The pages' database paths run on PostgreSQL in the other browser tests (self-service, admin,
# home); these walks were about 300 s of a PostgreSQL run.
pytestmark = pytest.mark.judges("how pages and emails render")



def _checked(page: Any, where: str, *, rules_off: tuple[str, ...] = ()) -> list[str]:
    """axe at both widths on the page as loaded (one load, the viewport resized between runs)."""
    problems = []
    for label, size in WIDTHS.items():
        page.set_viewport_size(size)
        problems += described(f"{where} at {label} px", violations(page, rules_off=rules_off))
    return problems


# A damaged link's page is one template (error.html) in two layouts: one of each is enough.
DAMAGED_LINKS_CHECKED = {"/g/not-a-token", "/p/not-a-token", "/me/not-a-token"}


def _distinct(rule: str, paths: list[str]) -> list[str]:
    """The sample paths of a route whose pages differ: every damaged link's page but one of each
    layout left out, and of the move confirmations the first, the last and the stale one."""
    paths = [p for p in paths if "not-a-token" not in p and "/x/" not in p or p in DAMAGED_LINKS_CHECKED]
    return paths if rule != "/m/<token>" or len(paths) <= 3 else [paths[0], *paths[-2:]]


def _every_seat_speaks(app: Any, code: str) -> None:
    """Pages reached with a seat's token speak its language: every seat reads `code`."""
    with session_scope(app.extensions["korsar_db"]) as s:
        for seat in s.exec(select(Seat)).all():
            seat.language = code


@pytest.fixture
def reader(browser, live_server, request) -> Any:
    """A desktop page of the live app, its reader's language chosen (the switch's cookie), with
    the content security policy bypassed so that the axe script can be injected."""
    axe_script()
    code = request.param
    context = browser.new_context(viewport=DESKTOP, base_url=live_server, bypass_csp=True, locale=code)
    context.add_cookies([{"name": "korsar_lang", "value": code, "url": live_server}])
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.code = code
    yield page
    context.close()


@pytest.mark.parametrize("reader", LANGUAGES, indirect=True)
def test_every_player_page_passes_axe_in_each_language_at_both_widths(app, smtp_server, reader):
    code = reader.code
    pages = phone_samples.set_the_tables(app, smtp_server.host, smtp_server.port)
    routes = player_paths(app, pages)
    _every_seat_speaks(app, code)
    cfg = app.config["KORSAR"]
    game_page = phone_samples.seat_path(cfg, pages.running)
    visits = [(rule, path) for rule, paths in sorted(routes.items()) for path in _distinct(rule, paths)]
    visits += [("404", "/no-such-page"), ("prefs saved", game_page + "/prefs?saved=timezone")]
    problems, wrong_language = [], []
    for rule, path in visits:
        response = reader.goto(path)
        where = f"{rule} {path[:48]} ({response.status if response else '?'}, {code})"
        if reader.evaluate("document.documentElement.lang") != code:
            wrong_language.append(where)
        problems += _checked(reader, where)
    # After a form: /new refused (nothing typed), then a move played from its confirmation page.
    reader.goto("/new")
    reader.click("form.setup button[type=submit]")
    reader.wait_for_selector("[data-form-errors]")
    problems += _checked(reader, f"/new refused ({code})")
    reader.goto(pages.move_paths[0])
    reader.click("form[data-move] button")
    reader.wait_for_selector("section.notice[role=status]")
    problems += _checked(reader, f"game page after a move ({code})")
    # Last, as it erases the running seat's address: "Erase my data" confirmed.
    reader.goto(phone_samples.path_of(cfg, links.my_games_url(cfg, pages.running.email)) + "/erase")
    reader.check("[data-never-too]")
    reader.click("[data-confirm-erase]")
    reader.wait_for_selector("[data-erased]")
    problems += _checked(reader, f"after erasure ({code})")
    assert not problems, f"axe-core finds {len(problems)} violations (moderate or worse):\n" + "\n".join(problems)
    assert not wrong_language, f"pages not in {code}: {wrong_language}"


@pytest.mark.parametrize("reader", LANGUAGES, indirect=True)
def test_every_kind_of_email_passes_axe_in_each_language_at_both_widths(app, smtp_server, monkeypatch, reader):
    code = reader.code
    if code != "en":
        monkeypatch.setattr(phone_samples, "PLAYERS", [f"{p} [{code}]" for p in phone_samples.PLAYERS])
    kinds = by_kind(phone_samples.play_every_kind(app, smtp_server.host, smtp_server.port))
    assert sorted(kinds) == email_names()
    problems = []
    for kind, letters in sorted(kinds.items()):
        # The fullest of each kind to a player (an admin's copy stays English).
        letter = max([x for x in letters if x.to_addr != phone_samples.ADMIN_ADDRESS] or letters,
                     key=lambda x: len(x.html))
        reader.set_content(letter.html)
        problems += _checked(reader, f"{kind} email ({code})", rules_off=EMAIL_RULES_OFF)
    assert not problems, f"axe-core finds {len(problems)} violations (moderate or worse):\n" + "\n".join(problems)


@pytest.mark.parametrize("reader", ["en"], indirect=True)
def test_the_axe_check_fails_a_page_with_an_unlabelled_field_and_faint_text(reader):
    reader.set_content('<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
                       '<input type="text"><p style="color:#bbb">faint</p></main></body></html>')
    found = {v["id"] for v in violations(reader)}
    assert {"label", "color-contrast"} <= found, found


@pytest.mark.parametrize("reader", ["en"], indirect=True)
def test_the_admin_pages_pass_axe_at_both_widths(app, reader):
    from test_admin_browser import EMAIL, PASSWORD, more_games, play_some_moves

    from pbem.auth import create_admin
    from pbem.games.service import create_game
    from pbem.games.settings import GameSettings

    with session_scope(app.extensions["korsar_db"]) as s:
        create_admin(s, EMAIL, PASSWORD)
        game_id = create_game(s, app.config["KORSAR"], ["Ann <ann@example.com>", "Bob <bob@example.com>", "bot:greedy"],
                              GameSettings(name="Club night"), seed=11).id
    play_some_moves(app, game_id, 12)  # a move log long enough to scroll
    more_games(app)
    reader.goto("/admin/login")
    problems = _checked(reader, "/admin/login")
    reader.fill("#email", EMAIL)
    reader.fill("#password", PASSWORD)
    reader.click("button[type=submit]")
    reader.wait_for_url("**/admin/")
    for path in ["/admin/", "/admin/?sort=waiting&dir=asc", f"/admin/games/{game_id}", "/admin/games/new",
                 f"/admin/games/{game_id}/replay/7",
                 "/admin/outbox", "/admin/stats", "/admin/audit", "/admin/ratings", "/admin/erase"]:
        reader.goto(path)
        problems += _checked(reader, path)
    reader.fill("#erase-email", "ann@example.com")  # what erasing it would touch: the confirmation
    reader.click("[data-erase-form] button[type=submit]")
    reader.wait_for_selector("[data-erase-preview]")
    problems += _checked(reader, "/admin/erase (confirmation)")
    assert not problems, f"axe-core finds {len(problems)} violations (moderate or worse):\n" + "\n".join(problems)
