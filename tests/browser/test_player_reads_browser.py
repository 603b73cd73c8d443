"""What a player reads, in the system Chromium: the drawn table of the turn email and the game
page, the confirmation page and the game-over breakdown fit 1280 and 390 px; screenshots of each
go to test-artifacts/screenshots/reads-*.png."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import engine
from conftest import DESKTOP, PHONE, SCREENSHOTS

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pbem"))
from game_helpers import cfg_of, db_of, deck_with_hands, seats, start_game  # noqa: E402

from pbem import links  # noqa: E402
from pbem.db import session_scope  # noqa: E402
from pbem.games import service  # noqa: E402
from pbem import store
from pbem.letters import notify  # noqa: E402
from pbem.mail.render import render_email  # noqa: E402
from pbem.models import Game, Seat  # noqa: E402

TEAM = ["Alice <alice@example.com>", "Bob <bob@example.com>", "Carol <carol@example.com>",
        "Dave <dave@example.com>"]
DECK = deck_with_hands(["M5", "B2", "B3", "BC", "M4", "G1"], ["M6", "R2", "K3", "M2", "M2", "G2"],
                       ["M7", "G3", "G4", "M2", "M3", "R1"], ["M8", "B1", "K4", "M3", "M4", "AD"])


def _seat(s, game_id: int, position: int) -> Seat:
    return s.exec(service.select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()


def _look(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"reads-{name}-{label}.png"), full_page=True)
        if label == "phone":
            assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name


def test_the_drawn_table_and_the_breakdown_fit_a_desktop_and_a_phone(app, page, live_server):
    game_id = start_game(app, TEAM, teams=True, deck=DECK)
    with session_scope(db_of(app)) as s:
        for position, move in [(0, {"action": "play", "card": "M5"}), (1, {"action": "play", "card": "M6"}),
                               (2, {"action": "play", "card": "G3", "target": 1}),
                               (3, {"action": "play", "card": "B1", "target": 2}),
                               (0, {"action": "play", "card": "B2", "target": 1}),
                               (1, {"action": "play", "card": "R2", "target": 2}),
                               (2, {"action": "play", "card": "M7"}), (3, {"action": "play", "card": "M8"})]:
            service.apply_game_move(s, cfg_of(app), game_id, position, move)
        game = s.get(Game, game_id)
        context = notify.seat_context(s, cfg_of(app), game, _seat(s, game_id, 0), store.load_state(game), since=0)
    page.set_content(render_email("turn", "alice@example.com", context).html_body)
    _look(page, "turn-email")
    seat = seats(app, game_id)[0]
    page.goto(f"{live_server}/g/" + links.sign_seat(cfg_of(app), game_id, 0, seat.link_nonce))
    _look(page, "game-page")
    page.click("a.move >> nth=3")
    _look(page, "confirm-page")
    page.goto(f"{live_server}/rules")
    _look(page, "rules-page")

    rng = random.Random(4)
    with session_scope(db_of(app)) as s:
        for _ in range(400):
            game = s.get(Game, game_id)
            if game.to_move is None or game.status != "running":
                break
            legal = engine.legal_moves(store.load_state(game))
            plays = [m for m in legal if m["action"] != "draw"]
            service.apply_game_move(s, cfg_of(app), game_id, game.to_move,
                                    rng.choice(plays if plays and rng.random() < 0.7 else legal))
    with session_scope(db_of(app)) as s:
        email = notify.game_over_email(s, cfg_of(app), s.get(Game, game_id), _seat(s, game_id, 0))
    page.set_content(email.html_body)
    _look(page, "game-over-email")
    page.goto(f"{live_server}/g/" + links.sign_seat(cfg_of(app), game_id, 0, seats(app, game_id)[0].link_nonce))
    _look(page, "game-over-page")
