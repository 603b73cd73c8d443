"""Fixtures shared by the service tests, each defined once (the app, client and database
fixtures are in tests/conftest.py; helpers in game_helpers, clockkit, smtp_fakes and
admin_helpers)."""
from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from game_helpers import make_cfg
from admin_helpers import ADMIN_EMAIL, ADMIN_PASSWORD, log_in, use_cheap_hashing

from pbem.auth import create_admin
from pbem.config import Config
from pbem.db import session_scope


@pytest.fixture
def cfg(database_url: str) -> Config:
    """The clock tests' config for `database_url` (no app)."""
    return make_cfg(database_url)


@pytest.fixture
def links_signed_at_one_instant(monkeypatch: pytest.MonkeyPatch) -> int:
    """Every signed link of the test carries one timestamp (the second the test started), so a
    link the test signs is the one a page or an email holds even when a second ticks between
    them. A module that compares links uses it: `pytestmark = pytest.mark.usefixtures(...)`."""
    from itsdangerous.timed import TimestampSigner

    signed_at = int(time.time())
    monkeypatch.setattr(TimestampSigner, "get_timestamp", lambda self: signed_at)
    return signed_at


@pytest.fixture
def cheap_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    use_cheap_hashing(monkeypatch)


@pytest.fixture
def admin_app(app: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The app with one admin account; CSRF off (one test module turns it back on)."""
    use_cheap_hashing(monkeypatch)
    app.config["WTF_CSRF_ENABLED"] = False
    with session_scope(app.extensions["korsar_db"]) as s:
        create_admin(s, ADMIN_EMAIL, ADMIN_PASSWORD)
    return app


@pytest.fixture
def admin_client(admin_app: Any) -> Iterator[Any]:
    client = admin_app.test_client()
    assert log_in(client).status_code == 303
    yield client
