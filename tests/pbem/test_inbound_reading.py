"""Reading a reply: its charset and parts, the quote and signature stripped, and its move, in
English, French and Vietnamese, by number or in words."""
from __future__ import annotations

import quopri
import random
import unicodedata
from email.message import EmailMessage

import engine
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_inbound_support import move_words

from pbem.inbound.commands import Command, read_command, read_reply
from pbem.inbound.message import MAX_MESSAGE_BYTES, TooLarge, read_message
from pbem.inbound.quotes import strip_quotes


@pytest.mark.parametrize("line, command", [
    ("draw", Command(action="draw")),
    ("Piocher", Command(action="draw")),
    ("rút bài", Command(action="draw")),
    ("RUT BAI", Command(action="draw")),
    ("M5", Command(action="play", card="M5")),
    ("B3 3", Command(action="play", card="B3", target=3)),
    ("b3 on 3", Command(action="play", card="B3", target=3)),
    ("attack 3 with B3", Command(action="play", card="B3", target=3)),
    ("GC 2", Command(action="play", card="GC", target=2)),
    ("admiral 4", Command(action="play", card="AD", target=4)),
    ("discard G1", Command(action="discard", card="G1")),
    ("corsaire bleu 3 sur 2", Command(action="play", card="B3", target=2)),
    ("Défausser vert 1", Command(action="discard", card="G1")),
    ("capitaine noir sur 1", Command(action="play", card="KC", target=1)),
    ("amiral 2", Command(action="play", card="AD", target=2)),
    ("đô đốc 2", Command(action="play", card="AD", target=2)),
    ("đỏ 3 lên 1", Command(action="play", card="R3", target=1)),
    ("7", Command(number=7)),
    ("7.", Command(number=7)),
])
def test_a_command_line_is_read_in_any_language_case_and_diacritics_ignored(line, command):
    assert read_command(line) == command


@pytest.mark.parametrize("line", ["hello partner", "I will draw next time", "B3 B4", "blue", "merchant 9", ""])
def test_a_line_with_any_word_that_is_no_move_word_is_talk_not_a_command(line):
    assert read_command(line) is None


def test_the_first_command_line_is_the_move_and_every_other_line_is_talk():
    legal = [{"action": "draw"}, {"action": "play", "card": "M5"}]
    reading = read_reply("Nice one!\nM5\ndraw\nsay watch ship 2", legal)
    assert reading.move == {"action": "play", "card": "M5"}
    assert reading.talk == ["Nice one!", "watch ship 2"]


def test_a_number_out_of_the_list_is_refused_with_the_range():
    reading = read_reply("9", [{"action": "draw"}, {"action": "play", "card": "M5"}])
    assert reading.move is None and reading.problem is not None and "from 1 to 2" in reading.problem


def test_a_card_that_fits_two_ships_is_refused_with_both_numbers():
    legal = [{"action": "draw"}, {"action": "play", "card": "B3", "target": 1},
             {"action": "play", "card": "B3", "target": 4}]
    reading = read_reply("B3", legal)
    assert reading.move is None and reading.choices == [2, 3]
    assert reading.problem is not None and "reply with 2 or 3" in reading.problem


def _random_state(seed: int, moves: int) -> engine.GameState:
    rng = random.Random(seed)
    state = engine.new_game(["Ann", "Bob", "Cid"][: 2 + seed % 2], seed=seed)
    for _ in range(moves):
        if state.finished:
            break
        state, _ = engine.apply_move(state, state.to_move, rng.choice(engine.legal_moves(state)))
    return state


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 60))
def test_every_move_reads_back_from_its_number_and_from_its_words(seed, moves):
    state = _random_state(seed, moves)
    legal = engine.legal_moves(state)
    for number, move in enumerate(legal, 1):
        assert read_reply(str(number), legal).move == move
        for lang in ("en", "fr"):
            reading = read_reply(move_words(move, lang), legal)
            assert reading.move == move or number in reading.choices, (lang, move, reading)


@pytest.mark.parametrize("text, kept", [
    ("3\n\nOn Tue, Dec 1, 2026 at 10:00 AM Korsar <k@korsar.test> wrote:\n> Your turn\n> 1. Draw", "3"),
    ("piocher\n\nLe mar. 1 déc. 2026 à 10:00, Korsar <k@korsar.test> a écrit :\n> Votre tour", "piocher"),
    ("rút bài\n\nVào 10:00 Th 3, 1 thg 12, 2026 Korsar <k@korsar.test> đã viết:\n> hi", "rút bài"),
    ("B3 on 3\n\nLe 3 déc. 2026, Ann\n<ann@example.com> a écrit :\n> old", "B3 on 3"),
    ("draw\n-- \nAnn\nSent from my phone", "draw"),
    ("draw\n\n________________________________\nFrom: Korsar\nSent: Tuesday\nTo: Ann\n\nold", "draw"),
    ("draw\n\n-----Original Message-----\nFrom: Korsar\n", "draw"),
    ("> quoted first\ndraw", "draw"),
])
def test_quotes_attributions_outlook_headers_and_signatures_are_stripped(text, kept):
    assert strip_quotes(text) == kept


def cp1258(text: str) -> bytes:
    """Vietnamese as Windows-1258 writes it: the precomposed letters it has (â, ơ, ư...), each
    tone a combining mark after its letter."""
    out = b""
    for char in unicodedata.normalize("NFC", text):
        try:
            out += char.encode("cp1258")
            continue
        except UnicodeEncodeError:
            pass
        base, *marks = unicodedata.normalize("NFD", char)
        for i, mark in enumerate(marks):  # the mark that makes a letter of the code page with the base
            letter = unicodedata.normalize("NFC", base + mark)
            try:
                out += letter.encode("cp1258") + "".join(marks[:i] + marks[i + 1:]).encode("cp1258")
                break
            except UnicodeEncodeError:
                continue
        else:
            out += (base + "".join(marks)).encode("cp1258")
    return out


VIETNAMESE = "rút bài\nnói: đồng đội ơi, tàu số 3 của tôi đang bị tấn công"


def _message(body: bytes, charset: str, cte: str) -> bytes:
    head = (f"From: Ann <ann@example.com>\r\nTo: play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test\r\n"
            f"Subject: Re: turn\r\nMessage-ID: <m1@example.com>\r\nMIME-Version: 1.0\r\n"
            f"Content-Type: text/plain; charset={charset}\r\nContent-Transfer-Encoding: {cte}\r\n\r\n")
    return head.encode() + body


@pytest.mark.parametrize("charset, cte, encode", [
    ("utf-8", "8bit", lambda t: t.encode("utf-8")),
    ("windows-1258", "8bit", cp1258),
    ("utf-8", "quoted-printable", lambda t: quopri.encodestring(t.encode("utf-8"))),
], ids=["utf-8", "windows-1258", "quoted-printable"])
def test_vietnamese_replies_are_decoded_from_any_charset(charset, cte, encode):
    raw = _message(encode(VIETNAMESE), charset, cte)
    mail = read_message(raw)
    assert mail.text.strip() == VIETNAMESE
    assert read_reply(mail.text, [{"action": "draw"}]).move == {"action": "draw"}


def test_an_html_only_reply_is_read_without_its_quoted_block():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content("<div>B3 on 3<br>good luck</div><div class='gmail_quote'>On ... wrote:"
                    "<blockquote>1. Draw a card</blockquote></div>", subtype="html")
    assert read_message(msg.as_bytes()).text.splitlines() == ["B3 on 3", "good luck"]


@pytest.mark.parametrize("quote", [
    "<div class='gmail_quote'>On ... wrote:<br></font>draw</div>",
    "<blockquote>Le 3 déc. 2026, Ann a écrit :</p>M5</blockquote>",
])
def test_a_stray_end_tag_in_the_quote_does_not_let_the_quoted_moves_through(quote):
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content(f"<p>good luck</p>{quote}", subtype="html")
    assert read_message(msg.as_bytes()).text.split() == ["good", "luck"]


def test_an_attachment_is_ignored_and_the_text_part_read():
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "ann@example.com", "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test", "Re"
    msg.set_content("draw")
    msg.add_attachment(b"GIF89a", maintype="image", subtype="gif", filename="x.gif")
    assert read_message(msg.as_bytes()).text.strip() == "draw"


def test_a_message_over_the_size_limit_is_not_parsed():
    with pytest.raises(TooLarge):
        read_message(b"x" * (MAX_MESSAGE_BYTES + 1))
