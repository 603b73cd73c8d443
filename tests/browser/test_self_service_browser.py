"""Games players start themselves, in the system Chromium, through the emails they get (the real
SMTP fixture records them; the worker's jobs run in the test: delivery and the bots):
1. from the home page a visitor starts a game against two bots, confirms it from the email and
   plays it to the end through the move links of their turn emails;
2. a game with two friends: one declines, the creator replaces them with a bot, the other
   accepts, and the game starts.
Every page of these flows is saved at 1280 and 390 px (test-artifacts/screenshots/admin-self-*.png)
and must not scroll sideways on a phone."""
from __future__ import annotations

import re
import sys
from email.message import EmailMessage
from pathlib import Path

from conftest import PHONE, screenshot

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pbem"))
from game_helpers import BASE_URL, cfg_of, db_of, move_links, text_part  # noqa: E402

from sqlmodel import select  # noqa: E402

from pbem.db import session_scope  # noqa: E402
from pbem.games.bots import play_due_bots  # noqa: E402
from pbem.mail.delivery import deliver_due  # noqa: E402
from pbem.models import Game, Proposal  # noqa: E402

LINK = r"http://korsar\.test(/{kind}/[^\s<>\"]+)"


def look(page, name: str) -> None:
    """Screenshots at both widths; on a phone the page must fit its width."""
    screenshot(page, f"self-{name}")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name
    page.set_viewport_size({"width": 1280, "height": 800})


def run_worker(app) -> None:
    """What the worker does between two clicks: the bots move, the mail goes out."""
    play_due_bots(db_of(app), cfg_of(app))
    deliver_due(db_of(app), cfg_of(app))


def last_mail_to(smtp_server, address: str, pattern: str) -> tuple[EmailMessage, str]:
    """The latest email to `address` with a link matching `pattern`, and that link's path."""
    for message in reversed(smtp_server.to(address)):
        match = re.search(pattern, text_part(message))
        if match:
            return message, match[1]
    raise AssertionError(f"no email to {address} with {pattern}")


def submit(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def start_a_game(page, live_server: str, players: str) -> None:
    """Ann fills the form from the home page's link (or /new) and sends it."""
    page.goto(live_server + "/")
    start = page.locator("a[href='/new']")
    if start.count():
        submit(page, "a[href='/new'] >> nth=0")
    else:  # the home page is another helper's: not there yet
        page.goto(live_server + "/new")
    page.fill("#your_name", "Ann")
    page.fill("#your_email", "ann@example.com")
    page.fill("#players", players)
    look(page, "new-game")
    submit(page, "form.setup button[type=submit]")
    assert page.url.endswith("/new/sent")
    assert "ann@example.com" in page.inner_text("main")


def confirm_from_the_email(page, app, smtp_server, live_server: str) -> None:
    deliver_due(db_of(app), cfg_of(app))
    _mail, path = last_mail_to(smtp_server, "ann@example.com", LINK.format(kind="p") + r"(?=\s|$)")
    assert path.endswith("/confirm")
    page.goto(live_server + path)
    look(page, "confirm")
    submit(page, "form button[type=submit]")
    assert "/confirm" not in page.url


def game_of(app) -> Game | None:
    with session_scope(db_of(app)) as s:
        proposal = s.exec(select(Proposal)).first()  # the one proposal of the test
        return s.get(Game, proposal.game_id) if proposal and proposal.game_id else None


def test_a_visitor_starts_a_game_against_two_bots_and_plays_it_to_the_end(app, page, live_server,
                                                                         smtp_server):
    page.goto(live_server + "/new")
    page.fill("#your_name", "Ann")
    page.fill("#your_email", "not an address")
    page.fill("#players", "bot:greedy\nbot:nonsense")
    submit(page, "form.setup button[type=submit]")
    assert page.locator("[data-error=your_email]").count() == 1
    assert page.locator("[data-line='2']").count() == 1
    look(page, "new-game-errors")
    assert smtp_server.to("ann@example.com") == []

    start_a_game(page, live_server, "bot:greedy\nbot:random")
    look(page, "sent")
    confirm_from_the_email(page, app, smtp_server, live_server)
    assert page.locator("[data-proposal-status=started]").count() == 1
    look(page, "creator-page-started")
    submit(page, "[data-game-link]")
    assert "/g/" in page.url

    for _turn in range(400):
        run_worker(app)
        game = game_of(app)
        if game.status != "running":
            break
        if game.to_move != 0:
            continue
        turn_mail = next(m for m in reversed(smtp_server.to("ann@example.com")) if move_links(text_part(m)))
        page.goto(live_server + move_links(text_part(turn_mail))[0][1])
        if page.locator("form[data-move] button").count() == 0:  # an older email's link: the game page
            submit(page, "a[href^='/g/'] >> nth=0")
            submit(page, "a.move >> nth=0")
        submit(page, "form[data-move] button")
    assert game_of(app).status == "finished"
    page.reload()
    assert page.locator("section.final").count() == 1
    look(page, "game-over")
    assert not page.problems


def test_a_friend_declines_and_the_creator_replaces_them_with_a_bot(app, page, live_server, smtp_server):
    start_a_game(page, live_server, "Bob <bob@example.com>\nCarol <carol@example.com>")
    assert smtp_server.to("bob@example.com") == []  # nobody is emailed before the creator confirms
    confirm_from_the_email(page, app, smtp_server, live_server)
    assert page.locator("[data-proposal-status=inviting]").count() == 1
    look(page, "creator-page-inviting")
    manage = page.url

    deliver_due(db_of(app), cfg_of(app))
    (bobs,) = smtp_server.to("bob@example.com")
    bob = page.context.new_page()
    bob.goto(live_server + re.search(LINK.format(kind="i"), text_part(bobs))[1])
    look(bob, "invitation")
    submit(bob, "[data-decline]")
    assert bob.locator("[data-answered=declined]").count() == 1
    look(bob, "declined")
    bob.click("[data-never-link]")
    look(bob, "never")

    page.goto(manage)
    assert page.locator("[data-seat='1'][data-status=declined]").count() == 1
    look(page, "creator-page-declined")
    page.select_option("#replacement-1", "friend")
    page.fill("#friend-name-1", "Dan")
    page.fill("#friend-email-1", "not an address")
    submit(page, "[data-replace='1'] button")
    assert page.locator("[data-replace='1'] [role=alert]").count() == 1
    look(page, "creator-page-replace-error")
    page.select_option("#replacement-1", "bot:greedy")
    submit(page, "[data-replace='1'] button")
    assert page.locator("[data-seat='1'][data-status=accepted]").count() == 1

    page.goto(manage + "/cancel")
    look(page, "cancel-question")
    page.goto(manage)

    (carols,) = smtp_server.to("carol@example.com")
    carol = page.context.new_page()
    carol.goto(live_server + re.search(LINK.format(kind="i"), text_part(carols))[1])
    submit(carol, "[data-accept]")
    assert carol.locator("[data-answered=accepted] [data-game-link]").count() == 1
    look(carol, "accepted-started")
    assert game_of(app).status == "running"
    page.reload()
    assert page.locator("[data-proposal-status=started] [data-game-link]").count() == 1
    carol.goto(live_server + "/i/damaged-token")
    look(carol, "error")
    assert len(smtp_server.to("bob@example.com")) == 1  # his one invitation, nothing after declining
    assert BASE_URL in text_part(bobs)
