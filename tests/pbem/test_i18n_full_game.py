"""A whole game by email links with one French, one Vietnamese and one English seat, through the
real SMTP server and the web app: each player receives only their language (the emails' and
the pages' `lang`, the client's words, no English sentence of the catalog), and the moves each
is offered are the ones an English player would be offered, in the same order."""
from __future__ import annotations

import re
from pathlib import Path

import engine
import pytest
from babel.messages.pofile import read_po
from game_helpers import (cfg_of, deliver, game_row, hand_sections, html_part, move_links, outbox, start_game,
                          text_part)

from pbem import i18n, links
from pbem import store
from pbem.present.phrases import present_moves
from pbem.models import GameStatus

# Whole games by links and by replies run on PostgreSQL in test_full_game and test_inbound_game.
pytestmark = pytest.mark.judges("how a whole game reads in each language")

SEATS = {"elodie@example.com": ("Élodie", "fr"), "thao@example.com": ("Thảo", "vi"),
         "ann@example.com": ("Ann", "en")}
# The client's words (../shared/seeds): each language's emails use them somewhere in a game.
WORDS = {"fr": ["vaisseau", "corsaire", "capitaine", "amiral", "pioche"],
         "vi": ["Tàu Buôn", "Tàu Hải Tặc", "Thuyền Trưởng", "Đô Đốc", "vàng"],
         "en": ["merchant ship", "captain", "admiral"]}
TRANSLATIONS = Path(__file__).resolve().parents[2] / "pbem" / "translations"


def english_sentences() -> set[str]:
    """The catalogs' English messages of three words or more with no placeholder: none may reach
    a French or Vietnamese player."""
    found = set()
    for domain in i18n.DOMAINS:
        with (TRANSLATIONS / f"{domain}.pot").open("rb") as handle:
            for message in read_po(handle):
                ids = [message.id] if isinstance(message.id, str) else list(message.id)
                found |= {t for t in ids if t and "%" not in t and "<" not in t and len(t.split()) >= 3}
    return found


def _offered(app, token_urls: list[str]) -> list[dict]:
    return [links.read_move(cfg_of(app), url.rsplit("/m/", 1)[1].split("?")[0]).move for url in token_urls]


def _moves_in_english(app, game_id: int, position: int) -> list[dict]:
    with i18n.using("en"):
        view = engine.player_view(store.load_state(game_row(app, game_id)), position)
        return [m["move"] for m in present_moves(view)]


def _kinds(app, game_id: int) -> dict[str, str]:
    return {row.message_id: row.kind for row in outbox(app, game_id)}


def test_three_players_each_play_a_whole_game_in_their_own_language(app, client, smtp_server):
    game_id = start_game(app, [f"{name} <{addr}> [{code}]" for addr, (name, code) in SEATS.items()], seed=11)
    deliver(app)
    handled: set[str] = set()
    pages: dict[str, list[str]] = {addr: [] for addr in SEATS}
    for _ in range(600):
        game = game_row(app, game_id)
        if game.status == GameStatus.FINISHED:
            break
        fresh = [(addr, m) for addr in SEATS for m in smtp_server.to(addr)
                 if m["Message-ID"] not in handled and move_links(text_part(m))]
        assert len(fresh) == 1, "one new turn email per move, to the player to move"
        addr, msg = fresh[0]
        handled.add(msg["Message-ID"])
        position = list(SEATS).index(addr)
        assert game.to_move == position
        paths = [path for _, path in move_links(text_part(msg))]
        moves = _offered(app, paths)
        assert moves == _moves_in_english(app, game_id, position)
        # Cards played rather than drawn: the game ends in fewer moves.
        path = next((p for p, mv in zip(paths, moves) if mv["action"] != "draw"), paths[0])
        page = client.get(path)
        assert page.status_code == 200, page.text
        pages[addr].append(page.text)
        forms = hand_sections(page.text).move_forms
        assert len(forms) == 1
        done = client.post(forms[0]["action"])
        assert done.status_code == 303, done.text
        pages[addr].append(client.get(done.headers["Location"]).text)
        deliver(app)
    else:
        pytest.fail("the game did not end")

    kinds = _kinds(app, game_id)
    english = english_sentences()
    for addr, (name, code) in SEATS.items():
        received = smtp_server.to(addr)
        assert {kinds[m["Message-ID"]] for m in received} >= {"welcome", "turn", "game_over"}
        texts = [f"{m['Subject']}\n{text_part(m)}\n{html_part(m)}" for m in received]
        for msg in received:
            assert f'<html lang="{code}" dir="ltr">' in html_part(msg), (addr, msg["Subject"])
        for page in pages[addr]:
            assert f'<html lang="{code}">' in page
        everything = "\n".join(texts + pages[addr])
        assert any(word.casefold() in everything.casefold() for word in WORDS[code]), (code, WORDS[code])
        if code == "en":
            assert any(sentence in everything for sentence in english)
        else:
            leaked = sorted(s for s in english if re.search(rf"(?<![\w]){re.escape(s)}(?![\w])", everything))
            assert not leaked, f"{code} player {name} read English: {leaked[:8]}"
