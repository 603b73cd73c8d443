"""Real-browser fixtures: the system Chromium driven by Playwright, and the app on a live
werkzeug server in a thread on 127.0.0.1. Without /usr/bin/chromium these tests skip."""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if str(item.fspath).startswith(str(Path(__file__).parent)):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    # Module scope, not session: Playwright's sync API keeps an asyncio loop running in this
    # thread while it is open, which would break later tests that call asyncio.run().
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"no system Chromium at {CHROMIUM} (Debian package 'chromium'): browser tests skipped")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed: browser tests skipped")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def live_server(app) -> Iterator[str]:
    """The app served on 127.0.0.1:<free port> by werkzeug in a thread; yields its base URL."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=5)


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    context = browser.new_context(viewport=DESKTOP, base_url=live_server)
    page = context.new_page()
    page.set_default_timeout(30_000)  # generous on a loaded machine; a passing run waits no longer
    problems: list[str] = []
    # An HTTP error status is part of some scenarios; anything else (a script error, a
    # resource refused by the content security policy) is a problem.
    page.on("console", lambda m: problems.append(m.text)
            if m.type == "error" and not m.text.startswith("Failed to load resource") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.problems = problems  # type: ignore[attr-defined]
    yield page
    context.close()


@pytest.fixture
def phone(browser) -> Iterator[object]:
    """A page in a phone-sized browser, with no server (390 px, touch, the page's own viewport
    tag honoured, as a phone's browser or mail app does)."""
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.set_default_timeout(30_000)  # generous on a loaded machine; a passing run waits no longer
    yield page
    context.close()


def screenshot(page, name: str) -> None:
    """Save the page at desktop and phone width (full page) under test-artifacts/screenshots/."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.screenshot(path=str(SCREENSHOTS / f"admin-{name}-{label}.png"), full_page=True)
    page.set_viewport_size(DESKTOP)
