"""Helpers of the game-service tests: a test config, decks with chosen hands, starting games,
reading rows, delivering the outbox to the real SMTP fixture, and reading the move links out of
received emails. The row readers take the Flask app or a bare SQLAlchemy engine (`db_of`); the
clock tests (clockkit.py), the admin tests (admin_helpers.py) and the SMTP tests
(smtp_fakes.py) build on them."""
from __future__ import annotations

import re
from collections import Counter
from datetime import datetime, timedelta
from email.message import EmailMessage
from html.parser import HTMLParser
from typing import Any

import engine
from flask import Flask
from sqlalchemy.engine import Engine
from sqlmodel import col, select

from pbem.config import Config
from pbem.db import session_scope
from pbem.games import service
from pbem.games.settings import read_settings
from pbem.mail.delivery import deliver_due
from pbem.models import Game, MoveRecord, OutboxMessage, Seat

BASE_URL = "http://korsar.test"
LINK_RE = re.compile(r"^(?P<text>[^\n]+)\n(?P<url>http://korsar\.test/m/\S+)$", re.M)


def make_cfg(database_url: str, **overrides: object) -> Config:
    """The config of a test process that works below the Flask app (the `app_config` fixture's)."""
    cfg = Config(DATABASE_URL=database_url, SECRET_KEY="test-secret", BASE_URL=BASE_URL,
                 MAIL_FROM="Korsar <korsar@korsar.test>", KORSAR_ENV="testing", BOT_DELAY_SECONDS=0.0)
    for key, value in overrides.items():
        setattr(cfg, key, value)
    return cfg


def cfg_of(app: Flask) -> Config:
    return app.config["KORSAR"]


def db_of(app: Flask | Engine) -> Engine:
    """The app's database engine (an engine is its own)."""
    return app if isinstance(app, Engine) else app.extensions["korsar_db"]


def deck_with_hands(*hands: list[str], draw: list[str] | None = None) -> list[str]:
    """A full deck (R2.2 order) whose first hands are `hands`, then `draw`, then the rest."""
    rest = Counter(engine.FULL_DECK)
    chosen = [c for hand in hands for c in hand] + list(draw or [])
    rest.subtract(chosen)
    assert all(n >= 0 for n in rest.values()), "more copies than the deck has"
    return chosen + sorted(rest.elements(), key=engine.FULL_DECK.index)


SETTINGS = ("name", "teams", "options", "deadline_hours", "reminders", "on_timeout", "table_talk")


def with_settings(kwargs: dict[str, Any]) -> dict[str, Any]:
    """`kwargs` with the settings given one by one (an engine option too, by its name) read into
    `settings` and `unread` by the entries' one reader (`read_settings`)."""
    rest = {k: v for k, v in kwargs.items() if k not in SETTINGS and k not in engine.Options.names()}
    given = {k: v for k, v in kwargs.items() if k in SETTINGS}
    loose = {k: v for k, v in kwargs.items() if k in engine.Options.names()}
    if loose:
        given["options"] = {**(given.get("options") or {}), **loose}
    settings, unread = read_settings(**given)
    return {**rest, "settings": settings, "unread": unread}


def start_game(app: Flask, players: list[str], **kwargs: Any) -> int:
    with session_scope(db_of(app)) as session:
        return service.create_game(session, cfg_of(app), players, **with_settings(kwargs)).id  # type: ignore[return-value]


def game_row(app: Flask | Engine, game_id: int) -> Game:
    with session_scope(db_of(app)) as session:
        return session.get(Game, game_id)  # type: ignore[return-value]


def seats(app: Flask | Engine, game_id: int) -> list[Seat]:
    with session_scope(db_of(app)) as session:
        return service.seats_of(session, game_id)


def outbox(app: Flask | Engine, game_id: int | None = None, **where: Any) -> list[OutboxMessage]:
    """The outbox rows in queue order, of one game and/or with the given column values."""
    if game_id is not None:
        where["game_id"] = game_id
    with session_scope(db_of(app)) as session:
        query = select(OutboxMessage).order_by(col(OutboxMessage.id))
        for key, value in where.items():
            query = query.where(getattr(OutboxMessage, key) == value)
        return list(session.exec(query))


def move_count(app: Flask, game_id: int) -> int:
    with session_scope(db_of(app)) as session:
        return len(session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)).all())


def deliver(app: Flask) -> int:
    """Send every due outbox row to the test SMTP server (the worker's job)."""
    report = deliver_due(db_of(app), cfg_of(app))
    assert report.failed == 0 and report.retried == 0, report
    return report.sent


def text_part(msg: EmailMessage) -> str:
    return msg.get_body(preferencelist=("plain",)).get_content().replace("\r\n", "\n")  # type: ignore[union-attr]


def html_part(msg: EmailMessage) -> str:
    return msg.get_body(preferencelist=("html",)).get_content().replace("\r\n", "\n")  # type: ignore[union-attr]


def move_links(text: str) -> list[tuple[str, str]]:
    """(sentence, path) of every move link in a text email (without its short number "3. ")."""
    return [(re.sub(r"^\d+\. ", "", m["text"].strip()), m["url"][len(BASE_URL):])
            for m in LINK_RE.finditer(text)]


def game_page_path(text: str) -> str:
    match = re.search(r"http://korsar\.test(/g/[^/\s]+)(?:\s|$)", text)  # not /g/<token>/prefs
    assert match, "no game page link"
    return match[1]


class HandSections(HTMLParser):
    """Every data-card inside a data-hand element, per (data-hand, data-seat); plus all cards."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[str, str] | None] = []
        self.hands: dict[tuple[str, str], list[str]] = {}
        self.cards: list[str] = []
        self.move_forms: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post" and "data-move" in a:
            self.move_forms.append(a)
        key = (a["data-hand"], a.get("data-seat")) if "data-hand" in a else None
        if key is not None:
            self.hands.setdefault(key, [])  # type: ignore[arg-type]
        current = key or next((k for k in reversed(self.stack) if k is not None), None)
        if tag in {"br", "meta", "link", "input", "img"}:
            current = None
        else:
            self.stack.append(key)
        if "data-card" in a:
            self.cards.append(a["data-card"])  # type: ignore[arg-type]
            if current is not None:
                self.hands[current].append(a["data-card"])  # type: ignore[index,arg-type]

    def handle_endtag(self, tag: str) -> None:
        if tag not in {"br", "meta", "link", "input", "img"} and self.stack:
            self.stack.pop()


def hand_sections(html: str) -> HandSections:
    parser = HandSections()
    parser.feed(html)
    return parser


def bot_turns_due(app: Flask, count: int, now: datetime, bot: str = "greedy",
                  human: str = "Ann <ann@example.com>") -> list[int]:
    """`count` two-seat games (`human` against a `bot` bot), oldest first, in each of which the
    human has drawn at `now` plus the game's index in seconds, so that the bot's move is due."""
    ids = []
    for i in range(count):
        game_id = start_game(app, [human, f"bot:{bot}"], seed=i, now=now)
        with session_scope(db_of(app)) as s:
            service.apply_game_move(s, cfg_of(app), game_id, 0, {"action": "draw"},
                                    expected_version=0, now=now + timedelta(seconds=i))
        ids.append(game_id)
    return ids
