"""Every email kind, in English, French and Vietnamese, as mail clients and their readers get it:
sent through the real code paths (tests/browser/phone_samples.py) and built into MIME as the
worker sends it. The language is in a Content-Language header and on the wrapper inside <body>
(webmail keeps only the body); the title bar is the one <h1>; a hidden preheader says the one
sentence that matters; the scheme is declared light; an MSO-only 640 px table holds the frame in
Outlook on Windows and the buttons are table cells; the players' and scores' tables are data
tables and every other table says it is layout; the text part's prose is never hard-wrapped and
says whose turn it is in words; every coloured chip carries its colour's mark."""
from __future__ import annotations

import re
import shutil
import socket
import sys
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import engine
import pytest
from bs4 import BeautifulSoup, Comment, Tag
from aiosmtpd.controller import Controller
from game_helpers import cfg_of, html_part, text_part

from pbem import create_app
from pbem.db import session_scope
from pbem.mail.mime import build_message
from pbem.mail.render import email_names
from pbem.models import OutboxMessage, OutboxStatus
from pbem.present import colours
from sqlmodel import col, select

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
import phone_samples  # noqa: E402  (tests/browser: the samples of every email kind)

LANGUAGES = ("en", "fr", "vi")
SENTENCE_END = re.compile(r"[.:!?)»;]\s*$")
FIELD = re.compile(r"^\s*[^\s:][^:]{0,30}:\s")  # "left in hand: none", a line of a text table


Letters = dict[str, list[tuple[str, EmailMessage]]]  # kind -> (recipient, message) as sent


class _Accept:
    """An SMTP server that takes every message: the outbox rows are what this module reads."""

    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        return "250 Message accepted for delivery"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module", params=LANGUAGES)
def sent(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
         sqlite_template: Path) -> Iterator[tuple[str, Letters]]:
    """Every kind of email, each at least once, to seats and visitors who read `language`: played
    once per language for the whole module (its own database and SMTP recorder)."""
    language = request.param
    database = tmp_path_factory.mktemp(f"clients-{language}") / "db.sqlite3"
    shutil.copyfile(sqlite_template, database)
    host, port = "127.0.0.1", _free_port()
    controller = Controller(_Accept(), hostname=host, port=port)
    controller.start()
    app = create_app({"DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "test-secret",
                      "BASE_URL": "http://korsar.test", "SMTP_HOST": host, "SMTP_PORT": port,
                      "MAIL_FROM": "Korsar <korsar@korsar.test>", "KORSAR_ENV": "testing",
                      "WORKER_POLL_SECONDS": 0.05, "BOT_DELAY_SECONDS": 0.0})
    app.config["TESTING"] = True
    players = phone_samples.PLAYERS if language == "en" else [f"{p} [{language}]" for p in phone_samples.PLAYERS]
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(phone_samples, "PLAYERS", players)
            phone_samples.play_every_kind(app, host, port)
        letters: Letters = {}
        with session_scope(app.extensions["korsar_db"]) as s:
            rows = s.exec(select(OutboxMessage).where(OutboxMessage.status == OutboxStatus.SENT)
                          .order_by(col(OutboxMessage.id))).all()
            for row in rows:
                message, _ = build_message(row, cfg_of(app))
                letters.setdefault(row.kind, []).append((row.to_addr, message))
        yield language, letters
    finally:
        controller.stop()
        app.extensions["korsar_db"].dispose()


def _each(sent: tuple[str, Letters]) -> Iterator[tuple[str, str, str, EmailMessage]]:
    """(kind, recipient, the language it is written in, message) of every email sent."""
    language, letters = sent
    for kind, messages in sorted(letters.items()):
        for to, message in messages:
            # the admin's copy of a pause is written in English (the admin side is)
            yield kind, to, "en" if to == phone_samples.ADMIN_ADDRESS else language, message


def _soup(message: EmailMessage) -> BeautifulSoup:
    return BeautifulSoup(html_part(message), "lxml")


def _own_headers(table: Tag) -> list[Tag]:
    """The <th> of this table itself, not of a table inside one of its cells."""
    return [th for th in table.find_all("th") if th.find_parent("table") is table]


def test_every_kind_of_email_is_sent_in_every_language(sent):
    assert sorted(sent[1]) == email_names()


def test_every_email_says_its_language_in_a_content_language_header(sent):
    wrong = {(kind, message["Content-Language"]) for kind, _, language, message in _each(sent)
             if message["Content-Language"] != language}
    assert not wrong


def test_the_wrapper_inside_the_body_carries_the_language_and_its_direction(sent):
    for kind, _, language, message in _each(sent):
        soup = _soup(message)
        wrapper = soup.body.find(True, recursive=False)
        assert (wrapper.get("lang"), wrapper.get("dir")) == (language, "ltr"), kind
        assert (soup.html.get("lang"), soup.html.get("dir")) == (language, "ltr"), kind


def test_the_title_bar_is_the_one_h1_and_names_the_game(sent):
    for kind, _, _, message in _each(sent):
        soup = _soup(message)
        titles = soup.find_all("h1")
        assert len(titles) == 1, kind
        assert titles[0].find_parent("td").get("bgcolor") == "#0d3b66"
        for heading in soup.find_all("h2"):  # the kinds' headings come after it
            assert titles[0] in heading.find_all_previous("h1"), kind


def test_every_email_opens_with_a_hidden_preheader_of_its_own_sentence(sent):
    for kind, _, _, message in _each(sent):
        soup = _soup(message)
        wrapper = soup.body.find(True, recursive=False)
        preheader = wrapper.find(True, recursive=False)
        assert preheader.has_attr("data-preheader"), kind
        style = preheader["style"].replace(" ", "")
        for hidden in ("display:none", "max-height:0", "overflow:hidden", "mso-hide:all"):
            assert hidden in style, (kind, hidden)
        words = " ".join(preheader.get_text().replace("\u034f", " ").replace("\u200c", " ").split())
        assert len(words.split()) >= 2, (kind, words)  # a sentence: "Ann commence."
        assert words != " ".join(str(message["Subject"]).split()), kind  # not the subject again


def test_every_email_declares_a_light_colour_scheme(sent):
    for kind, _, _, message in _each(sent):
        soup = _soup(message)
        for name in ("color-scheme", "supported-color-schemes"):
            meta = soup.find("meta", attrs={"name": name})
            assert meta is not None and meta["content"] == "light", (kind, name)


def test_an_outlook_only_640_px_table_holds_the_frame(sent):
    for kind, _, _, message in _each(sent):
        soup = _soup(message)
        mso = [c for c in soup.find_all(string=lambda t: isinstance(t, Comment)) if c.startswith("[if mso]")]
        assert len(mso) == 2, kind
        assert re.search(r'<table role="presentation" width="640"[^>]*><tr><td>', mso[0]), kind
        assert "</td></tr></table>" in mso[1], kind


def test_data_tables_have_scoped_headers_and_every_other_table_is_layout(sent):
    for kind, _, _, message in _each(sent):
        for table in _soup(message).find_all("table"):
            headers = _own_headers(table)
            if not headers:
                assert table.get("role") == "presentation", (kind, str(table)[:120])
                continue
            assert table.get("role") is None, kind
            assert all(th.get("scope") in ("col", "row") for th in headers), kind
            for row in table.find_all("tr"):
                if row.find_parent("table") is table and row.find_parent("thead") is None and row.find("td"):
                    first = row.find(["th", "td"])
                    assert first.name == "th" or first.find_next_sibling("th", scope="row"), kind


@pytest.mark.parametrize("kind", ["turn", "game_over", "welcome"])
def test_the_players_and_the_scores_are_read_with_their_column_names(sent, kind):
    _, letters = sent
    soup = _soup(letters[kind][0][1])
    # a player's row, or a side's in the final breakdown (the game-over email's one score block)
    rows = [{"data-player": True}, {"data-side": True}]
    players = [t for t in soup.find_all("table") if any(t.find("tr", attrs=a) for a in rows)]
    assert players, kind
    for table in players:
        for row in (r for a in rows for r in table.find_all("tr", attrs=a)):
            assert row.find("th", scope="row") is not None


def test_every_button_is_a_table_cell_that_outlook_paints(sent):
    for kind, _, _, message in _each(sent):
        for link in _soup(message).find_all("a"):
            style = link.get("style", "")
            if "padding" not in style:
                continue  # a link in a sentence
            cell = link.parent
            assert cell.name == "td" and cell.get("bgcolor"), (kind, link.get_text())
            assert "mso-padding-alt" in cell["style"] and "background" in cell["style"], kind


def test_the_layouts_middle_dots_arrows_and_stars_are_hidden_from_screen_readers(sent):
    """A separator or a marker the templates put beside words ("Korsar by mail · game", "← to
    move", "★ won") is read as "middle dot", "left arrow": hidden, with the words beside it."""
    for kind, _, _, message in _each(sent):
        body = _soup(message).body
        for text in body.find_all(string=re.compile("^\\s*[\u00b7\u2190\u2605]|[\u00b7\u2190\u2605]\\s*$")):
            assert text.find_parent(attrs={"aria-hidden": "true"}) is not None, (kind, str(text))


def test_every_coloured_chip_carries_its_colours_mark(sent):
    _, letters = sent
    seen = 0
    for kind in ("turn", "welcome", "reply_played"):
        for _, message in letters[kind]:
            for chip in _soup(message).find_all(attrs={"data-card": True}):
                colour = engine.colour_of(chip["data-card"])
                mark = chip.find("span", attrs={"aria-hidden": "true"})
                if colour == "merchant":
                    assert mark is None
                    continue
                assert mark is not None and mark.get_text() == colours.MARK[colour], chip
                seen += 1
    assert seen


def test_the_text_part_never_hard_wraps_a_sentence(sent):
    """A line that ends mid-sentence, followed at the same indent by one that goes on in lower
    case, is prose cut by hand: clients wrap prose themselves (lists and tables keep their
    lines, a move's link sits on the line after its sentence)."""
    for kind, _, _, message in _each(sent):
        lines = text_part(message).split("\n")
        for line, after in zip(lines, lines[1:]):
            if not (line.strip() and after.strip()) or after.strip().startswith("http") or FIELD.match(after):
                continue
            indent = len(line) - len(line.lstrip())
            if indent == len(after) - len(after.lstrip()) and not SENTENCE_END.search(line):
                assert not after.strip()[0].islower(), (kind, line, after)


def test_the_text_part_says_whose_turn_it_is_in_words(sent):
    for kind, _, _, message in _each(sent):
        assert "<-" not in text_part(message), kind
