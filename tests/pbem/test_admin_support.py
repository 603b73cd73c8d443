"""Fixtures and helpers of the admin dashboard tests (imported by the test_admin_* modules)."""
from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from sqlmodel import Session, col, select

from pbem.auth import create_admin
from pbem.db import session_scope
from pbem.games.service import SeatSpec, create_game
from pbem.models import AuditLog, Game, OutboxMessage, Seat, SeatKind

ADMIN_EMAIL = "boss@korsar.test"
ADMIN_PASSWORD = "correct horse battery"
PLAYERS = ["Ann <ann@example.com>", "Bob <bob@example.com>", "Cy <cy@example.com>"]


def use_cheap_hashing(monkeypatch: pytest.MonkeyPatch) -> None:
    """argon2 at its cheapest parameters: tests check behaviour, not hashing cost."""
    from argon2 import PasswordHasher, profiles

    monkeypatch.setattr("pbem.auth._hasher", PasswordHasher.from_parameters(profiles.CHEAPEST))


@pytest.fixture
def cheap_hashing(monkeypatch):
    use_cheap_hashing(monkeypatch)


@pytest.fixture
def admin_app(app, monkeypatch):
    """The app with one admin account; CSRF off (one test module turns it back on)."""
    use_cheap_hashing(monkeypatch)
    app.config["WTF_CSRF_ENABLED"] = False
    with session_scope(app.extensions["korsar_db"]) as s:
        create_admin(s, ADMIN_EMAIL, ADMIN_PASSWORD)
    return app


def log_in(client: Any, email: str = ADMIN_EMAIL, password: str = ADMIN_PASSWORD) -> Any:
    return client.post("/admin/login", data={"email": email, "password": password})


@pytest.fixture
def admin_client(admin_app) -> Iterator[Any]:
    client = admin_app.test_client()
    assert log_in(client).status_code == 303
    yield client


def cfg_of(app: Any) -> Any:
    return app.config["KORSAR"]


def db_of(app: Any) -> Any:
    return app.extensions["korsar_db"]


def new_game(app: Any, players: list[str | SeatSpec] | None = None, *, seed: int = 7,
             now: datetime | None = None, **kwargs: Any) -> int:
    with session_scope(db_of(app)) as s:
        game = create_game(s, cfg_of(app), list(players or PLAYERS), seed=seed, now=now, **kwargs)
        return game.id  # type: ignore[return-value]


def bot_game(app: Any, *, seed: int = 1, now: datetime | None = None) -> int:
    """A game of two bots: no email at all (fast to make many)."""
    bots = [SeatSpec("Robo", kind=SeatKind.BOT, bot="greedy"), SeatSpec("Dumb", kind=SeatKind.BOT, bot="random")]
    return new_game(app, bots, seed=seed, now=now)


def game(app: Any, game_id: int) -> Game:
    with Session(db_of(app)) as s:
        return s.get(Game, game_id)  # type: ignore[return-value]


def seats(app: Any, game_id: int) -> list[Seat]:
    with Session(db_of(app)) as s:
        return list(s.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))))


def outbox(app: Any, game_id: int | None = None) -> list[OutboxMessage]:
    with Session(db_of(app)) as s:
        q = select(OutboxMessage).order_by(col(OutboxMessage.id))
        if game_id is not None:
            q = q.where(OutboxMessage.game_id == game_id)
        return list(s.exec(q))


def audit_actions(app: Any) -> list[str]:
    with Session(db_of(app)) as s:
        return [a.action for a in s.exec(select(AuditLog).order_by(col(AuditLog.id)))]


def csrf_token_of(html: str) -> str:
    match = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html)
    assert match, "no CSRF token in the page"
    return match.group(1)


def text_of(response: Any) -> str:
    return response.get_data(as_text=True)
