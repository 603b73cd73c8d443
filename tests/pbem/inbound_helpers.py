"""Helpers of the reply-by-email tests: replies built as mail clients write them, sent over real
SMTP to the inbound receiver, and the answers read from the test SMTP server."""
from __future__ import annotations

import smtplib
from email.message import EmailMessage
from email.utils import make_msgid

import engine
import pytest
from game_helpers import cfg_of, db_of, text_part
from smtp_fakes import free_port
from sqlmodel import col, select

from pbem.db import session_scope
from pbem import store
from pbem.inbound import smtp as inbound_smtp
from pbem.models import Game, OutboxMessage

# How each language writes a move in a reply (the parser reads every language).
_COLOURS = {"en": {"G": "green", "B": "blue", "R": "red", "K": "black"},
            "fr": {"G": "vert", "B": "bleu", "R": "rouge", "K": "noir"}}
_ATTRIBUTION = {"en": "On Tue, Dec 1, 2026 at 10:00 AM Korsar <korsar@korsar.test> wrote:",
                "fr": "Le mar. 1 déc. 2026 à 10:00, Korsar <korsar@korsar.test> a écrit :"}


def card_words(card: str, lang: str) -> str:
    """A card's name as a player of `lang` types it (English players type the code)."""
    if lang == "en":
        return card
    if card.startswith("M"):
        return f"marchand {card[1]}"
    if card == "AD":
        return "amiral"
    if card.endswith("C"):
        return f"capitaine {_COLOURS['fr'][card[0]]}"
    return f"corsaire {_COLOURS['fr'][card[0]]} {card[1]}"


def move_words(move: dict, lang: str) -> str:
    """`move` as a player of `lang` would type it."""
    card, target = move.get("card", ""), move.get("target")
    if move["action"] == "draw":
        return {"en": "draw", "fr": "piocher"}[lang]
    if move["action"] == "discard":
        return {"en": "discard ", "fr": "défausser "}[lang] + card_words(card, lang)
    if target is None:
        return card_words(card, lang)
    if lang == "fr":
        return f"{card_words(card, lang)} sur {target}"
    if card == "AD":
        return f"admiral {target}"
    return f"{card} {target}" if card.endswith("C") else f"attack {target} with {card}"


def reply_to(original: EmailMessage, sender: str, body: str, *, lang: str = "en", quote: bool = True,
             headers: dict[str, str] | None = None) -> EmailMessage:
    """A reply to `original` as a mail client writes it: To its Reply-To, quoting it."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = str(original["Reply-To"])
    msg["Subject"] = "Re: " + str(original["Subject"])
    msg["Message-ID"] = make_msgid(domain="example.com")
    msg["In-Reply-To"] = str(original["Message-ID"])
    for name, value in (headers or {}).items():
        msg[name] = value
    quoted = "\n".join("> " + line for line in text_part(original).splitlines()[:30])
    msg.set_content(f"{body}\n\n{_ATTRIBUTION[lang]}\n{quoted}\n" if quote else body + "\n")
    return msg


def send(port: int, msg: EmailMessage | bytes, *, sender: str | None = None,
         rcpts: list[str] | None = None) -> None:
    """Send over real SMTP to the receiver on 127.0.0.1:`port`."""
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        if isinstance(msg, bytes):
            smtp.sendmail(sender or "", rcpts or [], msg)
        else:
            smtp.send_message(msg, from_addr=sender, to_addrs=rcpts)


def latest(smtp_server, address: str, words: str = "") -> EmailMessage:
    """The newest email to `address` (whose subject contains `words`)."""
    found = [m for m in smtp_server.to(address) if words in str(m["Subject"])]
    assert found, f"no email with {words!r} to {address}"
    return found[-1]


def game_state(app, game_id: int) -> tuple[Game, engine.GameState]:
    with session_scope(db_of(app)) as session:
        game = session.get(Game, game_id)
        assert game is not None
        return game, store.load_state(game)




@pytest.fixture
def receiver(app):
    """The inbound SMTP receiver of the app's database, on a free port (in this process)."""
    controller = inbound_smtp.controller(db_of(app), cfg_of(app), host="127.0.0.1", port=free_port())
    controller.start()
    yield controller.port
    controller.stop()


def outbox_ids(app) -> set[int]:
    with session_scope(db_of(app)) as session:
        return set(session.exec(select(OutboxMessage.id)).all())


def new_mail(app, before: set[int]) -> list[OutboxMessage]:
    """The outbox rows queued since `before` (answers are queued, the worker sends them)."""
    with session_scope(db_of(app)) as session:
        return [r for r in session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all()
                if r.id not in before]
