"""Every player page, error and refusal in French and Vietnamese (the `pages` catalog).

The pages are made through the real code paths (tests/browser/phone_samples.py: a team game some
moves in and a finished game, their seats' addresses speaking French or Vietnamese), and every
refusal of the engine comes from a real illegal move (tests/engine/refusal_examples.py). What a
reader sees must hold no English sentence of the catalog: no piece of two words or more of an
English msgid between its placeholders and tags (names, card codes and numbers are data).
"""
from __future__ import annotations

import re
import sys
from functools import lru_cache
from html.parser import HTMLParser
from pathlib import Path

import engine
import pytest
from babel.messages.pofile import read_po
from game_helpers import cfg_of, db_of, deck_with_hands, deliver, start_game, text_part
from sqlmodel import select

from pbem import i18n, links
from pbem.db import session_scope
from pbem import store
from pbem.games.move_refusals import SENTENCES, move_refusal
from pbem.inbound import commands, move_line
from pbem.inbound.handler import Handled, handle_message
from pbem.models import AddressPreference, Game, Seat

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "browser"))
sys.path.insert(0, str(TESTS / "engine"))
from phone_samples import PLAYERS, seat_path, set_the_tables, unsubscribe_path  # noqa: E402
from korsar_checks import candidate_moves  # noqa: E402
from refusal_examples import CODES, examples, refusal  # noqa: E402
from inbound_helpers import reply_to  # noqa: E402

pytestmark = pytest.mark.judges("how each page reads in each language")

POT = Path(i18n.TRANSLATIONS_DIR) / "pages.pot"
ADDRESSES = [re.search(r"<(.+)>", p)[1] for p in PLAYERS]  # type: ignore[index]
PLACEHOLDER_OR_TAG = re.compile(r"%\(\w+\)s|<[^>]*>|\{[^}]*\}")


class _Visible(HTMLParser):
    """The text a reader sees, and the labels a screen reader reads."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._hidden += tag in ("style", "script")
        self.parts += [v for k, v in attrs if k in ("title", "aria-label", "placeholder", "alt") and v]

    def handle_endtag(self, tag: str) -> None:
        self._hidden -= tag in ("style", "script")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def visible(html: str) -> str:
    parser = _Visible()
    parser.feed(html)
    return "\n".join(parser.parts)


@lru_cache(maxsize=1)
def english_pieces() -> tuple[str, ...]:
    """The English a page must not show: each msgid of pages.pot cut at its placeholders and
    tags, the pieces of two words or more."""
    with POT.open("rb") as f:
        catalog = read_po(f)
    pieces: set[str] = set()
    for message in catalog:
        if message.locations and all(path == "pbem/zones.py" for path, _line in message.locations):
            continue  # a city's name: "New York" is New York in every language
        for msgid in (message.id if isinstance(message.id, tuple) else (message.id,)):
            for piece in PLACEHOLDER_OR_TAG.split(msgid):
                piece = " ".join(piece.split()).strip(" .,:;()?!\"'")
                if len(re.findall(r"[A-Za-z]+", piece)) >= 2:
                    pieces.add(piece)
    return tuple(sorted(pieces, key=len, reverse=True))


def english_in(text: str) -> list[str]:
    flat = " ".join(text.split())
    return [piece for piece in english_pieces() if piece in flat]


def test_the_english_pieces_are_found_in_english_text() -> None:
    """The check can fail: an English page is full of the catalog's English."""
    assert {"Nothing was changed", "It is your turn"} <= set(english_in("Nothing was changed. It is your turn."))


# ---------------------------------------------------------------- the engine's refusals

@pytest.mark.parametrize("language", ["fr", "vi"])
@pytest.mark.parametrize("code", CODES)
def test_every_refusal_of_the_engine_is_written_in_the_players_language(code: str, language: str) -> None:
    state, seat, move = examples()[code]
    exc = refusal(state, seat, move)
    assert exc is not None and exc.code == code
    with i18n.using(language):
        text = move_refusal(exc)
    assert english_in(text) == [], text
    assert text != str(exc)
    for key in ("ship", "player", "owner_name"):  # the data it names is in it
        if key in exc.params:
            assert str(exc.params[key]) in text


def _refusals_of_many_games() -> list[engine.IllegalMove]:
    """Refusals of every kind, also in team play (where the sentences say "your team")."""
    found: list[engine.IllegalMove] = []
    for seed in range(6):
        teams = seed % 2 == 1
        state = engine.new_game(["Ann", "Bob", "Cyd", "Dee"] if teams else ["Ann", "Bob", "Cyd"],
                                teams=teams, seed=seed)
        for _turn in range(40):
            if state.finished:
                break
            found += [exc for exc in (refusal(state, state.to_move, m) for m in candidate_moves(state)) if exc]
            state, _ = engine.apply_move(state, state.to_move, engine.legal_moves(state)[-1])
    return found


def test_in_english_a_refusal_is_the_engines_own_sentence() -> None:
    refusals = _refusals_of_many_games()
    assert {exc.params.get("teams") for exc in refusals if exc.code == "keep_your_colour"} == {True, False}
    with i18n.using("en"):
        assert [move_refusal(exc) for exc in refusals] == [str(exc) for exc in refusals]


def test_every_engine_code_has_its_sentence() -> None:
    assert set(CODES) <= set(SENTENCES)


def test_the_french_refusal_of_a_taken_colour_uses_the_clients_words() -> None:
    exc = engine.IllegalMove("Blue is already fighting for ship 3: attack it with another colour.",
                             "colour_taken", {"card": "B2", "colour": "blue", "ship": 3})
    with i18n.using("fr"):
        assert move_refusal(exc) == ("Le bleu est déjà engagé sur le vaisseau 3\u00a0: "
                                     "attaquez-le avec une autre couleur.")
    with i18n.using("vi"):
        assert move_refusal(exc) == "Màu xanh dương đã có người dùng trên tàu 3: hãy tấn công bằng màu khác."


# ---------------------------------------------------------------- the pages

def _speak(app, language: str) -> None:
    with session_scope(db_of(app)) as session:
        for address in ADDRESSES:
            session.merge(AddressPreference(email=address, language=language))


def _illegal_move_paths(app, seat: Seat) -> dict[str, str]:
    """Move links of the seat to move for moves the rules refuse now: one per refusal code."""
    cfg = app.config["KORSAR"]
    with session_scope(db_of(app)) as session:
        game = session.get(Game, seat.game_id)
        fresh = session.exec(select(Seat).where(Seat.game_id == seat.game_id, Seat.position == seat.position)).one()
        state = store.load_state(game)
        paths: dict[str, str] = {}
        for move in candidate_moves(state):
            exc = refusal(state, fresh.position, move)
            if exc is not None and exc.code not in paths:
                token = links.sign_move(cfg, game.id, fresh.position, fresh.link_nonce, game.version, move)
                paths[exc.code] = "/m/" + token
        return paths


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_every_player_page_speaks_the_seats_language(app, smtp_server, client, language) -> None:
    _speak(app, language)
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    cfg = app.config["KORSAR"]
    refused = _illegal_move_paths(app, pages.running)
    assert len(refused) >= 3, refused  # several kinds of refusal on a real table
    running = seat_path(cfg, pages.running)
    paths = [running, seat_path(cfg, pages.finished), *pages.move_paths, pages.stale_move_path,
             running + "/prefs", unsubscribe_path(cfg, pages.running), *refused.values()]
    lang = f"?lang={language}"  # pages before a seat is known follow the reader's choice
    paths += ["/rules" + lang, "/g/not-a-token" + lang, "/m/not-a-token" + lang, "/u/not-a-token" + lang]
    leaks: dict[str, list[str]] = {}
    for path in paths:
        html = client.get(path).get_data(as_text=True)
        assert f'<html lang="{language}">' in html, path
        if found := english_in(visible(html)):
            leaks[path.split("/")[1] + " " + path[-12:]] = found
    # A refused POST: the old move link, played.
    response = client.post(pages.stale_move_path)
    assert response.status_code == 409
    if found := english_in(visible(response.get_data(as_text=True))):
        leaks["POST stale move"] = found
    assert not leaks, leaks


@pytest.mark.parametrize("language,words", [
    ("fr", ("Rien n'a encore été joué", "Votre main", "La table", "Pioche")),
    ("vi", ("Chưa có gì xảy ra", "Bài trên tay bạn", "Chồng bài rút")),
])
def test_the_confirmation_page_speaks_the_seats_language(app, smtp_server, client, language, words) -> None:
    _speak(app, language)
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    html = client.get(pages.move_paths[0]).get_data(as_text=True)
    for word in words:
        assert word in html


def test_the_french_confirmation_page_names_the_move_with_the_clients_words(app, smtp_server, client) -> None:
    _speak(app, "fr")
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    titles = [re.search(r"<h1>(.*?)</h1>", client.get(p).get_data(as_text=True), re.S)[1]  # type: ignore[index]
              for p in pages.move_paths]
    text = " ".join(titles).lower()
    assert "piocher" in text  # the draw pile has cards in this game
    assert "vaisseau" in text and "corsaire" in text
    assert not re.search(r"\b(draw|ship|attack|play)\b", text), titles


def test_a_refused_move_page_in_vietnamese_says_why_in_vietnamese(app, smtp_server, client) -> None:
    _speak(app, "vi")
    pages = set_the_tables(app, smtp_server.host, smtp_server.port)
    refused = _illegal_move_paths(app, pages.running)
    response = client.get(refused["not_in_hand"])
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Nước đi này không hợp lệ" in html and "Trên tay bạn không có" in html
    assert "Không có gì bị thay đổi." in html


# ---------------------------------------------------------------- replies by email, in Vietnamese

@pytest.mark.parametrize("line,move", [
    ("rút một lá", {"action": "draw"}),
    ("Bốc bài", {"action": "draw"}),
    ("bỏ Tàu Hải Tặc xanh lá 1", {"action": "discard", "card": "G1"}),
    ("đánh Tàu Hải Tặc đỏ 3 lên tàu 2", {"action": "play", "card": "R3", "target": 2}),
    ("tấn công tàu 4 bằng xanh dương 2", {"action": "play", "card": "B2", "target": 4}),
    ("Thuyền Trưởng xanh dương lên tàu 4", {"action": "play", "card": "BC", "target": 4}),
    ("Đô Đốc vào tàu 1", {"action": "play", "card": "AD", "target": 1}),
    ("đặt Tàu Buôn 5", {"action": "play", "card": "M5"}),
    ("vứt Tàu Hải Tặc đen 4", {"action": "discard", "card": "K4"}),
    ("danh tau hai tac xanh la 2 len tau 3", {"action": "play", "card": "G2", "target": 3}),  # no diacritics
])
def test_a_vietnamese_move_in_words_is_read(line: str, move: dict) -> None:
    command = move_line.read_command(line)
    assert command is not None, line
    reading = commands.read_reply(line, [])
    assert reading.move == move


def test_vietnamese_talk_is_not_read_as_a_move() -> None:
    assert move_line.read_command("Tôi sẽ tấn công tàu của bạn sau") is None


def _reply(app, smtp_server, address: str, body: str) -> Handled:
    original = smtp_server.to(address)[-1]
    handled = handle_message(db_of(app), cfg_of(app), reply_to(original, address, body, quote=False).as_bytes())
    deliver(app)
    return handled


def test_a_reply_in_vietnamese_is_answered_in_vietnamese(app, smtp_server) -> None:
    ann = "ann@example.com"
    with session_scope(db_of(app)) as session:
        session.merge(AddressPreference(email=ann, language="vi"))
    start_game(app, [f"Ann <{ann}>", "Bob <bob@example.com>"],
               deck=deck_with_hands(["G1", "G2", "B1", "M5", "M6", "M7"], ["R1", "R2", "K1", "M2", "M3", "M4"]))
    deliver(app)
    refused = _reply(app, smtp_server, ann, "bỏ Tàu Hải Tặc xanh lá 1")  # the draw pile is not empty
    answer = text_part(smtp_server.to(ann)[-1])
    assert refused.outcome == "refused"
    assert "Bạn chỉ được bỏ bài khi chồng bài rút đã hết." in answer
    assert english_in(refused.reason) == []
    played = _reply(app, smtp_server, ann, "rút một lá\nđồng đội ơi, đợi tôi nhé")
    assert played.outcome == "played"
    assert english_in(played.reason) == [], played.reason


def test_a_refusal_code_without_a_sentence_still_says_no_in_the_players_language() -> None:
    exc = engine.IllegalMove("The moon is in the way.", "moon")
    with i18n.using("en"):
        assert move_refusal(exc) == "The moon is in the way."
    with i18n.using("fr"):
        assert move_refusal(exc) == "Ce coup n'est pas permis maintenant."
