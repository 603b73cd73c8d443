"""The replies corpus (tests/pbem/replies_corpus/): the game situations its replies answer, the
replies built the way each mail client writes them around OUR REAL turn email, and the runner
that sends one row through `pbem.inbound.handler.handle_message` and judges what became of it.

Used by tests/pbem/test_replies_corpus.py and `python -m benchmarks.replies_corpus`.

- A situation is a game at the writer's turn (always seat 0), built through the game service
  (`service.create_game` with a chosen deck, then `service.apply_game_move`); the writer's turn
  email is then claimed, written by its deferred writer, built into MIME and marked sent as the
  delivery worker does (without the SMTP hop), so the quoted hand lines, move labels and signed
  links are exactly the ones we sent.
- A client renders the writer's new text and the quote of that email as it does: its
  attribution or header block (in the client's language), its quote marks or HTML quote
  container, text/plain and/or text/html, format=flowed.
- A row's outcome is read from the database (the move log, the outbox, the talk) and from the
  `commands.read_reply` readings the handler made (the candidates of a refusal).
"""
from __future__ import annotations

import contextlib
import html
import json
import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

import engine
from game_helpers import deck_with_hands
from sqlalchemy import func, update
from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from pbem import links
from pbem.config import Config
from pbem.db import session_scope
from pbem.games import service
from pbem.games.settings import GameSettings
from pbem import store
from pbem.inbound import bounds, commands, handler
from pbem.mail import writers
from pbem.mail.mime import build_message
from pbem.models import MoveRecord, OutboxMessage, OutboxStatus, Seat, TalkMessage, utcnow

CORPUS_DIR = Path(__file__).with_name("replies_corpus")
LANGUAGES = ("en", "fr", "vi")
OUR_HOST = "korsar.test"  # game_helpers.BASE_URL's host and the reply domain of make_cfg

# ---------------------------------------------------------------- situations

# The writer (seat 0) in each language: their name as the seat shows it, and the short name they
# sign with. The other seats are Bob, Cid, Dan and Eve (English).
WRITERS = {"en": ("Ann Baker", "Ann"), "fr": ("Élodie Martin", "Élodie"), "vi": ("Trần Thu Hà", "Hà")}
OTHERS = ("Bob", "Cid", "Dan", "Eve")


@dataclass(frozen=True)
class Situation:
    """A game at the writer's turn: its seats, deck, options and the moves played before.
    `moves` is the writer's legal moves in order, written short ("draw", "M3", "B3@1" for Blue 3
    on ship 1, "discard G1"): what the corpus rows' numbers mean, checked when it is built."""

    name: str
    about: str
    hands: tuple[tuple[str, ...], ...]
    moves: tuple[str, ...]
    draw: tuple[str, ...] = ()
    setup: tuple[str, ...] = ()  # moves in the same short form, by whoever is to move
    teams: bool = False
    table_talk: bool = False
    bot_partner: bool = False  # seat 1 (the writer's partner in a team game) is a bot
    drain_pile: bool = False  # after `setup`, every seat draws until the pile is empty


def _drained_pile(hands: list[list[str]], writer_draws: list[str], first_drawer: int) -> tuple[str, ...]:
    """A draw pile that gives seat 0 the cards `writer_draws` in order when every seat draws in
    turn from seat `first_drawer` on (the other seats draw the rest of the deck in its order)."""
    dealt = sum(map(len, hands))
    rest = deck_with_hands(*hands, draw=writer_draws)[dealt + len(writer_draws):]
    mine = iter(writer_draws)
    return tuple(next(mine) if (first_drawer + turn) % len(hands) == 0 else rest.pop(0)
                 for turn in range(len(engine.FULL_DECK) - dealt))


_END_HANDS = [["M2", "G1", "B2", "R4", "KC", "M5"], ["M4", "G2", "G2", "B3", "R1", "K2"],
              ["G3", "B1", "R2", "K3", "M3", "R3"], ["B3", "R2", "K1", "G4", "M6", "K2"],
              ["G2", "B2", "R3", "K4", "M2", "B1"]]

SITUATIONS: dict[str, Situation] = {s.name: s for s in (
    Situation("start", "2 players, first turn: two merchant ships in hand, no ship on the table",
              hands=(("M3", "M5", "G2", "BC", "K4", "R3"), ("G1", "B2", "R2", "K2", "M4", "B3")),
              moves=("draw", "M3", "M5")),
    Situation("onemerchant", "3 players, first turn: one merchant ship (4 gold), no ship on the table",
              hands=(("M4", "G1", "B2", "R3", "K4", "AD"), ("G2", "B3", "R2", "K2", "M2", "B1"),
                     ("G3", "B4", "R1", "K1", "M6", "R2")),
              moves=("draw", "M4")),
    Situation("battle", "2 players: ship 1 the writer's (5 gold, Blue 2 against Bob's Black 2), ship 2 "
                        "Bob's (4 gold, the writer's Green 1 against Bob's Red 1), ship 3 Bob's (6 gold); "
                        "no merchant ship in hand",
              hands=(("M5", "B2", "G1", "B3", "BC", "AD"), ("K2", "M4", "R1", "M6", "K3", "R2")),
              draw=("G3",),
              setup=("M5", "K2@1", "B2@1", "M4", "G1@2", "R1@2", "draw", "M6"),
              moves=("draw", "B3@1", "BC@1", "AD@1", "G3@2", "G3@3", "B3@3")),
    Situation("team", "4 players in teams, first turn: the writer and Bob (seat 1) are partners",
              hands=(("M2", "M4", "G2", "B3", "RC", "K1"), ("G1", "B2", "R2", "K2", "M3", "B3"),
                     ("G3", "B4", "R1", "K1", "M6", "R2"), ("G2", "B1", "R3", "K3", "M5", "B2")),
              teams=True, moves=("draw", "M2", "M4")),
    Situation("teambot", "4 players in teams, first turn: the writer's partner (seat 1) is a bot",
              hands=(("M2", "M4", "G2", "B3", "RC", "K1"), ("G1", "B2", "R2", "K2", "M3", "B3"),
                     ("G3", "B4", "R1", "K1", "M6", "R2"), ("G2", "B1", "R3", "K3", "M5", "B2")),
              teams=True, bot_partner=True, moves=("draw", "M2", "M4")),
    Situation("tabletalk", "3 players, table talk on, first turn: merchant ships of 3 and 6 gold",
              hands=(("M3", "M6", "G2", "G3", "B1", "KC"), ("G1", "B2", "R2", "K2", "M4", "B3"),
                     ("G3", "B4", "R1", "K1", "M5", "R2")),
              table_talk=True, moves=("draw", "M3", "M6")),
    Situation("end", "5 players, the draw pile is empty: merchant ships and discards only",
              hands=tuple(tuple(h) for h in _END_HANDS),
              draw=_drained_pile(_END_HANDS, ["G1", "M3", "B2", "AD", "K4", "R4", "M2", "B4", "G3"], 2),
              setup=("M5", "M4"), drain_pile=True,
              moves=("M2", "M3", "discard G1", "discard G3", "discard B2", "discard B4", "discard R4",
                     "discard K4", "discard KC", "discard AD")),
)}


def short_move(move: dict[str, Any]) -> str:
    """A move in the short form of `Situation.moves`."""
    if move["action"] == "draw":
        return "draw"
    if move["action"] == "discard":
        return f"discard {move['card']}"
    return f"{move['card']}@{move['target']}" if "target" in move else move["card"]


def long_move(short: str) -> dict[str, Any]:
    """The move a short form names."""
    if short == "draw":
        return {"action": "draw"}
    if short.startswith("discard "):
        return {"action": "discard", "card": short.split()[1]}
    card, _, target = short.partition("@")
    return {"action": "play", "card": card, **({"target": int(target)} if target else {})}


@dataclass(frozen=True)
class Turn:
    """The turn email the writer received (as sent) and what a corpus row refers to in it."""

    situation: str
    language: str
    game_id: int
    version: int
    name: str  # the writer's seat name
    address: str  # the writer's address (lower case)
    signs: str  # the short name they sign with
    message: EmailMessage  # our email as the worker sent it
    text: str  # its text/plain
    html: str  # its text/html
    legal_moves: list[dict[str, Any]]
    labels: list[str]  # the label our email printed for each move (without its number)
    links: list[str]  # each move's link
    hand: list[str]  # the hand lines as printed
    other_seat_reply_to: str  # the reply address seat 1 got for this turn (signed for seat 1)
    talk_listeners: int  # how many seats may hear the writer's words (0: nobody)

    @property
    def reply_to(self) -> str:
        return str(self.message["Reply-To"])


def build_turn(db: Engine, cfg: Config, situation: Situation, language: str, tag: str) -> Turn:
    """A new game in `situation` whose writer (seat 0) speaks `language`, and the turn email the
    worker sent them. `tag` makes every address of the game unique (the hourly reply limit
    counts per address)."""
    name, signs = WRITERS[language]
    writer = f"ann.{tag}@example.com"
    players = [f"{name} <{writer}> [{language}]"]
    for i, other in enumerate(OTHERS[: len(situation.hands) - 1], 1):
        players.append("bot:random" if situation.bot_partner and i == 1 else
                       f"{other} <{other.lower()}.{tag}@example.org>")
    deck = deck_with_hands(*[list(h) for h in situation.hands], draw=list(situation.draw))
    with session_scope(db) as session:
        game = service.create_game(session, cfg, players, GameSettings(teams=situation.teams,
                                                                       table_talk=situation.table_talk), deck=deck)
        game_id = game.id
        assert game_id is not None
        for short in situation.setup:
            _play(session, cfg, game_id, long_move(short))
        while situation.drain_pile and _state(session, game_id).pile:
            _play(session, cfg, game_id, {"action": "draw"})
        state = _state(session, game_id)
        assert state.to_move == 0, f"{situation.name}: seat {state.to_move} is to move, not the writer"
        legal = engine.legal_moves(state)
        got = tuple(short_move(m) for m in legal)
        assert got == situation.moves, f"{situation.name}: the writer's moves are {got}, not {situation.moves}"
        seats = service.seats_of(session, game_id)
        turn_row = session.exec(select(OutboxMessage).where(
            OutboxMessage.game_id == game_id, OutboxMessage.to_addr == writer, OutboxMessage.kind == "turn")
            .order_by(col(OutboxMessage.id).desc())).first()
        assert turn_row is not None and turn_row.id is not None, f"{situation.name}: no turn email to the writer"
        turn_id = turn_row.id
    message = _send_one(db, cfg, turn_id)
    text = _part(message, "plain")
    listeners = _listeners(seats, situation)
    return Turn(situation=situation.name, language=language, game_id=game_id, version=state.version,
                name=name, address=writer, signs=signs, message=message, text=text,
                html=_part(message, "html"), legal_moves=legal, labels=_labels(text, len(legal)),
                links=_links(text), hand=_hand(text, language),
                other_seat_reply_to=links.reply_address(cfg, game_id, 1, seats[1].link_nonce, state.version),
                talk_listeners=listeners)


def _listeners(seats: list[Seat], situation: Situation) -> int:
    if situation.teams:
        return sum(1 for s in seats if s.position == 1 and s.kind == "human")
    return len(seats) - 1 if situation.table_talk else 0


def _state(session: Session, game_id: int) -> Any:
    game, _ = service.lock_game_with_seats(session, game_id)
    return store.load_state(game)


def _play(session: Session, cfg: Config, game_id: int, move: dict[str, Any]) -> None:
    game, seats = service.lock_game_with_seats(session, game_id)
    seat = store.load_state(game).to_move
    assert seat is not None, "the game is over"
    service.apply_game_move(session, cfg, game_id, seat, move, game=game, seats=seats)


def _send_one(db: Engine, cfg: Config, row_id: int) -> EmailMessage:
    """Outbox row `row_id` written and sent as the delivery worker does it (claimed, written by
    its deferred writer, built into MIME, marked sent); the other queued rows are left queued."""
    now = utcnow()
    worker = "corpus"
    with session_scope(db) as session:
        session.exec(update(OutboxMessage).where(col(OutboxMessage.id) == row_id).values(
            status=OutboxStatus.SENDING, claimed_by=worker, claimed_until=now + timedelta(minutes=5),
            attempts=OutboxMessage.attempts + 1))
    with session_scope(db) as session:
        row = session.get(OutboxMessage, row_id)
        assert row is not None
        session.expunge(row)
    if row.deferred is not None:
        assert writers.write_deferred(db, cfg, row, worker, now) is writers.Written.READY
    built, _ = build_message(row, cfg)
    with session_scope(db) as session:
        session.exec(update(OutboxMessage).where(col(OutboxMessage.id) == row_id).values(
            status=OutboxStatus.SENT, sent_at=now, claimed_by=None, claimed_until=None))
    msg = BytesParser(policy=policy.default).parsebytes(built.as_bytes())
    assert isinstance(msg, EmailMessage)
    return msg


def _part(msg: EmailMessage, subtype: str) -> str:
    part = msg.get_body(preferencelist=(subtype,))
    return part.get_content().replace("\r\n", "\n") if part is not None else ""


_LINK = re.compile(rf"^http://{re.escape(OUR_HOST)}/m/\S+$")


def _labels(text: str, count: int) -> list[str]:
    lines = text.split("\n")
    labels = [re.sub(r"^\d+\. ", "", lines[i - 1].strip()) for i, line in enumerate(lines)
              if i and _LINK.match(line.strip())]
    assert len(labels) == count, f"{len(labels)} move labels in the email for {count} moves"
    return labels


def _links(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if _LINK.match(line.strip())]


def _hand(text: str, language: str) -> list[str]:
    heading = {"en": "YOUR HAND", "fr": "VOTRE MAIN", "vi": "BÀI TRÊN TAY BẠN"}[language]
    lines = text.split("\n")
    start = next(i for i, line in enumerate(lines) if line.strip().startswith(heading))
    hand = []
    for line in lines[start + 1:]:
        if not line.strip().startswith("- "):
            break
        hand.append(line.strip()[2:])
    return hand


# ---------------------------------------------------------------- replies as clients write them

KORSAR = "Korsar <korsar@korsar.test>"  # make_cfg's MAIL_FROM: who our email is from

# "On ... wrote:" lines, per client and language ({who}: our From as the client shows it).
ATTRIBUTIONS: dict[str, dict[str, str]] = {
    "gmail": {
        "en": "On Tue, Dec 1, 2026 at 10:00 AM {who} wrote:",
        "fr": "Le mar. 1 déc. 2026 à 10:00, {who} a écrit :",
        "vi": "Vào Th 3, 1 thg 12, 2026 vào lúc 10:00 {who} đã viết:",
        "de": "Am Di., 1. Dez. 2026 um 10:00 Uhr schrieb {who}:",
        "es": "El mar, 1 dic 2026 a las 10:00, {who} escribió:",
        "it": "Il giorno mar 1 dic 2026 alle ore 10:00 {who} ha scritto:",
        "nl": "Op di 1 dec 2026 om 10:00 schreef {who}:",
        "pt": "Em ter., 1 de dez. de 2026 às 10:00, {who} escreveu:",
        "pl": "wt., 1 gru 2026 o 10:00 {who} napisał(a):",
        "ru": "вт, 1 дек. 2026 г. в 10:00, {who}:",
        "sv": "Den tis 1 dec. 2026 kl 10:00 skrev {who}:",
        "tr": "{who}, 1 Ara 2026 Sal, 10:00 tarihinde şunu yazdı:",
        "ja": "2026年12月1日(火) 10:00 {who}:",
        "zh": "{who} 于2026年12月1日周二 10:00写道：",
        "ko": "2026년 12월 1일 (화) 오전 10:00, {who}님이 작성:",
    },
    "apple": {
        "en": "On Dec 1, 2026, at 10:00, {who} wrote:",
        "fr": "Le 1 déc. 2026 à 10:00, {who} a écrit :",
        "vi": "Vào 10:00, ngày 1 thg 12, 2026, {who} đã viết:",
        "de": "Am 01.12.2026 um 10:00 schrieb {who}:",
        "es": "El 1 dic 2026, a las 10:00, {who} escribió:",
    },
    "thunderbird": {
        "en": "On 12/1/26 10:00, Korsar wrote:",
        "fr": "Le 01/12/2026 à 10:00, Korsar a écrit :",
        "vi": "Vào lúc 10:00 ngày 01/12/2026, Korsar đã viết:",
        "de": "Am 01.12.26 um 10:00 schrieb Korsar:",
    },
    "k9": {
        "en": "On December 1, 2026 10:00:00 AM UTC, {who} wrote:",
        "fr": "Le 1 décembre 2026 10:00:00 UTC, {who} a écrit :",
        "vi": "Vào 1 tháng 12, 2026 10:00:00 UTC, {who} đã viết:",
    },
    "mutt": {
        "en": "On Tue, Dec 01, 2026 at 10:00:00AM +0000, Korsar wrote:",
        "fr": "Le mar. 01 déc. 2026 à 10:00:00 +0000, Korsar a écrit :",
        "vi": "Vào Th 3, 01 thg 12, 2026 lúc 10:00:00 +0000, Korsar đã viết:",
    },
    "yahoo": {
        "en": "On Tuesday, December 1, 2026 at 10:00:00 AM GMT, {who} wrote:",
        "fr": "Le mardi 1 décembre 2026 à 10:00:00 UTC, {who} a écrit :",
        "vi": "Vào Thứ Ba, 1 tháng 12, 2026 lúc 10:00:00 GMT, {who} đã viết:",
        "de": "Am Dienstag, 1. Dezember 2026, 10:00:00 MEZ hat {who} Folgendes geschrieben:",
    },
}

# Outlook's block of the answered email's headers: From, Sent, To, Subject (in that order).
OUTLOOK_HEADERS: dict[str, tuple[str, str, str, str, str]] = {  # lang: the four names and the date
    "en": ("From", "Sent", "To", "Subject", "Tuesday, December 1, 2026 10:00 AM"),
    "fr": ("De", "Envoyé", "À", "Objet", "mardi 1 décembre 2026 10:00"),
    "vi": ("Từ", "Đã gửi", "Đến", "Chủ đề", "Thứ Ba, ngày 1 tháng 12 năm 2026 10:00"),
    "de": ("Von", "Gesendet", "An", "Betreff", "Dienstag, 1. Dezember 2026 10:00"),
    "es": ("De", "Enviado", "Para", "Asunto", "martes, 1 de diciembre de 2026 10:00"),
    "it": ("Da", "Inviato", "A", "Oggetto", "martedì 1 dicembre 2026 10:00"),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "dinsdag 1 december 2026 10:00"),
    "pl": ("Od", "Wysłane", "Do", "Temat", "wtorek, 1 grudnia 2026 10:00"),
    "pt": ("De", "Enviado", "Para", "Assunto", "terça-feira, 1 de dezembro de 2026 10:00"),
}
# Samsung Email's separator and header names: From, Date, To, Subject.
SAMSUNG_HEADERS: dict[str, tuple[str, str, str, str, str]] = {
    "en": ("Original message", "From", "Date", "To", "Subject"),
    "fr": ("Message d'origine", "De", "Date", "À", "Objet"),
    "vi": ("Thư gốc", "Từ", "Ngày", "Đến", "Chủ đề"),
    "pl": ("Oryginalna wiadomość", "Od", "Data", "Do", "Temat"),
    "ru": ("Исходное сообщение", "От", "Дата", "Кому", "Тема"),
    "sv": ("Originalmeddelande", "Från", "Datum", "Till", "Ämne"),
    "tr": ("Orijinal mesaj", "Kimden", "Tarih", "Alıcı", "Konu"),
    "ko": ("원본 이메일", "발신", "날짜", "수신", "제목"),
    "zh": ("原始邮件", "发件人", "日期", "收件人", "主题"),
    "ja": ("元のメッセージ", "送信元", "日付", "宛先", "件名"),
    "de": ("Ursprüngliche Nachricht", "Von", "Datum", "An", "Betreff"),
    "es": ("Mensaje original", "De", "Fecha", "Para", "Asunto"),
    "el": ("Αρχικό μήνυμα", "Από", "Ημερομηνία", "Προς", "Θέμα"),
    "hu": ("Eredeti üzenet", "Feladó", "Dátum", "Címzett", "Tárgy"),
}
SAMSUNG_DATE = "01/12/2026 10:00 (GMT+00:00)"

CLIENTS = ("gmail", "outlook", "owa", "apple", "thunderbird", "k9", "samsung", "yahoo", "mutt")
# Outlook 2016: "-----Original Message-----" in its text part, a Word <div> with a top border (no
# id) in its HTML.
OTHER_CLIENTS = ("outlook2016",)


@dataclass(frozen=True)
class Composed:
    """What the writer typed around the quote of our email: above it, inside it (an inline reply:
    after our list of moves) and under it; `quoted` False when they deleted the quote."""

    above: str = ""
    inside: str = ""
    under: str = ""
    quoted: bool = True


def compose(body: str, layout: str) -> Composed:
    """The writer's text placed as `layout` says: top | bottom | inline | none (no quote)."""
    if layout == "top":
        return Composed(above=body)
    if layout == "bottom":
        return Composed(under=body)
    if layout == "inline":
        return Composed(inside=body)
    if layout == "none":
        return Composed(above=body, quoted=False)
    raise ValueError(f"unknown layout {layout!r}")


@dataclass(frozen=True)
class Client:
    """A mail client: how it spells its attribution or header block, quotes text and HTML."""

    name: str
    language: str  # the language of its attribution or header block
    html_only: bool = False  # sends text/html and no text/plain


def parse_client(spec: str, default_language: str) -> Client:
    """"gmail", "samsung:pl", "apple+html" (only its HTML part), "owa:fr"."""
    html_only = spec.endswith("+html")
    name, _, language = spec.removesuffix("+html").partition(":")
    if name not in CLIENTS + OTHER_CLIENTS:
        raise ValueError(f"unknown client {name!r}")
    client = Client(name, language or default_language, html_only or name == "owa")
    _attribution_or_headers(client, who=KORSAR)  # an unknown language fails here, not mid-run
    return client


def _attribution_or_headers(client: Client, who: str) -> str:
    lang = client.language
    if client.name in ("outlook", "owa", "outlook2016"):
        return OUTLOOK_HEADERS[lang][0]
    if client.name == "samsung":
        return SAMSUNG_HEADERS[lang][0]
    return ATTRIBUTIONS[client.name][lang].format(who=who)


def _split_text(text: str) -> tuple[str, str]:
    """Our text email cut after its list of moves (where an inline reply is typed)."""
    lines = text.split("\n")
    last = max(i for i, line in enumerate(lines) if _LINK.match(line.strip()))
    return "\n".join(lines[: last + 1]), "\n".join(lines[last + 1:])


def _marked(text: str) -> str:
    """`text` quoted with "> " marks (an empty line as ">"), as most clients quote."""
    return "\n".join("> " + line if line else ">" for line in text.rstrip("\n").split("\n"))


def _wrapped(line: str, width: int = 76) -> str:
    """A long attribution line wrapped as Gmail's text part wraps it."""
    return "\n".join(textwrap.wrap(line, width, break_long_words=False, break_on_hyphens=False)) or line


def _flowed(text: str, width: int = 72) -> str:
    """The writer's text as format=flowed (RFC 3676): long lines broken after a space (a soft
    break), lines that start with a space, ">" or "From " space-stuffed; "-- " kept as is."""
    out = []
    for line in text.split("\n"):
        if line == "-- ":
            out.append(line)
            continue
        pieces = textwrap.wrap(line, width, break_long_words=False, drop_whitespace=False) or [""]
        for i, piece in enumerate(pieces):
            piece = piece if i == len(pieces) - 1 else piece.rstrip(" ") + " "
            if piece.startswith((" ", ">", "From ")):
                piece = " " + piece
            out.append(piece)
    return "\n".join(out)


def _joined(*blocks: str) -> str:
    return "\n\n".join(b for b in blocks if b)


def _outlook_block(turn: Turn, lang: str) -> str:
    sender, sent, to, subject, date = OUTLOOK_HEADERS[lang]
    return (f"{sender}: {KORSAR}\n{sent}: {date}\n{to}: {turn.name} <{turn.address}>\n"
            f"{subject}: {turn.message['Subject']}")


def _samsung_block(turn: Turn, lang: str) -> str:
    title, sender, date, to, subject = SAMSUNG_HEADERS[lang]
    return (f"-------- {title} --------\n{sender}: {KORSAR} \n{date}: {SAMSUNG_DATE} \n"
            f"{to}: {turn.address} \n{subject}: {turn.message['Subject']} \n")


def reply_text(turn: Turn, client: Client, written: Composed) -> str:
    """The text/plain part the client sends."""
    head, tail = _split_text(turn.text)
    if not written.quoted:
        return written.above
    name, lang = client.name, client.language
    if name in ("gmail", "apple", "thunderbird", "k9", "mutt"):
        attribution = _attribution_or_headers(client, KORSAR)
        if name == "gmail":
            attribution = _wrapped(attribution)
        above = _flowed(written.above) if name == "mutt" else written.above
        under = _flowed(written.under) if name == "mutt" else written.under
        if written.inside:
            inside = _flowed(written.inside) if name == "mutt" else written.inside
            quote = _joined(_marked(head), inside, _marked(tail))
        else:
            quote = _marked(turn.text)
        return _joined(above, attribution + "\n" + quote, under) + "\n"
    if name == "yahoo":  # no quote marks: the attribution, then our lines indented by a space
        attribution = "    " + _attribution_or_headers(client, KORSAR)
        indented = "\n".join(" " + line for line in (turn.text.split("\n")))
        if written.inside:
            indented = "\n".join(" " + line for line in head.split("\n")) + "\n\n" + written.inside + "\n\n" + \
                "\n".join(" " + line for line in tail.split("\n"))
        return _joined(written.above, attribution + "  \n \n" + indented, written.under) + "\n"
    if name == "outlook2016":  # its plain text: the separator of Outlook 2003-2016
        block = "-----Original Message-----\n" + _outlook_block(turn, lang) + "\n"
    elif name in ("outlook", "owa"):
        block = "________________________________\n" + _outlook_block(turn, lang) + "\n"
    else:
        block = _samsung_block(turn, lang)
    ours = turn.text if not written.inside else head + "\n\n" + written.inside + "\n\n" + tail
    return _joined(written.above, block + "\n" + ours, written.under) + "\n"


# ---- HTML

def _inner_body(page: str) -> str:
    """What is between our HTML's <body> and </body> (what clients put inside their quote)."""
    match = re.search(r"<body[^>]*>(.*)</body>", page, re.S | re.I)
    return match.group(1) if match else page


def _split_html(page: str) -> tuple[str, str]:
    """Our HTML cut after its table of moves, each half with its open tags closed or reopened
    (as a client splits the quote where an inline reply is typed)."""
    body = _inner_body(page)
    cut = body.index("</table>", body.index("data-move-link")) + len("</table>")
    stack: list[tuple[str, str]] = []  # (tag, its start tag as written)
    for match in re.finditer(r"<(/?)([a-zA-Z0-9]+)([^>]*)>", body[:cut]):
        closing, tag, rest = match.group(1), match.group(2).lower(), match.group(3)
        if tag in ("br", "hr", "img", "meta", "link", "input") or rest.endswith("/"):
            continue
        if closing:
            while stack and stack.pop()[0] != tag:
                pass
        else:
            stack.append((tag, match.group(0)))
    head = body[:cut] + "".join(f"</{tag}>" for tag, _ in reversed(stack))
    tail = "".join(start for _, start in stack) + body[cut:]
    return head, tail


def _lines_html(text: str, tag: str = "div", attrs: str = "") -> str:
    """The writer's lines as the client's HTML editor writes them (an empty line: <br>)."""
    return "".join(f"<{tag}{attrs}>{html.escape(line) if line else '<br>'}</{tag}>" for line in text.split("\n"))


def reply_html(turn: Turn, client: Client, written: Composed) -> str:
    """The text/html part the client sends."""
    ours = _inner_body(turn.html)
    head, tail = _split_html(turn.html) if written.inside else (ours, "")
    name = client.name
    who = html.escape(KORSAR)
    attribution = html.escape(_attribution_or_headers(client, KORSAR)) if name in ATTRIBUTIONS else ""
    if name == "gmail":
        def new(text: str) -> str:
            return f'<div dir="ltr">{_lines_html(text)}</div>' if text else ""
        bq = '<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid ' \
             'rgb(204,204,204);padding-left:1ex">'
        quote = (f'{bq}{head}</blockquote>{new(written.inside)}{bq}{tail}</blockquote>' if written.inside
                 else f"{bq}{ours}</blockquote>")
        return (f'{new(written.above)}<br><div class="gmail_quote gmail_quote_container"><div dir="ltr" '
                f'class="gmail_attr">{attribution}<br></div>{quote}</div>{new(written.under)}')
    if name == "apple":
        def new(text: str) -> str:
            return f'<div dir="ltr">{_lines_html(text)}</div>' if text else ""
        quote = (f'<blockquote type="cite"><div dir="ltr">{head}</div></blockquote>{new(written.inside)}'
                 f'<blockquote type="cite"><div dir="ltr">{tail}</div></blockquote>' if written.inside
                 else f'<blockquote type="cite"><div dir="ltr">{ours}</div></blockquote>')
        return (f'<html><head><meta http-equiv="content-type" content="text/html; charset=utf-8"></head>'
                f'<body dir="auto">{new(written.above)}<div dir="ltr"><br><blockquote type="cite">'
                f'{attribution}<br><br></blockquote></div>{quote}{new(written.under)}</body></html>')
    if name == "thunderbird":
        def new(text: str) -> str:
            return f"<p>{'<br>'.join(html.escape(line) for line in text.split(chr(10)))}</p>" if text else ""
        cite = f'<blockquote type="cite" cite="mid:{html.escape(str(turn.message["Message-ID"]).strip("<>"))}">'
        quote = (f"{cite}{head}</blockquote>{new(written.inside)}{cite}{tail}</blockquote>" if written.inside
                 else f"{cite}{ours}</blockquote>")
        return (f'<!DOCTYPE html><html><head><meta http-equiv="content-type" content="text/html; charset=UTF-8">'
                f'</head><body>{new(written.above)}<div class="moz-cite-prefix">{attribution}<br></div>{quote}'
                f'{new(written.under)}</body></html>')
    if name == "yahoo":
        def new(text: str) -> str:
            lines = _lines_html(text, attrs=' dir="ltr" data-setdir="false"')
            return (f'<div class="ydp3f5a9b1cyahoo-style-wrap" style="font-family:Helvetica Neue, Helvetica, '
                    f'Arial, sans-serif;font-size:16px;">{lines}</div>') if text else ""
        inner = f"{head}{new(written.inside)}{tail}" if written.inside else ours
        return (f'<html><head></head><body>{new(written.above)}<div id="yahoo_quoted_0387162637" '
                f'class="yahoo_quoted"><div style="font-family:\'Helvetica Neue\', Helvetica, Arial, sans-serif;'
                f'font-size:13px;color:#26282a;"><div>{attribution}</div><div><br></div><div><br></div>'
                f'<div><div id="yiv0387162637">{inner}</div></div></div></div>{new(written.under)}</body></html>')
    if name == "samsung":
        title, sender, date, to, subject = SAMSUNG_HEADERS[client.language]
        def new(text: str) -> str:
            return _lines_html(text, attrs=' dir="auto"') if text else ""
        block = (f'<div dir="auto"><br></div><div align="left" dir="auto" style="font-size:100%;color:#000000">'
                 f"<!-- originalMessage --><div>-------- {html.escape(title)} --------</div>"
                 f"<div>{html.escape(sender)}: {who} </div><div>{html.escape(date)}: {SAMSUNG_DATE} </div>"
                 f"<div>{html.escape(to)}: {html.escape(turn.address)} </div>"
                 f"<div>{html.escape(subject)}: {html.escape(str(turn.message['Subject']))} </div>"
                 f"<div><br></div></div>")
        inner = f"{head}{new(written.inside)}{tail}" if written.inside else ours
        return (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset=UTF-8"></head><body>'
                f"{new(written.above)}{block}{inner}{new(written.under)}</body></html>")
    # Outlook: Microsoft 365 (desktop and web) put the answered email's headers in #divRplyFwdMsg
    # after an <hr>, our email following as siblings; Outlook 2016 a Word <div> with a top border.
    sender_h, sent_h, to_h, subject_h, date = OUTLOOK_HEADERS[client.language]
    fields = (f"<b>{html.escape(sender_h)}:</b> {who}<br><b>{html.escape(sent_h)}:</b> {html.escape(date)}<br>"
              f"<b>{html.escape(to_h)}:</b> {html.escape(turn.name)} &lt;{html.escape(turn.address)}&gt;<br>"
              f"<b>{html.escape(subject_h)}:</b> {html.escape(str(turn.message['Subject']))}")
    if name == "owa":
        def paragraphs(text: str) -> str:
            return _lines_html(text, attrs=' class="elementToProof" style="font-family: Aptos, Aptos_EmbeddedFont, '
                               'Aptos_MSFontService, Calibri, Helvetica, sans-serif; font-size: 12pt; '
                               'color: rgb(0, 0, 0);"') if text else ""
        head_html = ('<html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style '
                     'type="text/css" style="display:none;"> P {margin-top:0;margin-bottom:0;} </style></head>'
                     '<body dir="ltr">')
    else:
        def paragraphs(text: str) -> str:
            return _lines_html(text, tag="p", attrs=' class="MsoNormal"') if text else ""
        head_html = ('<html xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">'
                     '<head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"><style><!-- p.MsoNormal '
                     '{margin:0cm;font-size:11.0pt;font-family:"Calibri",sans-serif;} --></style></head>'
                     '<body lang="EN-US" link="#0563C1" vlink="#954F72"><div class="WordSection1">')
    inner = f"{head}{paragraphs(written.inside)}{tail}" if written.inside else ours
    if name == "outlook2016":
        block = ('<p class="MsoNormal"><o:p>&nbsp;</o:p></p><div style="border:none;border-top:solid #E1E1E1 1.0pt;'
                 f'padding:3.0pt 0cm 0cm 0cm"><p class="MsoNormal">{fields}<o:p></o:p></p></div>'
                 '<p class="MsoNormal"><o:p>&nbsp;</o:p></p>')
    else:
        block = ('<div id="appendonsend"></div><hr style="display:inline-block;width:98%" tabindex="-1">'
                 '<div id="divRplyFwdMsg" dir="ltr"><font face="Calibri, sans-serif" style="font-size:11pt" '
                 f'color="#000000">{fields}</font><div>&nbsp;</div></div>')
    tail_html = "</body></html>" if name == "owa" else "</div></body></html>"
    return f"{head_html}{paragraphs(written.above)}{block}{inner}{paragraphs(written.under)}{tail_html}"


# ---- the message: headers, parts, encodings, and the twists of the hostile rows

# How each client encodes its parts, its Message-ID domain and its User-Agent / X-Mailer.
_MAILER: dict[str, tuple[str, str, tuple[str, str] | None]] = {
    "gmail": ("quoted-printable", "mail.gmail.com", None),
    "outlook": ("quoted-printable", "AM0PR07MB1234.eurprd07.prod.outlook.com",
                ("X-Mailer", "Microsoft Outlook 16.0")),
    "owa": ("quoted-printable", "PAXPR07MB8771.eurprd07.prod.outlook.com", None),
    "outlook2016": ("quoted-printable", "DB6PR0701MB2360.eurprd07.prod.outlook.com",
                    ("X-Mailer", "Microsoft Outlook 16.0")),
    "apple": ("quoted-printable", "icloud.com", ("X-Mailer", "iPhone Mail (21F90)")),
    "thunderbird": ("8bit", "example.com", ("User-Agent", "Mozilla Thunderbird")),
    "k9": ("quoted-printable", "email.android.com", ("User-Agent", "K-9 Mail for Android")),
    "samsung": ("base64", "email.android.com", None),
    "yahoo": ("quoted-printable", "mail.yahoo.com", ("X-Mailer", "WebService/1.1.22806 YMailNorrin")),
    "mutt": ("8bit", "example.com", ("User-Agent", "NeoMutt/20231103")),
}
_REPLY_PREFIX = {"outlook": "RE: ", "owa": "RE: ", "outlook2016": "RE: "}


def build_reply(turn: Turn, client: Client, written: Composed, twist: str = "",
                serial: int = 0) -> tuple[bytes, dict[str, Any]]:
    """The reply as it reaches our receiver (CRLF bytes) and the keyword arguments of
    `handle_message` (the SMTP envelope of a twist)."""
    cte, domain, mailer = _MAILER[client.name]
    msg = EmailMessage()
    msg["From"] = f"{turn.name} <{turn.address}>"
    msg["To"] = turn.reply_to
    msg["Subject"] = _REPLY_PREFIX.get(client.name, "Re: ") + str(turn.message["Subject"])
    msg["Date"] = format_datetime(datetime(2026, 12, 1, 10, 5, serial % 60, tzinfo=timezone.utc))
    msg["Message-ID"] = make_msgid(idstring=f"corpus{serial}", domain=domain)
    msg["In-Reply-To"] = str(turn.message["Message-ID"])
    msg["References"] = " ".join(filter(None, (str(turn.message.get("References") or ""),
                                               str(turn.message["Message-ID"]))))
    if mailer:
        msg[mailer[0]] = mailer[1]
    if client.name == "mutt":
        msg.set_content(reply_text(turn, client, written), charset="utf-8", cte=cte)
        msg.set_param("format", "flowed")
    elif client.html_only:
        msg.set_content(reply_html(turn, client, written), subtype="html", charset="utf-8", cte=cte)
    else:
        msg.set_content(reply_text(turn, client, written), charset="utf-8", cte=cte)
        if client.name != "k9":  # K-9 and mutt write text/plain only
            msg.add_alternative(reply_html(turn, client, written), subtype="html", charset="utf-8", cte=cte)
    envelope: dict[str, Any] = {"envelope_from": turn.address, "envelope_rcpts": [turn.reply_to]}
    if twist:
        _twisted(msg, envelope, turn, twist)
    raw = msg.as_bytes(policy=policy.SMTP)
    if twist == "from=twice":  # a second From header (the email package refuses to write one)
        raw = f"From: Eve <{EVE}>\r\n".encode() + raw
    return raw, envelope


EVE = "eve@evil.example"

# The hostile and machine-made variants a row's `twist` names (see the corpus README).
TWISTS = ("from=other", "from=name-is-address", "from=address-in-name", "from=two", "from=group",
          "from=route", "from=twice", "to=flipped", "to=other-seat", "to=other-game", "to=huge-game",
          "auto=vacation", "precedence=bulk", "bounce", "dmarc=fail", "dmarc=fail-case", "dmarc=fail-version",
          "dmarc=other-server")


def _twisted(msg: EmailMessage, envelope: dict[str, Any], turn: Turn, twist: str) -> None:
    me = turn.address
    froms = {
        "from=other": f"Eve <{EVE}>",
        "from=name-is-address": f'"{me}" <{EVE}>',
        "from=address-in-name": f'"{EVE}" <{me}>',
        "from=two": f"{me}, {EVE}",
        "from=group": f"friends: {me}, {EVE};",
        "from=route": f"<@evil.example:{me}>",
    }
    local, _, host = turn.reply_to.partition("@")
    if twist in froms:
        del msg["From"]
        msg["From"] = froms[twist]
        if twist == "from=other":
            envelope["envelope_from"] = EVE
    elif twist == "from=twice":
        pass  # written into the bytes by build_reply
    elif twist.startswith("to="):
        game, version = turn.game_id, turn.version
        address = {
            "to=flipped": f"{local[:-1]}{'a' if local[-1] != 'a' else 'b'}@{host}",
            "to=other-seat": turn.other_seat_reply_to,
            "to=other-game": local.replace(f"+{game}-", f"+{game + 100000}-", 1) + "@" + host,
            "to=huge-game": local.replace(f"+{game}-", f"+{2 ** 31 + game}-", 1) + "@" + host,
        }[twist]
        assert address != turn.reply_to and str(version) in turn.reply_to
        del msg["To"]
        msg["To"] = address
        envelope["envelope_rcpts"] = [address]
    elif twist == "auto=vacation":
        msg["Auto-Submitted"] = "auto-replied"
        msg.replace_header("Subject", "Out of office: " + str(turn.message["Subject"]))
    elif twist == "precedence=bulk":
        msg["Precedence"] = "bulk"
    elif twist == "bounce":
        envelope["envelope_from"] = ""
    elif twist.startswith("dmarc="):
        server = {"dmarc=fail": OUR_HOST, "dmarc=fail-case": OUR_HOST.upper(),
                  "dmarc=fail-version": f"{OUR_HOST} 1", "dmarc=other-server": "mx.evil.example"}[twist]
        msg["Authentication-Results"] = (f"{server}; spf=fail smtp.mailfrom=example.com; "
                                         f"dkim=none; dmarc=fail (p=reject) header.from=example.com")
    else:
        raise ValueError(f"unknown twist {twist!r}")


# ---------------------------------------------------------------- the corpus rows

EXPECTED_KINDS = ("play", "choices", "nomove", "refused", "silent")


@dataclass(frozen=True)
class Row:
    """One reply of the corpus and what must become of it (tests/pbem/replies_corpus/README.md)."""

    id: str
    language: str
    situation: str
    client: str
    layout: str
    expect: str  # play | choices | nomove | refused | silent
    numbers: tuple[int, ...]  # the move of `play`, the candidates of `choices`
    talk: str | None  # None: not checked; "": nothing is passed on; else the words passed on
    twist: str
    trap: str
    body: str  # with its {placeholders}
    where: str  # file:line

    @property
    def expected(self) -> str:
        return f"{self.expect} {','.join(map(str, self.numbers))}".strip()


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t", "s": " "}.get(m.group(1), m.group(1)), text)


def parse_rows(path: Path) -> list[Row]:
    """The rows of one corpus file (its name is its language)."""
    rows = []
    language = path.stem
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = [c.strip() for c in line.split("|", 8)]
        where = f"{path.name}:{number}"
        if len(cells) != 9:
            raise ValueError(f"{where}: {len(cells)} columns, not 9")
        row_id, situation, client, layout, expect, talk, twist, trap, body = cells
        kind, _, numbers = expect.partition(" ")
        if kind not in EXPECTED_KINDS or situation not in SITUATIONS or bool(numbers) != (kind in ("play", "choices")):
            raise ValueError(f"{where}: bad expectation {expect!r} or situation {situation!r}")
        if twist not in ("-", *TWISTS):
            raise ValueError(f"{where}: unknown twist {twist!r}")
        if talk != "-" and talk != "nothing" and not (len(talk) >= 2 and talk[0] == talk[-1] == '"'):
            raise ValueError(f"{where}: talk is -, nothing or \"the words\", not {talk!r}")
        parse_client(client, language)
        compose("", layout)
        rows.append(Row(
            id=row_id, language=language, situation=situation, client=client, layout=layout, expect=kind,
            numbers=tuple(int(n) for n in numbers.split(",")) if numbers else (),
            talk=None if talk == "-" else "" if talk == "nothing" else _unescaped(talk[1:-1]),
            twist="" if twist == "-" else twist, trap="" if trap == "-" else trap, body=_unescaped(body),
            where=where))
    ids = [r.id for r in rows]
    duplicates = {i for i in ids if ids.count(i) > 1}
    assert not duplicates, f"{path.name}: ids used twice: {sorted(duplicates)}"
    return rows


def corpus(language: str) -> list[Row]:
    return parse_rows(CORPUS_DIR / f"{language}.tsv")


_PLACEHOLDER = re.compile(r"\{(\w+)(?::(\d+))?\}")


def expand(body: str, turn: Turn) -> str:
    """A row's body with its placeholders filled from the turn email (README.md lists them)."""
    def value(match: re.Match[str]) -> str:
        what, n = match.group(1), int(match.group(2) or 0)
        if what == "label":
            return turn.labels[n - 1]
        if what == "numbered":
            return f"{n}. {turn.labels[n - 1]}"
        if what == "hand":
            return turn.hand[n - 1]
        if what == "link":
            return turn.links[n - 1]
        if what == "name":
            return turn.name
        if what == "signs":
            return turn.signs
        if what == "greeting":
            # the first line under the header: its wording (and the name it calls the reader by) is the catalog's
            return next(line for line in turn.text.split("\n")[1:] if line.strip())
        raise ValueError(f"unknown placeholder {match.group(0)}")
    return _PLACEHOLDER.sub(value, body)


# ---------------------------------------------------------------- running and judging a row

@contextlib.contextmanager
def watching_readings() -> Iterator[list[Any]]:
    """Every `commands.read_reply` result the handler gets while this is open (the candidates
    a refusal numbers are read from them)."""
    seen: list[Any] = []
    original = commands.read_reply

    def spy(*args: Any, **kwargs: Any) -> Any:
        reading = original(*args, **kwargs)
        seen.append(reading)
        return reading

    places: list[Any] = [commands] + ([handler] if getattr(handler, "read_reply", None) is original else [])
    for place in places:
        place.read_reply = spy
    try:
        yield seen
    finally:
        for place in places:
            place.read_reply = original


@dataclass
class Verdict:
    """What became of one row, judged: a wrong move and the hard failures (our email passed on,
    an answer to a forged sender, words to nobody) fail the corpus at once; `mismatches` are
    replies not understood as the row says (they count against the understood rate)."""

    row: Row
    got: str
    wrong_move: bool = False
    hard: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)

    @property
    def understood(self) -> bool:
        return not (self.wrong_move or self.hard or self.mismatches)

    @property
    def played_as_expected(self) -> bool:
        return self.row.expect == "play" and not self.wrong_move and self.got.startswith("played")

    def describe(self) -> str:
        problems = (["WRONG MOVE"] if self.wrong_move else []) + self.hard + self.mismatches
        return (f"{self.row.id} ({self.row.where}, {self.row.situation}, {self.row.client}, {self.row.layout}"
                f"{', ' + self.row.twist if self.row.twist else ''}) {self.row.body!r}: expected "
                f"{self.row.expected}, got {self.got}: {'; '.join(problems)}")


@dataclass
class _After:
    """What the database holds about the row's game after the reply."""

    played: dict[str, Any] | None
    answers: list[OutboxMessage]
    others: list[OutboxMessage]
    talk: list[TalkMessage]


def _after(db: Engine, turn: Turn, outbox_before: int) -> _After:
    with session_scope(db) as session:
        record = session.exec(select(MoveRecord).where(
            MoveRecord.game_id == turn.game_id, MoveRecord.number == turn.version + 1)).first()
        played = json.loads(record.move_json) if record is not None and record.seat == 0 else None
        rows = list(session.exec(select(OutboxMessage).where(col(OutboxMessage.id) > outbox_before)
                                 .order_by(col(OutboxMessage.id))).all())
        talk = list(session.exec(select(TalkMessage).where(TalkMessage.game_id == turn.game_id)).all())
        for row in rows + talk:
            session.expunge(row)
    answers = [r for r in rows if r.to_addr == turn.address and r.kind.startswith("reply")]
    return _After(played, answers, [r for r in rows if r not in answers], talk)


def _last_outbox_id(db: Engine) -> int:
    with session_scope(db) as session:
        return int(session.exec(select(func.max(OutboxMessage.id))).one() or 0)


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def _ours(turn: Turn) -> tuple[set[str], list[str]]:
    """The lines of our email no talk may hold, and the secrets (tokens) no other seat may see."""
    page_lines = html.unescape(re.sub(r"<[^>]+>", "\n", _inner_body(turn.html))).split("\n")
    lines = {_normal(line) for line in turn.text.split("\n") + page_lines if len(_normal(line)) >= 8}
    lines |= {_normal(label) for label in turn.labels} | {_normal(line) for line in turn.hand}
    secrets = [link.rsplit("/", 1)[-1] for link in re.findall(rf"http://{re.escape(OUR_HOST)}/\S+", turn.text)
               if "/m/" in link or "/g/" in link or "/u/" in link]
    return lines, secrets + [turn.reply_to.split("@")[0].split("+", 1)[1]]


def run_row(db: Engine, cfg: Config, row: Row, serial: int) -> Verdict:
    """A fresh game in the row's situation, the row's reply sent to the handler, judged."""
    turn = build_turn(db, cfg, SITUATIONS[row.situation], row.language, tag=f"{row.id.lower()}.{serial}")
    client = parse_client(row.client, row.language)
    raw, envelope = build_reply(turn, client, compose(expand(row.body, turn), row.layout), row.twist, serial)
    before = _last_outbox_id(db)
    rejected: str | None = None
    with watching_readings() as readings:
        try:
            handled = handler.handle_message(db, cfg, raw, **envelope)
            reason = handled.reason
        except bounds.Rejected as exc:  # refused before it is read: a 5xx, nothing stored
            rejected, reason = f"rejected {exc.code}", exc.reason
        except Exception as exc:  # noqa: BLE001  (the corpus goes on; the row says what broke)
            return Verdict(row, f"raised {type(exc).__name__}: {exc}", mismatches=["the handler raised"])
    after = _after(db, turn, before)
    return judge(row, turn, after, readings[-1] if readings else None, rejected, reason)


def judge(row: Row, turn: Turn, after: _After, reading: Any, rejected: str | None, reason: str) -> Verdict:
    legal = turn.legal_moves
    choices = sorted(getattr(reading, "choices", None) or [])
    if after.played is not None:
        number = next((i for i, m in enumerate(legal, 1) if m == after.played), None)
        got = f"played {number or after.played}"
    elif rejected:
        got = rejected
    elif after.answers:
        got = f"refused {choices or ''} ({reason})".replace("  ", " ")
    else:
        got = f"silent ({reason})"
    verdict = Verdict(row, got)
    want = legal[row.numbers[0] - 1] if row.expect == "play" else None
    if after.played is not None and after.played != want:
        verdict.wrong_move = True
    _judge_safety(verdict, turn, after)
    expect = row.expect
    if expect == "silent":
        if after.answers or after.others or after.talk:
            verdict.hard.append("a reply that must get no answer was answered or passed on")
    elif expect == "play":
        if after.played is None:
            verdict.mismatches.append("not played")
        elif not any(r.kind == "reply_played" for r in after.answers):
            verdict.mismatches.append("played, but no 'played' answer")
        elif not any(_normal(turn.labels[row.numbers[0] - 1]) in _normal(r.text_body) for r in after.answers):
            verdict.mismatches.append("the answer does not name the move as our email did")
    elif not after.answers:
        verdict.mismatches.append("no answer")
    elif expect == "choices" and choices != sorted(row.numbers):
        verdict.mismatches.append(f"the candidates are {choices or 'not numbered'}")
    elif expect == "nomove" and (getattr(reading, "move", None) is not None
                                 or choices not in ([], list(range(1, len(legal) + 1)))):
        verdict.mismatches.append("read as a move, or numbered only some moves")
    if row.talk is not None:
        passed = _normal("\n".join(t.text for t in after.talk))
        if passed != _normal(row.talk):
            verdict.mismatches.append(f"passed on {_short(passed)!r}" if passed else "nothing passed on")
        elif after.talk and SITUATIONS[row.situation].teams and any(t.to_team is None for t in after.talk):
            verdict.mismatches.append("partner talk went to the whole table")
    return verdict


def _judge_safety(verdict: Verdict, turn: Turn, after: _After) -> None:
    lines, secrets = _ours(turn)
    for talk in after.talk:
        said = [_normal(line) for line in talk.text.split("\n")]
        if any(line in lines for line in said) or OUR_HOST in talk.text or any(s in talk.text for s in secrets):
            verdict.hard.append(f"our email was passed on: {_short(talk.text)!r}")
    for other in after.others:
        if any(s in other.text_body or s in other.html_body for s in secrets):
            verdict.hard.append(f"the writer's links reached {other.to_addr} ({other.kind})")
    if after.talk and not turn.talk_listeners:
        verdict.hard.append("words passed on where nobody may hear them (no table talk, or a bot partner)")
