"""The French and the Vietnamese turn emails, as a player's phone shows them (390 px, the system
Chromium): in their language, fitting the screen, saved as pictures under
test-artifacts/screenshots/ (i18n-turn-fr-phone.png, i18n-turn-vi-phone.png) with their HTML."""
from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import PHONE, SCREENSHOTS
from sqlmodel import col, select

from pbem.db import session_scope
from pbem.games import service
from pbem.mail.delivery import deliver_due
from pbem.models import OutboxMessage, OutboxStatus
from pbem.games.settings import GameSettings

# The client's words: each turn email names a card or the draw pile in them.
WORDS = {"fr": ("corsaire", "vaisseau", "pioche", "capitaine", "amiral"),
         "vi": ("Tàu Hải Tặc", "Tàu Buôn", "Thuyền Trưởng", "Đô Đốc", "vàng")}


def _turn_email(app, smtp_server, code: str) -> str:
    """The HTML of the first turn email of a game whose first seat reads `code`, as sent."""
    cfg = app.config["KORSAR"]
    db = app.extensions["korsar_db"]
    players = {"fr": ["Élodie <elodie@example.com> [fr]", "Ann <ann@example.com>", "Thảo <thao@example.com> [vi]"],
               "vi": ["Thảo <thao@example.com> [vi]", "Élodie <elodie@example.com> [fr]", "Ann <ann@example.com>"]}
    with session_scope(db) as session:
        game = service.create_game(session, cfg, players[code], GameSettings(name=f"Hội An {code}"), seed=5)
        game_id = game.id
    deliver_due(db, replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port))
    with session_scope(db) as session:
        row = session.exec(select(OutboxMessage).where(
            OutboxMessage.game_id == game_id, OutboxMessage.kind == "turn",
            OutboxMessage.status == OutboxStatus.SENT).order_by(col(OutboxMessage.id))).first()
        assert row is not None, "no turn email sent"
        return row.html_body


@pytest.mark.parametrize("code", ["fr", "vi"])
def test_the_turn_email_in_french_and_vietnamese_fits_a_phone(app, smtp_server, phone, code):
    html = _turn_email(app, smtp_server, code)
    assert f'<html lang="{code}" dir="ltr">' in html
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"i18n-turn-{code}.html").write_text(html, encoding="utf-8")
    phone.set_content(html)
    phone.screenshot(path=str(SCREENSHOTS / f"i18n-turn-{code}-phone.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shown = phone.evaluate("document.body.innerText")
    assert any(word.casefold() in shown.casefold() for word in WORDS[code]), shown[:400]
