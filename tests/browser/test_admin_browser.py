"""The admin dashboard in a real browser (system Chromium): log in, create a game, watch its
emails in the outbox, pause and resume, change a player's email, abort. Screenshots of every
main page at desktop and phone width go to test-artifacts/screenshots/."""
from __future__ import annotations

import random
import re
from datetime import timedelta

import engine
import pytest
from conftest import screenshot
from sqlmodel import Session, select

from pbem.auth import create_admin
from pbem.db import session_scope
from pbem.games.service import apply_game_move, create_game
from pbem.store import load_state
from pbem.mail.delivery import deliver_due
from pbem.models import Game, OutboxMessage, OutboxStatus, Seat, utcnow
from pbem.games.settings import GameSettings

EMAIL = "boss@korsar.test"
PASSWORD = "correct horse battery"


@pytest.fixture
def admin(app) -> None:
    with session_scope(app.extensions["korsar_db"]) as s:
        create_admin(s, EMAIL, PASSWORD)


def expect_flash(page, text: str) -> None:
    assert text in page.locator(".flash").first.inner_text()


def play_some_moves(app, game_id: int, count: int) -> None:
    """Fill the table: each seat to move attacks if it can, else plays a merchant ship."""
    for _ in range(count):
        with session_scope(app.extensions["korsar_db"]) as s:
            game = s.get(Game, game_id)
            moves = engine.legal_moves(load_state(game))
            move = next((m for m in moves if "target" in m), None) or \
                next((m for m in moves if m["action"] == "play"), moves[0])
            apply_game_move(s, app.config["KORSAR"], game_id, game.to_move, move)


def more_games(app) -> None:
    """A few other games, so the list has something to sort."""
    with session_scope(app.extensions["korsar_db"]) as s:
        for i, players in enumerate([["Di <di@example.com>", "Ed <ed@example.com>"],
                                     ["Fay <fay@example.com>", "Gus <gus@example.com>", "bot:random"]]):
            create_game(s, app.config["KORSAR"], players, GameSettings(name=f"Club night {i + 1}"), seed=i,
                        now=utcnow() - timedelta(hours=30 * (i + 1)))


def test_an_admin_runs_a_game_from_the_dashboard(page, admin, app, smtp_server, monkeypatch):
    # The form deals from random.SystemRandom(); a seeded stand-in (the server runs in this
    # process) gives the deal the old "seed 11" gave, so the table after 9 moves is known.
    monkeypatch.setattr(random, "SystemRandom", lambda: random.Random(11))
    db = app.extensions["korsar_db"]

    page.goto("/admin/")
    assert page.url.endswith("/admin/login?next=/admin/")
    screenshot(page, "login")
    page.fill("#email", EMAIL)
    page.fill("#password", "wrong password!")
    page.click("button[type=submit]")
    expect_flash(page, "Wrong email or password.")
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r"/admin/$"))
    assert "No games" in page.inner_text("main")

    # Create a game: first a mistake, shown inline with what was typed kept.
    page.click("text=New game >> nth=0")
    page.fill("#name", "Browser table")
    page.fill("#players-0-name", "Ann")
    page.fill("#players-0-email", "ann@example.com")
    page.fill("#players-1-name", "Bob")
    page.fill("#players-1-email", "bob at example")
    page.fill("#players-2-name", "Robo")
    page.select_option("#players-2-kind", "bot:greedy")
    assert page.locator("#seed").count() == 0  # no seed field: every game is dealt from the OS's randomness
    page.click("text=Create the game")
    assert "is not an email address" in page.inner_text(".player-row >> nth=1")
    assert page.input_value("#players-0-email") == "ann@example.com"
    screenshot(page, "new-game-errors")
    page.fill("#players-1-email", "bob@example.com")
    assert page.is_checked("#invite_first")  # asking the players first is the default
    page.uncheck("#invite_first")  # these two agreed already: the game starts now
    page.click("text=Create the game")
    page.wait_for_url(re.compile(r"/admin/games/\d+$"))
    game_id = int(page.url.rsplit("/", 1)[1])
    expect_flash(page, f"Game {game_id} created")
    assert page.locator(".seat").count() == 3
    assert page.locator(".seat >> nth=0").locator(".card").count() == 6  # Ann's hand, in full
    play_some_moves(app, game_id, 9)
    page.reload()
    assert page.locator(".ship").count() >= 1
    assert page.locator(".move-log li").count() == 9
    screenshot(page, "game")

    # Its emails wait in the outbox, then the worker sends them.
    page.click("nav >> text=Outbox")
    page.wait_for_url(re.compile(r"/admin/outbox$"))  # count() does not wait for the page
    rows = page.locator("table.outbox tbody tr")
    assert rows.count() >= 3
    assert "ann@example.com" in page.inner_text("table.outbox")
    with session_scope(db) as s:  # what the worker records when a server refuses an address
        row = s.exec(select(OutboxMessage).where(OutboxMessage.to_addr == "bob@example.com")).first()
        row.status, row.attempts = OutboxStatus.FAILED, 1
        row.last_error = "550 5.1.1 <bob@example.com>: Recipient address rejected: User unknown"
    page.reload()
    assert "Recipient address rejected" in page.inner_text("table.outbox")
    screenshot(page, "outbox")
    page.click("text=Retry all 1 failed")
    expect_flash(page, "1 failed emails will be sent again.")
    deliver_due(db, app.config["KORSAR"])
    page.reload()
    assert "Nothing waiting" in page.inner_text("main")
    page.click("nav.tabs a:text-is('Sent')")
    assert "bob@example.com" in page.inner_text("table.outbox")
    assert smtp_server.to("ann@example.com")

    # Pause and resume.
    page.goto(f"/admin/games/{game_id}")
    page.click("button:text('Pause')")
    expect_flash(page, "The game is paused")
    assert page.locator("h1 .badge").inner_text().lower() == "paused"
    page.click("button:text('Resume')")
    expect_flash(page, "running again")

    # Change Bob's email: old links die, the new address gets mail.
    with Session(db) as s:
        old_nonce = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 1)).one().link_nonce
    bob = page.locator(".seat >> nth=1")
    bob.locator("summary").click()
    bob.locator("input[type=email]").fill("bob@new.example")
    bob.locator("button:text('Change email')").click()
    expect_flash(page, "now plays from bob@new.example")
    with Session(db) as s:
        seat = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 1)).one()
        assert seat.email == "bob@new.example" and seat.link_nonce != old_nonce

    # Abort, after saying yes to the confirmation (static JS; the page works without it).
    page.once("dialog", lambda dialog: dialog.accept())
    page.fill("#reason", "Testing the dashboard")
    page.click("button:text('Abort game')")
    expect_flash(page, "aborted")
    with Session(db) as s:
        assert s.get(Game, game_id).status == "aborted"
    assert page.locator("text=Abort game").count() == 0

    # The other main pages.
    more_games(app)
    page.click("nav >> text=Games")
    page.wait_for_url(re.compile(r"/admin/$"))
    assert page.locator("table.games tbody tr").count() == 3
    page.click("th >> text=Waiting")
    page.wait_for_url(re.compile(r"sort=waiting"))
    screenshot(page, "games")
    page.click("nav >> text=Stats")
    page.wait_for_url(re.compile(r"/admin/stats$"))
    assert page.locator("svg.bar-chart rect.bar").count() == 30
    screenshot(page, "stats")
    page.click("nav >> text=Audit log")
    for action in ("create game", "pause", "resume", "change email", "abort"):
        assert action in page.inner_text("table.audit-log")
    screenshot(page, "audit")
    page.click("text=Log out")
    page.wait_for_url(re.compile(r"/admin/login"))
    assert page.problems == []  # no console errors, no blocked scripts
