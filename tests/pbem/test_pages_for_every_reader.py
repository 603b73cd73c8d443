"""Pages for every reader (issue 25): the outcome of a form in the page's title, in the reader's
language; /new's errors wired to their fields and listed as links; two Save buttons that say
what they save; the way on from a 400 or a 404; a focus ring that can be seen on every page
background and beside the dark-blue buttons; body text that grows with the browser's font; the
game page's heading naming the game and its state; the admin's axe findings fixed."""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from game_helpers import cfg_of, seats, start_game

from pbem import links

STATIC = Path(__file__).resolve().parents[2] / "pbem" / "static"
TEMPLATES = Path(__file__).resolve().parents[2] / "pbem" / "templates"
NEW_GAME = {"your_name": "Ann", "your_email": "ann@example.com", "players": "bot:greedy",
            "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"}


class Elements(HTMLParser):
    """Every element's tag and attributes, in order (an attribute given twice: kept twice)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.found: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, attrs))

    def ids(self) -> list[str]:
        return [v or "" for _, attrs in self.found for k, v in attrs if k == "id"]

    def by_id(self, element_id: str) -> dict[str, str | None]:
        (attrs,) = [dict(a) for _, a in self.found if ("id", element_id) in a]
        return attrs


def title(html: str) -> str:
    return re.search(r"<title>(.*?)</title>", html, re.S)[1].strip()  # type: ignore[index]


def seat_page(app, game_id: int, position: int) -> str:
    seat = seats(app, game_id)[position]
    return "/g/" + links.sign_seat(cfg_of(app), game_id, position, seat.link_nonce)


def move_path(app, game_id: int, position: int, move: dict) -> str:
    from game_helpers import game_row
    seat = seats(app, game_id)[position]
    return "/m/" + links.sign_move(cfg_of(app), game_id, position, seat.link_nonce,
                                   game_row(app, game_id).version, move)


# ---------------------------------------------------------------- the outcome in the title
# French and Vietnamese: pass once the catalogs hold /tmp/helpers/out/pages-translations.json.
@pytest.mark.parametrize("code, played, state", [
    ("en", "Move played · ", "waiting for Bob"),
    ("fr", "Coup joué · ", "Bob doit jouer"),
    ("vi", "Đã đi · ", "đang chờ Bob đi"),
])
def test_a_played_move_is_said_first_in_the_game_pages_title(app, client, code, played, state):
    game_id = start_game(app, [f"Ann <ann@example.com> [{code}]", "Bob <bob@example.com>"], seed=7,
                         name="Port Royal")
    before = client.get(seat_page(app, game_id, 0)).text
    assert title(before).startswith("Port Royal") and not title(before).startswith(played)
    response = client.post(move_path(app, game_id, 0, {"action": "draw"}), follow_redirects=True)
    colon = "\u00a0:" if code == "fr" else ":"
    assert title(response.text) == f"{played}Port Royal{colon} {state}"


@pytest.mark.parametrize("code, error", [("en", "Error: Start a game of Korsar"),
                                         ("fr", "Erreur\u00a0: Lancer une partie de Korsar"),
                                         ("vi", "Lỗi: Bắt đầu một ván Korsar")])
def test_a_refused_new_game_form_says_error_in_its_title(client, code, error):
    assert "Error" not in title(client.get(f"/new?lang={code}").text)
    response = client.post("/new", data={**NEW_GAME, "your_email": "not-an-address"})
    assert response.status_code == 422 and title(response.text) == error


@pytest.mark.parametrize("code, saved", [("en", "Saved · "), ("fr", "Enregistré · "), ("vi", "Đã lưu · ")])
def test_a_saved_preference_says_so_first_in_the_title(app, client, code, saved):
    game_id = start_game(app, [f"Ann <ann@example.com> [{code}]", "Bob <bob@example.com>"], seed=7)
    prefs = seat_page(app, game_id, 0) + "/prefs"
    assert not title(client.get(prefs).text).startswith(saved)
    response = client.post(prefs.replace("/prefs", "/timezone"), data={"timezone": "Europe/Paris"},
                           follow_redirects=True)
    assert title(response.text).startswith(saved)


# ---------------------------------------------------------------- /new's errors on their fields
def test_each_refused_new_game_field_is_described_by_its_help_and_its_errors_once(client):
    response = client.post("/new", data={**NEW_GAME, "your_name": "", "reminders": "often",
                                         "players": "Bob bob@example\nbot:greedy"})
    page = Elements(response.text)
    assert len(page.ids()) == len(set(page.ids())), "an id is used twice"
    for tag, attrs in page.found:
        assert [k for k, _ in attrs].count("aria-describedby") <= 1, (tag, attrs)
    described = {name: (page.by_id(name).get("aria-describedby") or "").split()
                 for name in ("your_name", "players", "reminders")}
    assert described == {"your_name": ["your_name-error"],
                         "players": ["players-help", "players-lines"],
                         "reminders": ["reminders-help", "reminders-error"]}
    for ids in described.values():
        assert all(i in page.ids() for i in ids)
    assert all(page.by_id(name).get("aria-invalid") == "true" for name in described)


def test_the_error_summary_links_each_problem_to_its_field(client):
    response = client.post("/new", data={**NEW_GAME, "your_email": "not-an-address",
                                         "players": "Bob bob@example\nbot:greedy"})
    summary = response.text.split("data-error-summary>", 1)[1].split("</ul>", 1)[0]
    targets = re.findall(r'<a href="#([a-z_]+)">', summary)
    assert sorted(targets) == ["players", "your_email"]
    assert all(f'id="{t}"' in response.text for t in targets)


def test_a_new_game_without_errors_describes_its_fields_by_their_help_only(client):
    page = Elements(client.get("/new").text)
    assert page.by_id("players").get("aria-describedby") == "players-help"
    assert page.by_id("reminders").get("aria-describedby") == "reminders-help"
    assert "aria-invalid" not in page.by_id("your_name")


# ---------------------------------------------------------------- buttons, links, headings
def test_the_two_save_buttons_of_the_preferences_say_what_they_save(app, client):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=7)
    page = client.get(seat_page(app, game_id, 0) + "/prefs").text
    buttons = re.findall(r"<button[^>]*>(.*?)</button>", page)
    assert "Save time zone" in buttons and "Save language" in buttons and "Save" not in buttons
    assert len(buttons) == len(set(buttons)), buttons


@pytest.mark.parametrize("path, status", [("/g/not-a-token", 400), ("/m/not-a-token", 400),
                                          ("/i/not-a-token", 400), ("/no-such-page", 404)])
def test_a_link_that_does_not_work_leads_on_to_home_and_to_my_games(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    assert 'href="/" data-onward-home' in response.text and 'href="/me" data-onward-me' in response.text


def test_a_refusal_with_a_way_back_to_the_game_needs_no_onward_links(app, client):
    from game_helpers import game_row
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=7)
    played = move_path(app, game_id, game_row(app, game_id).to_move or 0, {"action": "draw"})
    assert client.post(played).status_code == 303
    response = client.get(played)  # the same link again: 409, and the way back to the game
    assert response.status_code == 409 and "data-onward" not in response.text


@pytest.mark.parametrize("finished", [False, True])
def test_the_game_pages_heading_names_the_game_and_its_state(app, client, finished):
    from game_helpers import game_row
    from test_seat_actions import play_to_the_end
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=7, name="Port Royal")
    if finished:
        play_to_the_end(app, game_id)
    mover = game_row(app, game_id).to_move
    page = client.get(seat_page(app, game_id, 0)).text
    heading = re.search(r"<h1>(.*?)</h1>", page, re.S)[1]  # type: ignore[index]
    state = "game over" if finished else "your turn" if mover == 0 else "waiting for Bob"
    assert heading == f"Port Royal: {state}" and title(page) == heading


# ---------------------------------------------------------------- styles
def luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def rule(css: str, selector: str) -> str:
    return re.search(re.escape(selector) + r"\s*\{([^}]*)\}", css)[1]  # type: ignore[index]


PAGE_BACKGROUNDS = ["#ffffff", "#eef2f5", "#f4f8fb", "#e8f5e9", "#fdecea"]  # main, body, rows, notices
DARK_BLUE = "#0d3b66"  # buttons and move links


def test_player_pages_draw_a_focus_ring_seen_on_every_background_and_beside_the_buttons():
    focus = rule((STATIC / "korsar.css").read_text(), ":focus-visible")
    ring = re.search(r"outline:\s*3px solid (#[0-9a-f]{6})", focus)[1]  # type: ignore[index]
    band = re.search(r"box-shadow:\s*0 0 0 2px (#[0-9a-f]{6})", focus)[1]  # type: ignore[index]
    assert "outline-offset: 2px" in focus
    assert all(contrast(ring, bg) >= 3 for bg in PAGE_BACKGROUNDS), [contrast(ring, bg) for bg in PAGE_BACKGROUNDS]
    assert contrast(band, DARK_BLUE) >= 3 and contrast(ring, band) >= 3


def test_the_admin_focus_ring_and_muted_text_have_enough_contrast():
    css = (STATIC / "admin" / "admin.css").read_text()
    colours = dict(re.findall(r"--([a-z-]+):\s*(#[0-9a-f]{6})", css))
    ring = re.search(r"focus-visible[^{]*\{\s*outline:\s*3px solid (#[0-9a-f]{6})", css)[1]  # type: ignore[index]
    for background in (colours["bg"], "#ffffff", "#fafbfc"):  # the page, the panels, the tables' heads
        assert contrast(ring, background) >= 3
        assert contrast(colours["muted"], background) >= 4.5, (colours["muted"], background)


def test_body_text_is_sized_relative_to_the_readers_font():
    for css in [STATIC / "korsar.css", STATIC / "board.css", STATIC / "public.css", STATIC / "home" / "home.css"]:
        assert not re.search(r"font(-size)?:[^;}]*\b\d+px", css.read_text()), css.name
    assert "white-space: nowrap" not in rule((STATIC / "korsar.css").read_text(), ".card")


# ---------------------------------------------------------------- the admin's axe findings
def test_the_admin_pages_carry_their_axe_fixes():
    games = (TEMPLATES / "admin" / "games.html").read_text()
    assert re.search(r"<th\{% if active %\} aria-sort=", games) and not re.search(r"<a [^>]*aria-sort", games)
    assert (TEMPLATES / "admin" / "base.html").read_text().startswith("<!DOCTYPE html>")
    detail = (TEMPLATES / "admin" / "game_detail.html").read_text()
    assert '<div class="log-scroll" tabindex="0" role="region" aria-label="Move log, scrollable">' in detail


def test_the_admin_login_asks_the_browser_for_the_saved_password(client):
    page = Elements(client.get("/admin/login").text)
    assert page.by_id("password").get("autocomplete") == "current-password"
    assert page.by_id("email").get("autocomplete") == "username"
