"""Fixtures shared by the service tests, each defined once (the app, client and database
fixtures are in tests/conftest.py; helpers in game_helpers, clockkit, smtp_fakes and
test_admin_support)."""
from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from game_helpers import make_cfg
from test_admin_support import ADMIN_EMAIL, ADMIN_PASSWORD, log_in, use_cheap_hashing

from pbem.auth import create_admin
from pbem.config import Config
from pbem.db import session_scope


@pytest.fixture
def cfg(database_url: str) -> Config:
    """The clock tests' config for `database_url` (no app)."""
    return make_cfg(database_url)


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
