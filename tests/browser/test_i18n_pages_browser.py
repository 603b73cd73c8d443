"""The player pages in French and Vietnamese at phone width, in Chromium: longer words (French)
and stacked diacritics (Vietnamese) still fit 390 px, and every page says it is in its language.
Screenshots: test-artifacts/screenshots/pages-<language>-<page>.png."""
from __future__ import annotations

import re

import pytest
from conftest import PHONE, SCREENSHOTS
from phone_samples import PLAYERS, seat_path, set_the_tables

from pbem.db import session_scope
from pbem.models import AddressPreference

ADDRESSES = [re.search(r"<(.+)>", p)[1] for p in PLAYERS]  # type: ignore[index]


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_the_player_pages_fit_a_phone_in_french_and_vietnamese(app, smtp_server, browser, live_server, language):
    with session_scope(app.extensions["korsar_db"]) as session:
        for address in ADDRESSES:
            session.merge(AddressPreference(email=address, language=language))
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    cfg = app.config["KORSAR"]
    game = seat_path(cfg, pages.running)
    shown = {"game": game, "confirm": pages.move_paths[-1], "finished": seat_path(cfg, pages.finished),
             "prefs": game + "/prefs", "refused": pages.stale_move_path, "rules": f"/rules?lang={language}"}
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, base_url=live_server)
    page = context.new_page()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    too_wide = {}
    try:
        for name, path in shown.items():
            page.goto(path)
            assert page.get_attribute("html", "lang") == language
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > PHONE["width"]:
                too_wide[name] = width
            page.screenshot(path=str(SCREENSHOTS / f"pages-{language}-{name}.png"), full_page=True)
    finally:
        context.close()
    assert not too_wide, too_wide
