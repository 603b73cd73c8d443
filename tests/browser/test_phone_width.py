"""Phones: every HTML email and every player page fits a 390 px wide screen with no sideways
scroll (`document.documentElement.scrollWidth <= 390` in the system Chromium), with hostile
and non-Latin names in them. The emails are the ones the service really sends (phone_samples:
games played, clocks swept, admin actions, the outbox delivered); every kind of email found in
email_templates/ and every player-facing GET route of the app is covered, and one without
a sample fails the test. Screenshots at 1280 and 390 px go to test-artifacts/screenshots/."""
from __future__ import annotations

import os
import re
from urllib.parse import quote

import pytest
from conftest import DESKTOP, PHONE, SCREENSHOTS
from phone_samples import (ADMIN_ADDRESS, GAME_NAME, PLAYERS, Letter, Pages, Table, path_of, play_every_kind,
                           seat_path, set_the_tables, unsubscribe_path)
from sqlmodel import select

from pbem import links
from pbem.db import session_scope
from pbem.games import invitations, proposals
from pbem.letters.invitations import not_me_url
from pbem.models import Invitation
from pbem.mail.catcher import MAIL_DIR_ENV, save_message
from pbem.mail.render import email_names
from pbem.games.settings import GameSettings

PHONE_WIDTH = PHONE["width"]
# KORSAR_LOOK=1: also save every page of the walk at both widths in each language
# (test-artifacts/screenshots/look-*.png), for a person to look at before calling a change done.
LOOK = os.environ.get("KORSAR_LOOK") == "1"
# The blueprints whose pages players never see.
NOT_FOR_PLAYERS = {"admin", "health", "static"}
DOWNLOADS = {"/me/<token>/data.json"}  # a file to save (Content-Disposition: attachment), not a page
SHOWN_TWICE = {"turn", "game_over"}  # screenshots at desktop and phone width (besides the pages)

# The elements that stick out of the screen, innermost first: what to fix, in the message.
OVERFLOWING = """() => {
  const width = document.documentElement.clientWidth;
  const sticksOut = el => el.getBoundingClientRect().right > width + 0.5
      || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible';
  return [...document.body.querySelectorAll('*')]
    .filter(el => sticksOut(el) && ![...el.children].some(sticksOut))
    .slice(0, 4)
    .map(el => `<${el.tagName.toLowerCase()}${el.className ? '.' + el.className : ''}> `
               + `${Math.round(el.getBoundingClientRect().left + el.scrollWidth)}px: `
               + (el.textContent || el.value || '').trim().slice(0, 60));
}"""

# The pages' database paths run on PostgreSQL in the other browser tests (self-service, admin,
# home); these walks were about 300 s of a PostgreSQL run.
pytestmark = pytest.mark.judges("how pages and emails render")



def width_problem(page) -> str | None:
    """None if the page fits the phone; else how wide it is and what sticks out."""
    width = page.evaluate("document.documentElement.scrollWidth")
    if width <= PHONE_WIDTH:
        return None
    return f"{width} px wide: " + "; ".join(page.evaluate(OVERFLOWING))


def save(page, name: str, sizes: dict[str, dict[str, int]]) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in sizes.items():
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"phone-{name}-{label}.png"), full_page=True)


def look(page, url: str, name: str) -> None:
    """Save the page at both widths in each language (`?lang=`: a seat's pages keep its own)."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    for code in ("en", "fr", "vi"):
        page.goto(url + ("&" if "?" in url else "?") + "lang=" + code)
        save(page, f"look-{slug}-{code}", {"desktop": DESKTOP, "phone": PHONE})


def by_kind(letters: list[Letter]) -> dict[str, list[Letter]]:
    kinds: dict[str, list[Letter]] = {}
    for letter in letters:
        kinds.setdefault(letter.kind, []).append(letter)
    return kinds


def test_every_kind_of_email_fits_a_phone(app, smtp_server, phone, browser):
    letters = play_every_kind(app, smtp_server.host, smtp_server.port)
    kinds = by_kind(letters)
    missing = sorted(set(email_names()) - set(kinds))
    assert not missing, (f"no sample of the email kinds {missing}: make phone_samples.play_every_kind "
                         "send one through the code path that sends it")
    problems = []
    for kind, sent in sorted(kinds.items()):
        for letter in sent:
            phone.set_content(letter.html)
            problem = width_problem(phone)
            if problem:
                problems.append(f"{kind} email to {letter.to_addr} ({letter.subject!r}) is {problem}")
                break  # one of each kind says what to fix
    desktop = browser.new_context(viewport=DESKTOP)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)  # a fresh checkout has none yet
    try:
        page = desktop.new_page()
        for kind in sorted(kinds):  # the fullest of each kind, its HTML beside its pictures
            html = max(kinds[kind], key=lambda letter: len(letter.html)).html
            (SCREENSHOTS / f"phone-email-{kind}.html").write_text(html, encoding="utf-8")
            page.set_content(html)
            save(page, f"email-{kind}", {"desktop": DESKTOP, "phone": PHONE} if kind in SHOWN_TWICE
                 else {"phone": PHONE})
    finally:
        desktop.close()
    assert not problems, "\n".join(problems)


def test_every_email_to_a_player_links_the_rules_page(app, smtp_server):
    letters = [letter for letter in play_every_kind(app, smtp_server.host, smtp_server.port)
               if letter.to_addr != ADMIN_ADDRESS]
    rules = links.rules_url(app.config["KORSAR"])
    without = sorted({letter.kind for letter in letters if f'href="{rules}"' not in letter.html})
    assert not without, f"emails without a link to {rules}: {without}"


def self_service_paths(app) -> dict[str, list[str]]:
    """The pages of a game set up at /new: its confirmation, its creator's page (a friend who
    declined, one who has not answered), an invitation, "never email me again"."""
    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as s:
        waiting = proposals.propose_game(s, cfg, your_name="Ann", your_email="ann@example.com",
                                         players="Bob <bob@example.com>", ip="")
        inviting = proposals.propose_game(s, cfg, your_name="Ann", your_email="ann@example.com",
                                            players="Bob <bob@example.com>\nCid <cid@example.com>\nbot:greedy",
                                            settings=GameSettings(name=GAME_NAME), ip="")
        proposals.confirm_proposal(s, cfg, links.sign_record(cfg, links.CONFIRM_SALT, inviting.id, inviting.nonce))
        bob, cid = s.exec(select(Invitation).where(Invitation.proposal_id == inviting.id, Invitation.position > 0,
                                                   Invitation.kind == "human").order_by(Invitation.position)).all()
        cid_path = path_of(cfg, links.invitation_url(cfg, cid.id, cid.nonce))
        invitations.decline_invitation(s, cfg, links.sign_record(cfg, links.INVITATION_SALT, bob.id, bob.nonce))
        manage = path_of(cfg, links.proposal_url(cfg, inviting.id, inviting.nonce))
        return {
            "/p/<token>/confirm": [path_of(cfg, links.confirm_url(cfg, waiting.id, waiting.nonce)), "/p/x/confirm"],
            "/p/<token>": [manage, "/p/not-a-token"],
            "/p/<token>/cancel": [manage + "/cancel"],
            "/i/<token>": [cid_path, "/i/not-a-token"],
            "/never/<token>": [path_of(cfg, links.never_url(cfg, "cid@example.com")), "/never/not-a-token"],
            "/not-me/<token>": [path_of(cfg, not_me_url(cfg, "cid@example.com")), "/not-me/not-a-token"],
        }


def player_paths(app, pages: Pages) -> dict[str, list[str]]:
    """Sample paths of every player-facing GET route, keyed by the route; [] when unknown."""
    cfg = app.config["KORSAR"]
    samples = {
        **self_service_paths(app),
        "/me/<token>": [path_of(cfg, links.my_games_url(cfg, pages.running.email)), "/me/not-a-token"],
        "/me/<token>/data": [path_of(cfg, links.my_games_url(cfg, pages.running.email)) + "/data"],
        "/me/<token>/erase": [path_of(cfg, links.my_games_url(cfg, pages.running.email)) + "/erase"],
        "/g/<token>/leave": [seat_path(cfg, pages.running) + "/leave", "/g/not-a-token/leave"],
        "/g/<token>/rematch": [seat_path(cfg, pages.finished) + "/rematch", seat_path(cfg, pages.running) + "/rematch"],
        "/g/<token>/analysis": [seat_path(cfg, pages.finished) + "/analysis",
                                seat_path(cfg, pages.running) + "/analysis"],
        "/g/<token>": [seat_path(cfg, pages.running), seat_path(cfg, pages.finished), "/g/not-a-token"],
        "/m/<token>": [*pages.move_paths, pages.stale_move_path, "/m/not-a-token"],
        "/g/<token>/prefs": [seat_path(cfg, pages.running) + "/prefs", "/g/not-a-token/prefs"],
        "/u/<token>": [unsubscribe_path(cfg, pages.running), "/u/not-a-token"],
        "/g/<token>/replay": [seat_path(cfg, pages.finished) + "/replay", seat_path(cfg, pages.running) + "/replay"],
        "/g/<token>/replay/<step>": [seat_path(cfg, pages.finished) + "/replay/6",
                                     seat_path(cfg, pages.running) + "/replay/4",
                                     seat_path(cfg, pages.running) + "/replay/999"],
    }
    routes: dict[str, list[str]] = {}
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()) or rule.endpoint.split(".")[0] in NOT_FOR_PLAYERS:
            continue
        if rule.endpoint.startswith("dev.") or rule.rule in DOWNLOADS:  # the dev inbox: shown with its emails
            continue
        routes[rule.rule] = samples.get(rule.rule, [] if rule.arguments else [rule.rule])
    return routes


def test_every_player_page_fits_a_phone_and_links_the_rules(app, smtp_server, phone, live_server):
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    routes = player_paths(app, pages)
    unknown = sorted(rule for rule, paths in routes.items() if not paths)
    assert not unknown, f"no sample URL for the player routes {unknown}: add them to player_paths"
    problems, unlinked = [], []
    for rule, paths in sorted(routes.items()):
        for path in paths:
            phone.goto(live_server + path)
            problem = width_problem(phone)
            if problem:
                problems.append(f"{rule} ({path[:40]}...) is {problem}")
            if phone.locator("a[href='/rules']").count() == 0:
                unlinked.append(rule)
            if LOOK:
                look(phone, live_server + path, f"{rule}-{paths.index(path)}")
    cfg = app.config["KORSAR"]
    for name, path in [("game-page", seat_path(cfg, pages.running)),
                       ("confirm-page", pages.move_paths[-1]),
                       ("game-over-page", seat_path(cfg, pages.finished)),
                       ("error-page", pages.stale_move_path)]:
        phone.goto(live_server + path)
        save(phone, name, {"desktop": DESKTOP, "phone": PHONE})
    assert not problems, "\n".join(problems)
    assert not unlinked, f"player pages without a link to the rules: {sorted(set(unlinked))}"


def test_the_dev_inbox_fits_a_phone(app, smtp_server, phone, live_server, tmp_path, monkeypatch):
    monkeypatch.setenv(MAIL_DIR_ENV, str(tmp_path))
    table = Table(app, smtp_server.host, smtp_server.port, PLAYERS, name=GAME_NAME, teams=True, seed=5)
    table.play(2)
    for raw, (sender, recipients) in zip(smtp_server.raw, smtp_server.envelopes):
        save_message(tmp_path, raw, sender, recipients)
    phone.goto(live_server + "/dev/mail")
    paths = [phone.locator("table.devmail a[href^='/dev/mail/']").first.get_attribute("href"),
             "/dev/mail?to=" + quote(table.seat(0).email or ""), "/dev/mail"]
    problems = []
    for name, path in zip(["message", "to-one", "all"], paths):
        phone.goto(live_server + path)
        problem = width_problem(phone)
        if problem:
            problems.append(f"{path} is {problem}")
        save(phone, f"dev-inbox-{name}", {"phone": PHONE})
    assert not problems, "\n".join(problems)
