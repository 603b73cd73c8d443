"""Every email in French and Vietnamese (domain `emails`): each kind, sent through the real code
paths (tests/browser/phone_samples.py) to seats that chose the language, carries no English
sentence of the emails catalog; the game's words are the client's (../shared/seeds); cards,
moves and events are worded from their codes and parameters, never from the engine's English;
plural forms come from the catalogs (French: 0 and 1 singular; Vietnamese: one form)."""
from __future__ import annotations

import html as html_lib
import re
import sys
from pathlib import Path

import engine
import pytest
from babel.messages.pofile import read_po
from game_helpers import cfg_of, db_of, deliver, html_part, outbox, seats, start_game, text_part
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem import i18n
from pbem.db import session_scope
from pbem.games import bots, service
from pbem import store
from pbem.present import phrases as words
from pbem.present.board import board
from pbem.present.final import final_result
from pbem.mail.render import email_names
from pbem.models import GameStatus, OutboxStatus
from pbem.schedule import time_left_text
from pbem.words import plural

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "browser"))
import phone_samples  # noqa: E402  (tests/browser: the samples of every email kind)

pytestmark = pytest.mark.judges("how each email reads in each language")

POT = Path(__file__).resolve().parents[2] / "pbem" / "translations" / "emails.pot"
PLACEHOLDER = re.compile(r"%\(\w+\)s|<[^>]*>")
TAG = re.compile(r"<[^>]+>")
# Typed by people, not by us: names, the game's names, a partner's words, an abort reason.
DATA = [phone_samples.TALK, phone_samples.ABORT_REASON, phone_samples.GAME_NAME,
        phone_samples.SHORT_GAME_NAME, *[p.split(" <")[0] for p in phone_samples.PLAYERS]]
URL = re.compile(r"https?://\S+|<[^<>@\s]+@[^<>\s]+>|[\w.+-]+@[\w.-]+")


def english_phrases() -> set[str]:
    """Every stretch of two words or more of the catalog's English that is ours to translate
    (between placeholders and tags): "it is your turn", "Draw pile", "your ship"."""
    with POT.open("rb") as handle:
        catalog = read_po(handle)
    found = set()
    for message in catalog:
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        for text in ids:
            for piece in PLACEHOLDER.split(text or ""):
                phrase = " ".join(re.findall(r"[A-Za-z']+", piece))
                if len(phrase.split()) >= 2:
                    found.add(phrase)
    return found


def readable(text: str, *, markup: bool) -> str:
    """What a reader reads of an email part: tags and URLs out, people's words out, words only."""
    if markup:
        text = re.sub(r"<(style|head)\b.*?</\1>", " ", text, flags=re.S)
        text = html_lib.unescape(TAG.sub(" ", text))
    text = " ".join(URL.sub(" ", text).split())
    for typed in DATA:  # as stored: stripped, and in the talk box's one-line form
        for piece in {" ".join(typed.split()), *(" ".join(part.split()) for part in typed.split(". "))}:
            text = text.replace(piece, " ") if len(piece.split()) > 1 else text
    return " ".join(re.findall(r"[A-Za-z']+", text))


def english_left(text: str, phrases: set[str]) -> list[str]:
    padded = f" {text} "
    return sorted(p for p in phrases if f" {p} " in padded)


def _sent(app, kinds_seen: dict[str, list[tuple[str, str, str]]]) -> None:
    """Every email sent, as (subject, plain text, HTML) per kind, read back from the outbox."""
    for row in outbox(app):
        if row.to_addr == phone_samples.ADMIN_ADDRESS:
            continue  # the admin's copy of a pause stays English (the admin side does)
        kinds_seen.setdefault(row.kind, []).append((row.subject, row.text_body, row.html_body))


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_every_kind_of_email_reaches_a_seat_in_its_language_without_english(
        app, smtp_server, monkeypatch, language):
    monkeypatch.setattr(phone_samples, "PLAYERS", [f"{p} [{language}]" for p in phone_samples.PLAYERS])
    phone_samples.play_every_kind(app, smtp_server.host, smtp_server.port)
    kinds: dict[str, list[tuple[str, str, str]]] = {}
    _sent(app, kinds)
    assert sorted(kinds) == email_names()
    phrases = english_phrases()
    problems = []
    for kind, sent in sorted(kinds.items()):
        for subject, text, markup in sent:
            for part, body, is_html in (("subject", subject, False), ("text", text, False),
                                        ("html", markup, True)):
                left = english_left(readable(body, markup=is_html), phrases)
                if left:
                    problems.append(f"{kind} {part}: {left[:6]}")
    assert not problems, "\n".join(sorted(set(problems)))


# ---------------------------------------------------------------- spot checks, in whole sentences
FR_PLACES = {1: "1ᵉʳ", 2: "2ᵉ", 3: "3ᵉ", 4: "4ᵉ"}
NBSP = "\u00a0"  # French typography: a no-break space before a colon
VI_COLOURS = {"green": "xanh lá", "blue": "xanh dương", "red": "đỏ", "black": "đen"}


def _vi_card(code: str) -> str:
    """The client's Vietnamese name of a card (../shared/seeds/003_*: Tàu Hải Tặc, Thuyền
    Trưởng, Đô Đốc, Tàu Buôn, vàng; colours xanh lá, xanh dương, đỏ, đen)."""
    colour = engine.colour_of(code)
    if colour == "white":
        return "Đô Đốc"
    if colour == "merchant":
        return f"Tàu Buôn ({code[1:]} vàng)"
    if code[1] == "C":
        return f"Thuyền Trưởng {VI_COLOURS[colour]}"
    return f"Tàu Hải Tặc {VI_COLOURS[colour]} {code[1]}"


def test_the_vietnamese_turn_email_reads_in_the_clients_words(app, smtp_server):
    game_id = start_game(app, ["Thảo <thao@example.com> [vi]", "Minh <minh@example.com> [vi]"], seed=3)
    deliver(app)
    state = store.load_state(_game(app, game_id))
    mover = state.to_move
    assert mover is not None
    view = engine.player_view(state, mover)
    seat = seats(app, game_id)[mover]
    turn = [r for r in outbox(app, game_id) if r.kind == "turn" and r.seat_id == seat.id][-1]
    assert turn.subject == f"[Korsar] {_game(app, game_id).name}: đến lượt bạn, {seat.name}"
    assert f"Chào {seat.name}, đến lượt bạn." in turn.text_body
    assert "BÀI TRÊN TAY BẠN" in turn.text_body and "Bài trên tay bạn" in turn.html_body
    for code in view["hand"]:
        assert f"  - {_vi_card(code)}\n" in turn.text_body
    assert "1. Rút một lá bài\n" in turn.text_body
    assert f"Chồng bài rút: còn {view['draw_pile']} lá." in turn.text_body
    for code in {c for c in view["hand"] if c.startswith("M")}:
        assert f"Đặt Tàu Buôn của bạn ({code[1:]} vàng)" in turn.text_body


REPLY_HINT = {
    "en": ("YOUR MOVES (reply to this email with the number of your move, or open its link)",
           "Your moves: reply with a number, or click one"),
    "fr": ("VOS COUPS (répondez à cet e\u2011mail avec le numéro de votre coup, ou ouvrez son lien)",
           "Vos coups\u00a0: répondez avec un numéro, ou cliquez sur celui de votre choix"),
    "vi": ("CÁC NƯỚC ĐI CỦA BẠN (trả lời email này bằng số của nước đi, hoặc mở liên kết của nước đó)",
           "Các nước đi của bạn: trả lời bằng số của nước đi, hoặc bấm vào một nước"),
}


@pytest.mark.parametrize("language", sorted(REPLY_HINT))
def test_every_turn_email_says_you_can_reply_with_the_move_number_or_click(app, smtp_server, language):
    game_id = start_game(app, [f"Thảo <thao@example.com> [{language}]", f"Minh <minh@example.com> [{language}]"],
                         seed=3)
    deliver(app)
    turns = [r for r in outbox(app, game_id) if r.kind == "turn"]
    text, heading = REPLY_HINT[language]
    assert turns
    for turn in turns:
        assert text in turn.text_body
        assert heading in html_lib.unescape(turn.html_body)


def test_an_unknown_side_is_lower_case_in_the_catalog_and_opens_its_sentence_with_a_capital():
    view = {"seat": 0, "players": ["Ann", "Bob", "Cid"], "partner": None, "team_of": None, "hand": ["G1"],
            "table": [{"id": 1, "owner": 1, "value": 4, "leader": None,
                       "sides": [{"side": 1, "strength": 3, "lead_seat": 1},
                                 {"side": 2, "strength": 3, "lead_seat": 2}]}]}
    with i18n.using("en"):
        text = words.outcome_text(view, {"action": "play", "card": "G1", "target": 1})  # type: ignore[arg-type]
    assert text == "Another side will still be stronger on ship 1 (3 against your 1)."


def _game(app, game_id: int):
    from pbem.models import Game
    with session_scope(db_of(app)) as session:
        return session.get(Game, game_id)


def test_the_french_game_over_breakdown_reads_as_a_french_rulebook(app, smtp_server):
    game_id = start_game(app, ["Élodie <elodie@example.com> [fr]", "Jean <jean@example.com> [fr]",
                               "Lucie <lucie@example.com> [fr]"], seed=7)
    deliver(app)
    _play_to_the_end(app, game_id)
    while any(r.status == OutboxStatus.PENDING for r in outbox(app, game_id)):
        deliver(app)  # the game's turn emails (cancelled: the game is over), then the game-over ones
    state = store.load_state(_game(app, game_id))
    assert state.finished
    for seat in seats(app, game_id):
        sent = smtp_server.to(seat.email)[-1]  # as it went out: written at delivery
        subject, text, markup = str(sent["Subject"]), text_part(sent), html_part(sent)
        view = engine.player_view(state, seat.position)
        mine = view["scores"][seat.position]
        place = 1 + sum(1 for s in view["scores"] if s > mine)
        shared = view["scores"].count(mine) > 1
        placing = (f"Vous partagez le {FR_PLACES[place]} rang sur 3." if shared else
                   f"Vous finissez au {FR_PLACES[place]} rang sur 3.")
        assert subject == f"[Korsar] {_game(app, game_id).name} : partie terminée"  # one line: plain spaces
        assert f"{seat.name}, la partie est terminée." in text
        assert f"  {placing}\n" in text and f"<strong>{placing}</strong>" in markup
        assert "SCORES FINAUX" in text and ">Scores finaux</h2>" in markup
        assert f"      score{NBSP}: {mine}\n" in text
        # the scores once: the breakdown, not a second list of gold nor the game-over sentence
        assert f"  Vous{NBSP}: {mine} or\n" not in text and "La partie est terminée. Scores finaux" not in text
        assert f"<strong>{mine}</strong> or" not in markup
        winners = [view["players"][w] if w != seat.position else "vous" for w in view["winners"]]
        and_ = " et ".join(winners) if len(winners) < 3 else ", ".join(winners[:-1]) + " et " + winners[-1]
        verdict = (f"Vainqueur{NBSP}: {winners[0]}" if len(winners) == 1 else
                   f"Victoire partagée{NBSP}: {and_}")
        assert verdict in text, text


def _play_to_the_end(app, game_id: int) -> None:
    while True:
        game = _game(app, game_id)
        if game.status != GameStatus.RUNNING or game.to_move is None:
            return
        state = store.load_state(game)
        mover = seats(app, game_id)[game.to_move]
        move = bots.bot_move(game, mover, state, cfg=cfg_of(app))
        with session_scope(db_of(app)) as session:
            service.apply_game_move(session, cfg_of(app), game_id, mover.position, move,
                                    expected_version=game.version)


# ---------------------------------------------------------------- plural forms and counts
@pytest.mark.parametrize(("language", "n", "text"), [
    ("fr", 0, "0 carte"), ("fr", 1, "1 carte"), ("fr", 2, "2 cartes"), ("fr", 14, "14 cartes"),
    ("vi", 0, "0 lá bài"), ("vi", 1, "1 lá bài"), ("vi", 2, "2 lá bài"),
    ("en", 0, "0 cards"), ("en", 1, "1 card"), ("en", 2, "2 cards"),
])
def test_a_count_of_cards_agrees_with_its_number_in_each_language(language, n, text):
    with i18n.using(language):
        assert plural(n, "card") == text


def test_french_writes_half_days_with_a_comma_and_as_plural():
    with i18n.using("fr"):
        assert plural(2.5, "vacation day") == "2,5 jours de vacances"
        assert plural(1, "vacation day") == "1 jour de vacances"


def test_time_left_joins_its_two_units_as_each_language_does():
    from datetime import datetime, timedelta
    now = datetime(2026, 12, 1, 12, 0)
    later = now + timedelta(days=2, hours=3)
    with i18n.using("en"):
        assert time_left_text(later, now) == "2 days 3 hours"
    with i18n.using("fr"):
        assert time_left_text(later, now) == "2 jours et 3 heures"
    with i18n.using("vi"):
        assert time_left_text(later, now) == "2 ngày 3 giờ"


# ---------------------------------------------------------------- cards, moves, events from codes
@pytest.mark.parametrize(("code", "fr", "vi"), [
    ("B3", "corsaire bleu 3", "Tàu Hải Tặc xanh dương 3"),  # French: lower case, as the seed writes
    ("G2", "corsaire vert 2", "Tàu Hải Tặc xanh lá 2"),    # them, so "Défausser le corsaire vert 2"
    ("RC", "capitaine rouge", "Thuyền Trưởng đỏ"),
    ("AD", "amiral", "Đô Đốc"),
    ("M3", "vaisseau (3 or)", "Tàu Buôn (3 vàng)"),
])
def test_a_card_is_named_in_the_clients_words(code, fr, vi):
    with i18n.using("fr"):
        assert words.card_name(code) == fr
    with i18n.using("vi"):
        assert words.card_name(code) == vi


def _random_game(seed: int, players: int, moves: int) -> list[tuple[engine.GameState, list[dict]]]:
    """A game played by random legal moves: each state with the events of the move that made it."""
    import random
    rng = random.Random(seed)
    state = engine.new_game([f"P{i}" for i in range(players)], seed=seed, teams=players == 4 and seed % 2 == 0)
    out = []
    for _ in range(moves):
        if state.finished:
            break
        move = rng.choice(engine.legal_moves(state))
        state, events = engine.apply_move(state, state.to_move, move)
        out.append((state, [e.to_json() for e in events]))
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), players=st.sampled_from([2, 3, 4]))
def test_in_english_moves_and_events_read_exactly_as_the_engine_words_them(seed, players):
    with i18n.using("en"):
        for state, events in _random_game(seed, players, 400):  # to the end: settlement, game over
            for viewer in range(players):
                view = engine.player_view(state, viewer)
                for move in view["legal_moves"]:
                    assert words.describe_move(move, view) == engine.describe_move(move, view)
                for event in events:
                    assert words.describe_event(event, view["players"], viewer) == \
                        engine.describe_event(event, view["players"], viewer)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), language=st.sampled_from(["fr", "vi"]))
def test_no_move_or_event_is_left_in_english(seed, language):
    phrases = english_phrases()
    with i18n.using(language):
        for state, events in _random_game(seed, 3, 400):
            view = engine.player_view(state, 0)
            shown = board(view)  # what the turn email and the page show of the table
            sentences = [words.describe_move(m, view) for m in view["legal_moves"]]
            sentences += [words.describe_event(e, view["players"], 0) for e in events]
            sentences += [m["outcome"] for m in shown["moves"] if m["outcome"]]
            sentences += [text for ship in shown["table"] for text in (ship["outlook"], ship["blocked"]) if text]
            sentences += [p["hand_cost"] for p in shown["players"] if p["hand_cost"]]
            sentences += [shown["blocked_everywhere"]] if shown["blocked_everywhere"] else []
            for sentence in sentences:
                assert not english_left(readable(sentence, markup=False), phrases), sentence


def test_the_placing_is_a_whole_sentence_with_the_places_own_ordinal():
    view = {"seat": 1, "players": ["Ann", "Bob", "Cid"], "teams": False, "team_scores": None,
            "scores": [20, 12, 12], "score_piles": [[8, 7, 5], [6, 6], [7, 5]],
            "hand_merchants": [[], [], []], "winners": [0], "table": []}
    with i18n.using("fr"):
        assert final_result(view, [])["placing"] == "Vous partagez le 2ᵉ rang sur 3."
    with i18n.using("vi"):
        assert final_result(view, [])["placing"] == "Bạn đồng hạng nhì trong 3 người chơi."
    with i18n.using("en"):
        assert final_result(view, [])["placing"] == "You shared 2nd place of 3."


@pytest.mark.parametrize("language", ["fr", "vi"])
def test_a_message_in_both_catalogs_reads_the_same_in_both(language):
    """The two domains are merged at run time: a message both use must not change its words
    depending on which catalog was read last."""
    folder = POT.parent / language / "LC_MESSAGES"
    with (folder / "emails.po").open("rb") as emails, (folder / "pages.po").open("rb") as pages:
        ours = {m.id: m.string for m in read_po(emails) if m.id}
        theirs = {m.id: m.string for m in read_po(pages) if m.id}
    differ = {key: (ours[key], theirs[key]) for key in ours.keys() & theirs.keys() if ours[key] != theirs[key]}
    assert not differ
