"""No text bypasses the catalogs: every kind of email and every player page, made through the
real code paths (tests/browser/phone_samples.py) for seats in the pseudo-locale, where every
translated string comes back as ⟦text⟧. Outside the markers a player may read only data: the
names of players and games, what they typed, card codes, numbers, punctuation, links and
addresses. The admin's emails and pages stay English and are not read here."""
from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import engine
import pytest
from game_helpers import db_of
from sqlmodel import col, select

from pbem import i18n, zones
from pbem.db import session_scope
from pbem.letters.invitations import short  # a name as a plain email shows it, cut short
from pbem.models import AddressPreference, OutboxMessage, OutboxStatus

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
from phone_samples import (ABORT_REASON, ADMIN_ADDRESS, GAME_NAME, PLAYERS, SHORT_GAME_NAME,  # noqa: E402
                           TALK, play_every_kind, seat_path, set_the_tables, unsubscribe_path)

pytestmark = pytest.mark.judges("that every word shown is translated")

ADDRESSES = [re.search(r"<(.+)>", p)[1] for p in PLAYERS]  # type: ignore[index]
NAMES = [re.sub(r"\s*<.+>", "", p) for p in PLAYERS]
# Data a player may read as it is: names, what people typed, the brand.
DATA = sorted({*NAMES, *map(short, NAMES), GAME_NAME, SHORT_GAME_NAME, ABORT_REASON.strip(), TALK.strip(),
               *TALK.split(". "),
               "Korsar", *i18n.LANGUAGES.values(), *zones.every_zone()} - {""}, key=len, reverse=True)
# (each language's name in its own words; the time zones' IANA names, the picker's full list)
CARD_CODES = sorted(set(engine.FULL_DECK), key=len, reverse=True)
URL = re.compile(r"(?:https?://|mailto:)\S+|[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
MARKED = re.compile(f"{i18n.PSEUDO_OPEN}[^{i18n.PSEUDO_OPEN}{i18n.PSEUDO_CLOSE}]*{i18n.PSEUDO_CLOSE}")
ATTRIBUTES = {"alt", "title", "aria-label", "placeholder"}


class VisibleText(HTMLParser):
    """The text a reader sees (and the attributes a screen reader reads), not styles or scripts."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._hidden += 1
        self.parts += [value for name, value in attrs if name in ATTRIBUTES and value]
        if tag == "input" and dict(attrs).get("type") in ("submit", "button"):
            self.parts.append(dict(attrs).get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = VisibleText()
    parser.feed(html)
    return "\n".join(parser.parts)


def unmarked(text: str) -> list[str]:
    """The words outside the markers that are not data: what bypassed the catalogs."""
    while MARKED.search(text):  # innermost first: a translated sentence may hold another
        text = MARKED.sub(" ", text)
    for data in DATA:
        text = text.replace(data, " ")
    text = URL.sub(" ", text)
    words = re.findall(r"[^\W\d_][\w'’-]*", text)
    return [w for w in words if w not in CARD_CODES]


def _speak_pseudo(app) -> None:
    with session_scope(db_of(app)) as session:
        for address in ADDRESSES:
            session.merge(AddressPreference(email=address, language=i18n.PSEUDO))


def test_every_email_to_a_player_has_only_translated_text_and_data(app, smtp_server):
    _speak_pseudo(app)
    play_every_kind(app, smtp_server.host, smtp_server.port)
    with session_scope(db_of(app)) as session:
        rows = session.exec(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.SENT)
                            .order_by(col(OutboxMessage.id))).all()
        sent = [(r.kind, r.to_addr, r.subject, r.text_body, r.html_body) for r in rows]
    leaks: dict[str, set[str]] = {}
    for kind, to_addr, subject, text, html in sent:
        if to_addr == ADMIN_ADDRESS:
            continue
        for part, words in (("subject", unmarked(subject)), ("text", unmarked(text)),
                            ("html", unmarked(visible(html)))):
            if words:
                leaks.setdefault(f"{kind} {part}", set()).update(words)
    assert {kind for kind, *_ in sent} >= {"welcome", "turn", "game_over"}
    assert not leaks, "text outside the catalogs:\n" + "\n".join(
        f"{where}: {' '.join(sorted(words)[:25])}" for where, words in sorted(leaks.items()))


def test_every_player_page_has_only_translated_text_and_data(app, smtp_server, client):
    _speak_pseudo(app)
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    cfg = app.config["KORSAR"]
    pseudo = f"?lang={i18n.PSEUDO}"  # pages without a seat: the switch's test-only language
    paths = [seat_path(cfg, pages.running), seat_path(cfg, pages.finished), *pages.move_paths,
             pages.stale_move_path, seat_path(cfg, pages.running) + "/prefs", unsubscribe_path(cfg, pages.running),
             "/rules" + pseudo, "/g/not-a-token" + pseudo, "/m/not-a-token" + pseudo, "/u/not-a-token" + pseudo]
    leaks: dict[str, set[str]] = {}
    for path in paths:
        response = client.get(path)
        assert f'<html lang="{i18n.PSEUDO.replace("_", "-")}">' in response.get_data(as_text=True), path
        words = unmarked(visible(response.get_data(as_text=True)))
        if words:
            leaks.setdefault(path.split("/")[1] + " " + str(response.status_code), set()).update(words)
    assert not leaks, "text outside the catalogs:\n" + "\n".join(
        f"{where}: {' '.join(sorted(words)[:25])}" for where, words in sorted(leaks.items()))
