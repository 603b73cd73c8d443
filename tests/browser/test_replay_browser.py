"""The replay in a real browser (system Chromium): a finished game stepped with the keyboard (the
right and left arrows, End and Home) and the slider, in English, French and Vietnamese, at 1280 and
390 px, with no script error and nothing wider than a phone; without JavaScript the links and
the slider's form do the same. A seat's replay of a game being played too."""
from __future__ import annotations

import re
from typing import Any

import pytest
from conftest import DESKTOP, PHONE, SCREENSHOTS
from phone_samples import PLAYERS, SHORT_GAME_NAME, Table, seat_path
from sqlmodel import select
from test_phone_width import width_problem

from pbem.db import session_scope
from pbem.models import Seat

WIDTHS = {"1280": DESKTOP, "390": PHONE}
WORDS = {"en": ("Next", "Move 1"), "fr": ("Suivante", "Coup\u00a01"), "vi": ("Tiếp", "Nước đi 1")}


def _speaking(app: Any, code: str) -> None:
    with session_scope(app.extensions["korsar_db"]) as s:
        for seat in s.exec(select(Seat)).all():
            seat.language = code


@pytest.fixture
def games(app, smtp_server) -> dict[str, Any]:
    """A finished game's replay and a running game's, by Ann's (seat 0) link."""
    finished = Table(app, smtp_server.host, smtp_server.port, PLAYERS[:3], name=SHORT_GAME_NAME, teams=False, seed=3)
    finished.play(attack=False, announce=False)
    running = Table(app, smtp_server.host, smtp_server.port, PLAYERS[:3], name=SHORT_GAME_NAME, teams=False, seed=5)
    running.play(6, announce=False)
    cfg = app.config["KORSAR"]
    return {"finished": seat_path(cfg, finished.seat(0)) + "/replay",
            "running": seat_path(cfg, running.seat(0)) + "/replay"}


def _step(page: Any) -> int:
    return int(page.get_attribute("[data-replay]", "data-step"))


def _open(browser: Any, live_server: str, size: dict[str, int], *, javascript: bool = True) -> Any:
    context = browser.new_context(viewport=size, base_url=live_server, java_script_enabled=javascript,
                                  is_mobile=size is PHONE, has_touch=size is PHONE)
    page = context.new_page()
    page.set_default_timeout(30_000)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.problems = problems
    return page


@pytest.mark.parametrize("code", ["en", "fr", "vi"])
@pytest.mark.parametrize("width", list(WIDTHS))
def test_the_replay_steps_with_the_keyboard_and_the_slider(app, games, browser, live_server, code, width):
    _speaking(app, code)
    page = _open(browser, live_server, WIDTHS[width])
    path = games["finished"]
    page.goto(path)
    assert page.evaluate("document.documentElement.lang") == code
    last = int(page.get_attribute("[data-replay]", "data-last"))
    assert _step(page) == 0 and last > 10
    next_word, first_move = WORDS[code]
    assert page.locator("[data-replay-next]").inner_text() == next_word
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"/replay/1$"))
    assert _step(page) == 1 and first_move in page.locator("[data-replay-move] h2").inner_text()
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"/replay/2$"))
    page.keyboard.press("ArrowLeft")
    page.wait_for_url(re.compile(r"/replay/1$"))
    page.keyboard.press("End")
    page.wait_for_url(re.compile(rf"/replay/{last}$"))
    assert width_problem(page) is None if width == "390" else True
    page.keyboard.press("ArrowRight")  # nothing after the last step
    page.keyboard.press("Home")
    page.wait_for_url(re.compile(r"/replay/0$"))
    # The slider: let go at a step, that step's page.
    page.eval_on_selector("[data-replay-slider]", "s => { s.value = '7'; s.dispatchEvent(new Event('input'));"
                                                  " s.dispatchEvent(new Event('change')); }")
    page.wait_for_url(re.compile(r"/replay/7$"))
    assert page.locator("[data-replay-output]").inner_text() == "7"
    if width == "390":
        assert width_problem(page) is None, width_problem(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"replay-{code}-{width}.png"))  # the top: the step, its move, the hands
    assert not page.problems, page.problems
    page.context.close()


@pytest.mark.parametrize("width", list(WIDTHS))
def test_without_javascript_the_links_and_the_slider_form_step_through(app, games, browser, live_server, width):
    page = _open(browser, live_server, WIDTHS[width], javascript=False)
    page.goto(games["finished"] + "/3")
    page.click("[data-replay-next]")
    page.wait_for_url(re.compile(r"/replay/4$"))
    page.click("[data-replay-prev]")
    page.wait_for_url(re.compile(r"/replay/3$"))
    page.fill("[data-replay-slider]", "9")
    page.click("form.replay-slider button[type=submit]")
    page.wait_for_url(re.compile(r"/replay\?step=9$"))
    assert _step(page) == 9
    page.click(".replay-log a >> nth=0")  # the deal
    assert _step(page) == 0
    page.context.close()


def test_a_seats_replay_of_a_running_game_steps_and_fits_a_phone(app, games, browser, live_server):
    page = _open(browser, live_server, PHONE)
    page.goto(games["running"])
    assert page.locator("[data-hand]").count() == 1  # its own hand only
    page.keyboard.press("ArrowRight")
    page.wait_for_url(re.compile(r"/replay/1$"))
    assert page.locator("[data-hand]").count() == 1
    assert width_problem(page) is None, width_problem(page)
    assert not page.problems, page.problems
    page.context.close()
