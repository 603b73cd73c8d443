"""Only the writer's own new text of a reply is read (issue 22, "What must hold" 1): quote
marks, attributions and header blocks in any language, separators, signatures, and the
fail-safe that needs no pattern (the first line of the email we sent starts the quote), with
replies written the way real clients send them, quoting real turn emails in en, fr and vi."""
from __future__ import annotations

import re
import shutil
import textwrap
from dataclasses import dataclass, field
from html import unescape

import engine
import pytest
from game_helpers import LINK_RE, cfg_of, db_of, outbox, start_game
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from pbem import create_app, i18n
from pbem.db import session_scope
from pbem.games import service
from pbem.inbound import quotes
from pbem.inbound.ours import OurEmail, is_label, line_key, our_email
from pbem.inbound.quotes import strip_quotes
from pbem.mail.writers import write_deferred
from pbem.models import Game, OutboxMessage, OutboxStatus, utcnow
from pbem.store import load_state

LANGS = tuple(i18n.LANGUAGES)
KORSAR = "Korsar <korsar@korsar.test>"
HOSTS = ("korsar.test",)


# ---------------------------------------------------------------- the emails we send
@dataclass(frozen=True)
class Sent:
    """A real turn email to Élodie, after each player put a ship on the table."""

    text: str = field(repr=False)
    html: str = field(repr=False)
    labels: tuple[str, ...]  # as printed: "2. Play your merchant ship (5 gold)"
    ours: OurEmail = field(repr=False)


def _turn_email(app, lang: str) -> Sent:
    game_id = start_game(app, [f"Élodie <e@example.com> [{lang}]", "Bob <bob@example.com>",
                               "Cid <c@example.com>"], seed=11)
    for _ in range(3):  # everyone plays a merchant ship: the table has ships, the moves attacks
        with session_scope(db_of(app)) as session:
            state = load_state(session.get(Game, game_id))
            legal = engine.legal_moves(state)
            move = next((m for m in legal if m.get("card", "").startswith("M")), legal[0])
            service.apply_game_move(session, cfg_of(app), game_id, state.to_move, move, now=utcnow())
    row_id = [r for r in outbox(app, game_id) if r.to_addr == "e@example.com" and r.kind == "turn"][-1].id
    with session_scope(db_of(app)) as session:  # the worker's claim, then its writer
        row = session.get(OutboxMessage, row_id)
        row.status, row.claimed_by = OutboxStatus.SENDING, "w"
        session.add(row)
    with session_scope(db_of(app)) as session:
        row = session.get(OutboxMessage, row_id)
    if row.deferred:
        write_deferred(db_of(app), cfg_of(app), row, "w", utcnow())
    labels = tuple(m["text"].strip() for m in LINK_RE.finditer(row.text_body))
    printed = [form for label in labels for form in (label, re.sub(r"^\d+\. ", "", label))]
    return Sent(row.text_body, row.html_body, labels, our_email([row.text_body, row.html_body], printed, HOSTS))


@pytest.fixture(scope="module")
def sent(sqlite_template, tmp_path_factory) -> dict[str, Sent]:
    path = tmp_path_factory.mktemp("quotes") / "db.sqlite3"
    shutil.copyfile(sqlite_template, path)
    app = create_app({"DATABASE_URL": f"sqlite:///{path}", "SECRET_KEY": "test-secret",
                      "BASE_URL": "http://korsar.test", "SMTP_HOST": "127.0.0.1", "SMTP_PORT": 1,
                      "MAIL_FROM": KORSAR, "KORSAR_ENV": "testing"})
    try:
        return {lang: _turn_email(app, lang) for lang in LANGS}
    finally:
        app.extensions["korsar_db"].dispose()


def paragraphs(lines: list[str]) -> str:
    """The writer's lines as they are read: runs of blank lines as one, none first or last."""
    return re.sub(r"\n{3,}", "\n\n", "\n".join(line.rstrip() for line in lines)).strip("\n")


def _lines_of_ours(result: str, ours: OurEmail) -> list[str]:
    return [line for line in result.split("\n")
            if line_key(line) in ours.lines or any(h in line.lower() for h in ours.hosts)]


# ---------------------------------------------------------------- how clients quote
def marked(text: str, mark: str = "> ") -> str:
    """`text` quoted with marks, an empty line as the bare mark (as most clients do)."""
    return "\n".join(mark + line if line else mark.rstrip() for line in text.rstrip("\n").split("\n"))


def gmail_wrapped(line: str) -> str:
    """A long attribution wrapped as Gmail's text part wraps it."""
    return "\n".join(textwrap.wrap(line, 76, break_long_words=False, break_on_hyphens=False))


def moves_and_rest(text: str) -> tuple[str, str]:
    """Our text email cut after its list of moves (where an inline answer is typed)."""
    lines = text.split("\n")
    last = max(i for i, line in enumerate(lines) if line.startswith("http://korsar.test/m/"))
    return "\n".join(lines[: last + 1]), "\n".join(lines[last + 1:])


ATTRIBUTIONS = {
    ("gmail", "en"): "On Tue, Dec 1, 2026 at 10:00 AM Korsar <korsar@korsar.test> wrote:",
    ("gmail", "fr"): "Le mar. 1 déc. 2026 à 10:00, Korsar <korsar@korsar.test> a écrit :",
    ("gmail", "vi"): "Vào Th 3, 1 thg 12, 2026 vào lúc 10:00 Korsar <korsar@korsar.test> đã viết:",
    ("gmail", "de"): "Am Di., 1. Dez. 2026 um 10:00 Uhr schrieb Korsar <korsar@korsar.test>:",
    ("gmail", "es"): "El mar, 1 dic 2026 a las 10:00, Korsar (<korsar@korsar.test>) escribió:",
    ("gmail", "it"): "Il giorno mar 1 dic 2026 alle ore 10:00 Korsar <korsar@korsar.test> ha scritto:",
    ("gmail", "nl"): "Op di 1 dec 2026 om 10:00 schreef Korsar <korsar@korsar.test>:",
    ("gmail", "pl"): "wt., 1 gru 2026 o 10:00 Korsar <korsar@korsar.test> napisał(a):",
    ("gmail", "ru"): "вт, 1 дек. 2026 г. в 10:00, Korsar <korsar@korsar.test>:",
    ("gmail", "sv"): "Den tis 1 dec. 2026 kl 10:00 skrev Korsar <korsar@korsar.test>:",
    ("gmail", "tr"): "Korsar <korsar@korsar.test>, 1 Ara 2026 Sal, 10:00 tarihinde şunu yazdı:",
    ("gmail", "ko"): "2026년 12월 1일 (화) 오전 10:00, Korsar <korsar@korsar.test>님이 작성:",
    ("gmail", "zh"): "Korsar <korsar@korsar.test> 于2026年12月1日周二 10:00写道：",
    ("gmail", "ja"): "2026年12月1日(火) 10:00 Korsar <korsar@korsar.test>:",
    ("gmail", "pt"): "Em ter., 1 de dez. de 2026 às 10:00, Korsar <korsar@korsar.test> escreveu:",
    ("gmail", "cs"): "út 1. 12. 2026 v 10:00 odesílatel Korsar <korsar@korsar.test> napsal:",
    ("apple", "en"): "On 1 Dec 2026, at 10:00, Korsar <korsar@korsar.test> wrote:",
    ("apple", "fr"): "Le 1 déc. 2026 à 10:00, Korsar <korsar@korsar.test> a écrit :",
    ("apple", "vi"): "Vào lúc 10:00, ngày 1 thg 12, 2026, Korsar <korsar@korsar.test> đã viết:",
    ("apple", "ja"): "2026/12/01 10:00、Korsar <korsar@korsar.test>のメール:",
    ("apple", "da"): "Den 1. dec. 2026 kl. 10.00 skrev Korsar <korsar@korsar.test>:",
    ("thunderbird", "en"): "On 01/12/2026 10:00, Korsar wrote:",
    ("thunderbird", "fr"): "Le 01/12/2026 à 10:00, Korsar a écrit :",
    ("thunderbird", "vi"): "Vào 01/12/2026 10:00, Korsar đã viết:",
    ("thunderbird", "de"): "Am 01.12.26 um 10:00 schrieb Korsar:",
    ("thunderbird", "pl"): "W dniu 1.12.2026 o 10:00, Korsar pisze:",
    ("thunderbird", "ru"): "01.12.2026 10:00, Korsar пишет:",
    ("thunderbird", "cs"): "Dne 01. 12. 26 v 10:00 Korsar napsal(a):",
    ("k9", "en"): "On December 1, 2026 10:00:00 AM UTC, Korsar <korsar@korsar.test> wrote:",
    ("k9", "fr"): "Le 1 décembre 2026 10:00:00 UTC, Korsar <korsar@korsar.test> a écrit :",
    ("k9", "vi"): "Vào 1 tháng 12, 2026 10:00:00 UTC, Korsar <korsar@korsar.test> đã viết:",
    ("k9", "de"): "Korsar <korsar@korsar.test> schrieb am 1. Dezember 2026 10:00:00 MEZ:",
    ("yahoo", "en"): "On Tuesday, December 1, 2026, 10:00:00 AM GMT+1, Korsar <korsar@korsar.test> wrote:",
    ("yahoo", "fr"): "Le mardi 1 décembre 2026, 10:00:00 UTC+1, Korsar <korsar@korsar.test> a écrit :",
    ("yahoo", "vi"): "Vào Thứ Ba, 1 tháng 12, 2026, 10:00:00 GMT+7, Korsar <korsar@korsar.test> đã viết:",
    ("mutt", "en"): "On Tue, Dec 01, 2026 at 10:00:00AM +0000, Korsar wrote:",
    ("mutt", "fr"): "Le mar. 01 déc. 2026 à 10:00:00 +0000, Korsar a écrit :",
    ("mutt", "vi"): "* Korsar <korsar@korsar.test> [2026-12-01 10:00]:",
}

# Outlook desktop's plain-text header block, and Samsung Email's (under its separator).
OUTLOOK_HEADERS = {
    "en": "From: Korsar <korsar@korsar.test>\nSent: Tuesday, December 1, 2026 10:00 AM\n"
          "To: Élodie <e@example.com>\nSubject: [Korsar] Élodie vs Bob vs Cid: your turn, Élodie",
    "fr": "De : Korsar <korsar@korsar.test>\nEnvoyé : mardi 1 décembre 2026 10:00\n"
          "À : Élodie <e@example.com>\nObjet : [Korsar] Élodie vs Bob vs Cid : à vous de jouer",
    "vi": "Từ: Korsar <korsar@korsar.test>\nĐã gửi: Thứ Ba, ngày 1 tháng 12 năm 2026 10:00\n"
          "Đến: Élodie <e@example.com>\nChủ đề: [Korsar] Élodie vs Bob vs Cid: đến lượt bạn",
    "de": "Von: Korsar <korsar@korsar.test>\nGesendet: Dienstag, 1. Dezember 2026 10:00\n"
          "An: Élodie <e@example.com>\nBetreff: [Korsar] Élodie vs Bob vs Cid",
    "bold": "*From:* Korsar\n*Sent:* Tuesday, December 1, 2026 10:00 AM\n*To:* Élodie\n*Subject:* your turn",
    "bare": "From: Korsar\nSent: Tuesday\nTo: Élodie\nSubject: your turn",
}
SAMSUNG_HEADERS = {
    "pl": "-------- Oryginalna wiadomość --------\nOd: Korsar <korsar@korsar.test>\n"
          "Data: 01.12.2026 10:00 (GMT+01:00)\nDo: e@example.com\nTemat: [Korsar] twoja kolej",
    "ru": "-------- Исходное сообщение --------\nОт: Korsar <korsar@korsar.test>\n"
          "Дата: 01.12.2026 10:00 (GMT+03:00)\nКому: e@example.com\nТема: [Korsar] ваш ход",
    "sv": "-------- Ursprungligt meddelande --------\nFrån: Korsar <korsar@korsar.test>\n"
          "Datum: 2026-12-01 10:00 (GMT+01:00)\nTill: e@example.com\nÄmne: [Korsar] din tur",
    "tr": "-------- Orijinal mesaj --------\nKimden: Korsar <korsar@korsar.test>\n"
          "Tarih: 1.12.2026 10:00 (GMT+03:00)\nKime: e@example.com\nKonu: [Korsar] sıra sende",
    "ko": "-------- 원본 메시지 --------\n보낸 사람: Korsar <korsar@korsar.test>\n"
          "날짜: 2026/12/01 10:00 (GMT+09:00)\n받는 사람: e@example.com\n제목: [Korsar] 당신 차례",
    "zh": "-------- 原始邮件 --------\n发件人: Korsar <korsar@korsar.test>\n"
          "日期: 2026年12月1日 10:00 (GMT+08:00)\n收件人: e@example.com\n主题: [Korsar] 轮到你了",
    "ja": "-------- 元のメッセージ --------\n差出人: Korsar <korsar@korsar.test>\n"
          "日時: 2026/12/01 10:00 (GMT+09:00)\n宛先: e@example.com\n件名: [Korsar] あなたの番",
    "en": "-------- Original message --------\nFrom: Korsar <korsar@korsar.test>\n"
          "Date: 12/1/26 10:00 (GMT+00:00)\nTo: e@example.com\nSubject: [Korsar] your turn",
    "fr": "-------- Message d'origine --------\nDe : Korsar <korsar@korsar.test>\n"
          "Date : 01/12/2026 10:00 (GMT+01:00)\nÀ : e@example.com\nObjet : [Korsar] à vous de jouer",
    "vi": "-------- Tin nhắn gốc --------\nTừ: Korsar <korsar@korsar.test>\n"
          "Ngày: 01/12/2026 10:00 (GMT+07:00)\nĐến: e@example.com\nTiêu đề: [Korsar] đến lượt bạn",
}
SENT_FROM = {"en": "Sent from my Galaxy", "fr": "Envoyé depuis mon Galaxy", "vi": "Gửi từ Galaxy của tôi"}

# What Élodie types, in her language: a move and words for the table.
WRITER = {"en": "Attack ship 2 with green 2\nsay nice move, Bob",
          "fr": "je pioche\ndis bien joué Bob",
          "vi": "rút bài\nnói cẩn thận tàu 3 nhé"}


def reply(client: str, layout: str, lang: str, writer: str, ours: str) -> str:
    """Élodie's reply to our text email `ours` as `client` writes it: top-posted, bottom-posted,
    or inline (her first line under our moves, the rest under the whole quote)."""
    attribution = ATTRIBUTIONS.get((client, lang), "")
    first, _, rest = writer.partition("\n")
    if client == "outlook":
        return f"{writer}\n\n________________________________\n{OUTLOOK_HEADERS[lang]}\n\n{ours}"
    if client == "samsung":  # no marks: the header block, then our email as it was
        return f"{writer}\n\n\n{SENT_FROM[lang]}\n\n\n{SAMSUNG_HEADERS[lang]}\n\n{ours}"
    if client == "yahoo":  # Yahoo's text part quotes without marks
        return f"{writer}\n\nSent from Yahoo Mail on Android\n\n  {attribution}\n\n{ours}"
    if client == "mutt":  # format=flowed: quoted lines end in a space, "-- " signature
        flowed = "\n".join(line + " " if line.startswith("> ") else line for line in marked(ours).split("\n"))
        body = {"bottom": f"{attribution}\n{flowed}\n\n{writer}",
                "inline": f"{attribution}\n{marked(moves_and_rest(ours)[0])}\n\n{first}\n\n"
                          f"{marked(moves_and_rest(ours)[1])}\n\n{rest}"}[layout]
        return f"{body}\n\n-- \nÉlodie\n"
    heading = gmail_wrapped(attribution) if client == "gmail" else attribution
    gap = "\n\n" if client == "apple" else "\n"
    signature = "\n-- \nÉlodie Martin\nhttps://elodie.example.org" if client == "thunderbird" else ""
    if layout == "top":
        return f"{writer}{signature}\n\n{heading}{gap}{marked(ours)}\n"
    if layout == "bottom":
        return f"{heading}{gap}{marked(ours)}\n\n{writer}{signature}\n"
    moves, after = moves_and_rest(ours)
    return f"{heading}{gap}{marked(moves)}\n\n{first}\n\n{marked(after)}\n\n{rest}{signature}\n"


CLIENT_LAYOUTS = [("gmail", "top"), ("gmail", "bottom"), ("gmail", "inline"), ("apple", "top"),
                  ("apple", "inline"), ("thunderbird", "top"), ("thunderbird", "bottom"),
                  ("thunderbird", "inline"), ("k9", "top"), ("outlook", "top"), ("samsung", "top"),
                  ("yahoo", "top"), ("mutt", "bottom"), ("mutt", "inline")]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("client, layout", CLIENT_LAYOUTS, ids=[f"{c}-{lay}" for c, lay in CLIENT_LAYOUTS])
def test_a_reply_from_any_client_keeps_only_the_writers_new_text(sent, client, layout, lang):
    email = sent[lang]
    text = reply(client, layout, lang, WRITER[lang], email.text)
    kept = WRITER[lang].replace("\n", "\n\n") if layout == "inline" else WRITER[lang]
    assert strip_quotes(text, email.ours) == kept
    assert strip_quotes(text.replace("\n", "\r\n"), email.ours) == kept


# ---------------------------------------------------------------- the first cases (from test_inbound_reading)
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


# ---------------------------------------------------------------- 1. quote marks
@pytest.mark.parametrize("mark", ["> ", ">", "> > ", ">> ", ">>>", "| ", "  > "])
def test_quoted_lines_go_at_any_depth_and_the_writers_lines_between_them_stay(mark):
    text = marked("Your turn\n1. Draw a card\nGreen 2 on 5", mark) + "\ndraw\n" + marked("Red 3", mark) + "\nthanks Bob"
    assert strip_quotes(text) == "draw\n\nthanks Bob"


# ---------------------------------------------------------------- 2. attributions
@pytest.mark.parametrize("client, lang", list(ATTRIBUTIONS), ids=[f"{c}-{lang}" for c, lang in ATTRIBUTIONS])
def test_an_attribution_in_any_language_goes_with_the_quote_under_it(client, lang):
    attribution = ATTRIBUTIONS[client, lang]
    quoted = marked("Your turn\n1. Draw a card\n3. Attack Bob's ship 2 (4 gold) with Green 2")
    assert strip_quotes(f"M5\n\n{attribution}\n{quoted}") == "M5"  # top-posted
    assert strip_quotes(f"{attribution}\n\n{quoted}\n\nM5") == "M5"  # bottom-posted
    assert strip_quotes(f"{attribution}\n{quoted}\nM5\n{quoted}\nthanks") == "M5\n\nthanks"  # inline
    # A client that quotes without marks: everything from the attribution on goes.
    assert strip_quotes(f"M5\n\n{attribution}\n\nYour turn\n1. Draw a card\nGreen 2 on 5") == "M5"


@pytest.mark.parametrize("client, lang", list(ATTRIBUTIONS), ids=[f"{c}-{lang}" for c, lang in ATTRIBUTIONS])
def test_an_attribution_wrapped_over_two_lines_goes_whole(client, lang):
    attribution = ATTRIBUTIONS[client, lang]
    for width in (40, 50, 60, 70, 76):  # Gmail wraps at 76; a long name wraps it sooner
        pieces = textwrap.wrap(attribution, width, break_long_words=False, break_on_hyphens=False)
        if len(pieces) != 2:
            continue
        wrapped = "\n".join(pieces)
        assert strip_quotes(f"draw\n\n{wrapped}\n> 1. Draw a card\n> Green 2 on 5") == "draw"
        assert strip_quotes(f"{wrapped}\n> 1. Draw a card\n\ndraw") == "draw"


def test_the_writers_line_right_above_an_attribution_stays():
    for attribution in (ATTRIBUTIONS["gmail", "en"], ATTRIBUTIONS["gmail", "tr"], ATTRIBUTIONS["gmail", "fr"]):
        assert strip_quotes(f"On 3 I attack\n{attribution}\n> 1. Draw a card") == "On 3 I attack"
        assert strip_quotes(f"draw\n{attribution}\n> 1. Draw a card") == "draw"


# ---------------------------------------------------------------- 3. separators and headers
@pytest.mark.parametrize("lang", list(SAMSUNG_HEADERS))
def test_an_original_message_separator_and_its_headers_start_the_quote_in_any_language(lang):
    unmarked = "Korsar by mail - Élodie vs Bob vs Cid\n1. Draw a card\nGreen 2 on 5"
    assert strip_quotes(f"say nice move\n\n{SAMSUNG_HEADERS[lang]}\n\n{unmarked}") == "say nice move"
    headers_only = SAMSUNG_HEADERS[lang].split("\n", 1)[1]  # the same block without its separator
    assert strip_quotes(f"say nice move\n\n{headers_only}\n\n{unmarked}") == "say nice move"


@pytest.mark.parametrize("lang", list(OUTLOOK_HEADERS))
def test_outlooks_header_block_starts_the_quote_with_or_without_its_rule(lang):
    unmarked = "Your turn\n1. Draw a card\nGreen 2 on 5"
    headers = OUTLOOK_HEADERS[lang]
    assert strip_quotes(f"draw\n\n________________________________\n{headers}\n\n{unmarked}") == "draw"
    assert strip_quotes(f"draw\n\n{headers}\n\n{unmarked}") == "draw"


@pytest.mark.parametrize("separator", [
    "-------- Original Message --------", "-----Original Message-----", "----- Original Message -----",
    "---------- Forwarded message ---------", "-------- Message transféré --------",
    "---------- Thư đã chuyển tiếp ---------", "-------- Weitergeleitete Nachricht --------",
    "Begin forwarded message:", "Début du message réexpédié :", "Anfang der weitergeleiteten Nachricht:",
    "________________________________", "_____",
])
def test_a_separator_line_starts_the_quote(separator):
    assert strip_quotes(f"draw\n\n{separator}\n1. Draw a card\nGreen 2 on 5") == "draw"


@pytest.mark.parametrize("block", [
    "Dari: Korsar <korsar@korsar.test>\nTanggal: Sel, 1 Des 2026 10:00",  # Indonesian
    "Saatja: korsar@korsar.test\nKuupäev: 01.12.2026",  # Estonian
    "Lähettäjä: Korsar\nLähetetty: 1. joulukuuta 2026 10.00",  # Finnish (known names, no address)
    "Ngày gửi: 01/12/2026\nNgười gửi: Korsar",
])
def test_two_header_lines_with_an_address_or_a_date_start_the_quote_in_any_language(block):
    assert strip_quotes(f"draw\n{block}\n\n1. Draw a card\nGreen 2 on 5") == "draw"


@pytest.mark.parametrize("text", ["Bob: nice move\nCid: thanks", "Note: I attack next\nPS: good luck",
                                  "nói: cẩn thận tàu 3\nrút bài"])
def test_the_writers_own_colon_lines_without_an_address_or_date_stay(text):
    assert strip_quotes(text) == text


# ---------------------------------------------------------------- 4. signatures
@pytest.mark.parametrize("signature", [
    "-- \nÉlodie", "--\nÉlodie", "__\nÉlodie", "Sent from my iPhone", "Envoyé de mon iPhone",
    "Gửi từ iPhone của tôi", "Von meinem iPhone gesendet", "Get Outlook for Android",
    "Sent from Yahoo Mail on Android", "Envoyé depuis Outlook", "Sent from Samsung Galaxy smartphone.",
    "Sent from my Galaxy", "Được gửi từ điện thoại Samsung", "Enviado desde mi iPhone",
    "Inviato da iPhone", "Wysłano z iPhone'a", "Отправлено с iPhone", "Skickat från min iPhone",
    "iPhoneから送信", "내 iPhone에서 보냄", "从我的iPhone发送", "Sendt fra min iPhone",
])
def test_a_signature_ends_the_writers_text(signature):
    assert strip_quotes(f"draw\nsay good luck\n{signature}\n\n1. Draw a card\nGreen 2 on 5") == \
        "draw\nsay good luck"


# ---------------------------------------------------------------- 5. the fail-safe
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("rendering", ["text", "html"])
def test_a_turn_email_pasted_without_any_mark_or_header_is_cut_at_its_first_line(sent, lang, rendering):
    email = sent[lang]
    ours = email.text if rendering == "text" else crude_text(email.html)
    for gap in ("\n", "\n\n", "\n\n\n"):
        result = strip_quotes(WRITER[lang] + gap + ours, email.ours)
        assert result == WRITER[lang]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("numbered", [True, False])
def test_the_writers_single_copied_label_stays_above_a_pasted_turn_email(sent, lang, numbered):
    email = sent[lang]
    label = email.labels[2] if numbered else re.sub(r"^\d+\. ", "", email.labels[2])
    for ours in (email.text, crude_text(email.html)):
        assert strip_quotes(f"{label}\n\n{ours}", email.ours) == label
        assert strip_quotes(f"{label}\nthanks\n{ours}", email.ours) == f"{label}\nthanks"


@pytest.mark.parametrize("lang", LANGS)
def test_a_label_followed_by_what_follows_it_in_our_email_is_quoted(sent, lang):
    email = sent[lang]
    text_lines = email.text.split("\n")
    at = text_lines.index(email.labels[2])
    assert strip_quotes("draw\n\n" + "\n".join(text_lines[at:]), email.ours) == "draw"  # its link
    html_lines = [line for line in crude_text(email.html).split("\n") if line]
    for label in (email.labels[2], email.labels[-1]):  # the next label; the last: the line under the list
        at = html_lines.index(label)
        assert strip_quotes("draw\n\n" + "\n".join(html_lines[at:]), email.ours) == "draw"


@pytest.mark.parametrize("lang", LANGS)
def test_a_hand_line_of_ours_does_not_take_the_writers_own_card_words(sent, lang):
    email = sent[lang]
    after_moves = moves_and_rest(email.text)[1].split("\n\n")
    hand = next([line[4:] for line in block.split("\n")[1:]] for block in after_moves if "\n  - " in block)
    assert hand, "the turn email has a hand"
    for card in hand:
        writer = f"{card}\n{card} on 3\n3 gold"
        assert strip_quotes(writer + "\n\n" + email.text, email.ours) == writer


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("quoting", ["indented", "tab", "wrapped", "wrapped-marked", "bullets-changed"])
def test_re_indented_and_re_wrapped_copies_of_our_email_are_ours_too(sent, lang, quoting):
    email = sent[lang]
    start = email.text.index("\n\n") + 2  # from the intro line on, as a client that drops the banner
    quoted = QUOTINGS[quoting](email.text[start:])
    assert strip_quotes(f"draw\n{quoted}", email.ours) == "draw"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("shown", ["text", "html"])
def test_a_quote_that_starts_at_a_move_label_the_client_re_wrapped_is_ours(sent, lang, shown):
    """A quote may start at any move; a client that re-wraps it at 72 characters splits the long
    labels in two pieces, and neither piece nor the label before one may pass for the writer's."""
    email = sent[lang]
    text = email.text if shown == "text" else crude_text(email.html)
    lines = text.split("\n")
    for start, line in enumerate(lines):
        if is_label(line_key(line), email.ours.labels):
            quoted = _rewrapped("\n".join(lines[start:]))
            assert strip_quotes(f"draw\n{quoted}", email.ours) == "draw", line


def test_trivial_lines_of_our_email_never_cut_the_writers_text():
    ours = our_email(["Korsar\n\n--\n1.\n3\nGold\nBob\n3 gold\nShip 2\n  - Red 3\nYour hand\n"], [], HOSTS)
    assert ours.lines == {"- red 3", "your hand"}
    writer = "3\nGold\nBob\n3 gold\nShip 2\nRed 3\n1."
    assert strip_quotes(writer, ours) == writer
    assert strip_quotes(writer + "\nyour hand\nRed 3", ours) == writer


@pytest.mark.parametrize("line, cut", [
    ("see http://korsar.test/m/WzEsMCwi.aw86VA.zTcvVggf", True),
    ("<http://KORSAR.TEST/g/abc>", True),
    ("reply to play+1-0-0-brza2pab7vvyx65u@korsar.test", True),
    ("www.korsar.test is down", True),
    ("korsar.testing.example is another site", False),
    ("mykorsar.test is not ours", False),
])
def test_a_line_naming_our_host_starts_the_quote(line, cut):
    ours = our_email([], [], ["korsar.test", "http://korsar.test/"])
    assert strip_quotes(f"draw\n{line}\nGreen 2 on 5", ours) == ("draw" if cut else f"draw\n{line}\nGreen 2 on 5")


@pytest.mark.parametrize("line, key", [
    ("  > > Your HAND  ", "your hand"),
    ("|  Blue   captain", "blue captain"),
    ("\u00a0\u00a0- Green 2", "- green 2"),
    ("\t• Green 2", "- green 2"),
    ("*YOUR MOVES*", "your moves"),
    ("Élodie, c’est votre tour\u200b", "élodie, c’est votre tour"),
    ("２. Draw a card", "2. draw a card"),
])
def test_a_line_is_compared_without_quote_marks_spacing_case_or_emphasis_but_with_its_bullet(line, key):
    assert line_key(line) == key


# ---------------------------------------------------------------- 6. never raises; 7. bounded
def test_a_library_fault_keeps_the_text_cut_by_our_own_rules(monkeypatch):
    class Broken:
        def match(self, line):
            raise RuntimeError("library bug")

    monkeypatch.setattr(quotes, "_LIBRARY_ATTRIBUTION", Broken())
    monkeypatch.setattr(quotes, "_LIBRARY_SENT_FROM", Broken())
    text = "draw\nHi all:\n\nOn Tue, Dec 1, 2026 Korsar wrote:\n> 1. Draw a card\n\nthanks\n-- \nÉlodie"
    assert strip_quotes(text) == "draw\nHi all:\n\nthanks"


def test_a_fault_of_our_own_reads_nothing_rather_than_a_quote(monkeypatch, caplog):
    def broken(self):
        raise IndexError("bug")

    monkeypatch.setattr(quotes._Reply, "new_text", broken)
    with caplog.at_level("ERROR", logger="pbem.inbound"):
        assert strip_quotes("draw\n> 1. Draw a card") == ""
    assert [r.getMessage() for r in caplog.records] == ["reply text not read: quote stripping failed (IndexError)"]


@pytest.mark.parametrize("hostile", [
    "On " + "a " * 10_000 + "wrote", "On " + "a " * 99 + ":\n" * 1, ("On " + "a " * 98 + ":\n") * 100,
    "a: b\n" * 4_000, "Key: 10:00\n" * 2_000, ">" * 20_000, "-" * 20_000, "@" * 20_000 + ":",
    "x\n" * 10_000, "\n" * 20_000, "korsar.tes" * 2_000, "1. Draw a card\n" * 1_300,
])
def test_hostile_text_is_read_by_our_own_rules_without_a_fault(sent, hostile, caplog):
    with caplog.at_level("ERROR", logger="pbem.inbound"):
        result = strip_quotes(hostile, sent["en"].ours)
    assert not caplog.records  # a fault would read nothing and log it
    assert len(result) <= len(hostile)


# ---------------------------------------------------------------- the property
def crude_text(html: str) -> str:
    """Our HTML email as a client that turns it into text line by line shows it (no head)."""
    body = re.split(r"<body[^>]*>", html, maxsplit=1)[-1]
    return "\n".join(" ".join(unescape(re.sub(r"<[^>]*>", " ", line)).split()) for line in body.split("\n"))


def _links_shown(html: str) -> str:
    """Our HTML email as Gmail's text part shows it: each link's address after its words."""
    return crude_text(re.sub(r'<a href="([^"]+)"[^>]*>(.*?)</a>', r"\2 <\1>", html))


def _rewrapped(text: str, mark: str = "") -> str:
    return "\n".join(mark + piece for line in text.split("\n")
                     for piece in (textwrap.wrap(line, 72, break_long_words=False) or [""]))


QUOTINGS = {
    "marked": lambda t: f"{ATTRIBUTIONS['gmail', 'en']}\n{marked(t)}",
    "marked-no-attribution": marked,
    "no-space-marks": lambda t: marked(t, ">"),
    "nested": lambda t: f"{ATTRIBUTIONS['gmail', 'fr']}\n{marked(marked(t))}",
    "pipes": lambda t: marked(t, "| "),
    "apple": lambda t: f"{ATTRIBUTIONS['apple', 'vi']}\n\n{marked(t)}",
    "raw": lambda t: t,
    "indented": lambda t: textwrap.indent(t, "    "),
    "tab": lambda t: textwrap.indent(t, "\t"),
    "wrapped": _rewrapped,
    "wrapped-marked": lambda t: _rewrapped(t, "> "),
    "bullets-changed": lambda t: t.replace("  - ", "  • "),
    "trailing-spaces": lambda t: "\n".join(line + " " for line in t.split("\n")),
    "outlook": lambda t: f"________________________________\n{OUTLOOK_HEADERS['en']}\n\n{t}",
    "outlook-bare": lambda t: f"{OUTLOOK_HEADERS['fr']}\n\n{t}",
    "samsung": lambda t: f"{SAMSUNG_HEADERS['pl']}\n\n{t}",
    "yahoo": lambda t: f"{ATTRIBUTIONS['yahoo', 'en']}\n\n{t}",
    "attribution-raw": lambda t: f"{ATTRIBUTIONS['gmail', 'vi']}\n{t}",
}

_LETTERS = "abcdefghijklmnopqrstuvwxyzàâçéèêôùûđăơưạảấầẩẫậóòồ0123456789"
_REAL_LINES = ["draw", "M5", "2", "#3", "say nice move", "je pioche", "rút bài", "Green 2", "Green 2 on 3",
               "merci", "Thanks!", "3 gold", "Bob", "nói cẩn thận nhé", "dis bien joué", "B3 on 3",
               "attack 3 with B3", "Vert 2 sur 5", "Đỏ 3 lên 1", "On 3 I attack", "Le 2 est à moi"]
writer_lines = st.lists(
    st.sampled_from(_REAL_LINES)
    | st.lists(st.text(_LETTERS, min_size=1, max_size=9), min_size=1, max_size=7).map(" ".join)
    | st.just(""),
    min_size=1, max_size=6)


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_quoting_of_our_email_leaves_the_writers_lines_and_none_of_ours(sent, data):
    lang = data.draw(st.sampled_from(LANGS), label="lang")
    email = sent[lang]
    ours = email.ours
    lines = data.draw(writer_lines, label="writer")
    writer = "\n".join(lines)
    assume(writer.strip())
    assume(all(line_key(line) not in ours.lines and line_key(line) not in ours.labels
               and re.sub(r"^\d+[.)] ", "", line_key(line)) not in ours.labels for line in lines))
    shown = data.draw(st.sampled_from(["text", "html", "html-links"]), label="shown")
    text = {"text": email.text, "html": crude_text(email.html), "html-links": _links_shown(email.html)}[shown]
    our_lines = text.split("\n")
    starts = [i for i, line in enumerate(our_lines) if line_key(line) in ours.lines]
    start = data.draw(st.sampled_from(starts[:1] * 3 + starts), label="start")  # often all of it
    quoting = data.draw(st.sampled_from(sorted(QUOTINGS)), label="quoting")
    quoted = QUOTINGS[quoting]("\n".join(our_lines[start:]))
    result = strip_quotes(writer + "\n" + quoted, ours)
    assert result == paragraphs(lines)
    assert not _lines_of_ours(result, ours)
