"""Helpers of the admin dashboard tests (their fixtures are in conftest.py);
the row readers (`cfg_of`, `db_of`, `game_row`, `seats`, `outbox`) are game_helpers'."""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any

import pytest
from game_helpers import cfg_of, db_of, game_row, outbox, seats, start_game  # noqa: F401  (used by the test_admin_* modules)
from sqlmodel import Session, col, select

from pbem.games.setup import SeatSpec
from pbem.models import AuditLog, SeatKind

ADMIN_EMAIL = "boss@korsar.test"
ADMIN_PASSWORD = "correct horse battery"
PLAYERS = ["Ann <ann@example.com>", "Bob <bob@example.com>", "Cy <cy@example.com>"]


def use_cheap_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its cheapest parameters: tests check behaviour, not hashing cost."""
    from argon2 import PasswordHasher, profiles

    monkeypatch.setattr("pbem.auth._hasher", PasswordHasher.from_parameters(profiles.CHEAPEST))


def log_in(client: Any, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> Any:
    return client.post("/admin/login", data={"email": email, "password": password})


def new_game(app: Any, players: list[str | SeatSpec] | None = None, *, seed: int = 7,
             now: datetime | None = None, **kwargs: Any) -> int:
    """`start_game` with the admin tests' defaults: three players, seed 7."""
    return start_game(app, list(players or PLAYERS), seed=seed, now=now, **kwargs)


def bot_game(app: Any, *, seed: int = 1, now: datetime | None = None) -> int:
    """A game of two bots: no email at all (fast to make many)."""
    bots = [SeatSpec("Robo", kind=SeatKind.BOT, bot="greedy"), SeatSpec("Dumb", kind=SeatKind.BOT, bot="random")]
    return new_game(app, bots, seed=seed, now=now)


def audit_actions(app: Any) -> list[str]:
    with Session(db_of(app)) as s:
        return [a.action for a in s.exec(select(AuditLog).order_by(col(AuditLog.id)))]


def csrf_token_of(html: str) -> str:
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    assert match, "no CSRF token in the page"
    return match.group(1)


def text_of(response: Any) -> str:
    return response.get_data(as_text=True)
