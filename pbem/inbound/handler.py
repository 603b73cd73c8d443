"""The one handler both receivers (SMTP, IMAP) call with a received email.

Who may play: the reply must go to a reply address we signed (`pbem.links.reply_address`) for
a seat, come From that seat's own address, and not fail DMARC at our own server. Anything else
is dropped without an answer (answering a forged From is backscatter), as is every message a
machine sent (auto-replies, bounces: no mail loops). A Message-ID acts once. Every other reply
is answered, to the seat's stored address: played, not played and why, the game moved on, the
game is over or paused. The move goes through `service.apply_game_move`, as a move link's does:
the same version check, move log, emails and audit.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

import engine
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem import links
from pbem.config import Config
from pbem.db import session_scope
from pbem.games import service, talk
from pbem.inbound import commands, quotes
from pbem.inbound.message import Inbound, TooLarge, read_message
from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.letters import board, replies
from pbem.letters.heard import take_unread
from pbem.models import Game, GameStatus, InboundMail, Seat, utcnow
from pbem.store import load_state

log = logging.getLogger("pbem.inbound")

# Replies per sender address and hour past which nothing is read (counted in the database, so
# every receiver process shares it); the first one over the limit is answered, then silence.
MAX_REPLIES_PER_HOUR = 120  # a live game of two eager players sends about one a minute each

# The reasons an answer gives (msgids of the `pages` catalog: written in the seat's language).
DAMAGED = lazy("This reply address is damaged or is not one of ours, so nothing was played. Reply to "
               "your latest email from the game (its reply address changes every turn).")
MOVED_ON = lazy("The game has moved on since the email you answered: nothing was played. Here is the game now.")
NOT_YOUR_TURN = lazy("It is not your turn: nothing was played.")
NO_MOVE = lazy("Your reply had no move in it that we could read.")
TALK_ONLY = lazy("your reply had no move in it, only words for your partner.")
FLOOD = lazy("You sent more than %(limit)s replies in an hour: replies from your address are not read for a "
             "while. Nothing was played.")
TALK_NOT_PASSED = lazy("The game is not running, so the words in your reply were not passed on.")
BOT_PLAYS = lazy("A bot plays your seat now; ask the game's admin to hand it back to you.")


@dataclass(frozen=True)
class Handled:
    """What became of one received email (logged, stored, and what the tests look at)."""

    outcome: str  # played | refused | talk | ignored
    reason: str
    answered: bool = False
    game_id: int | None = None


def handle_message(db: Engine, cfg: Config, raw: bytes, *, envelope_from: str | None = None,
                   envelope_rcpts: Iterable[str] = (), now: datetime | None = None) -> Handled:
    """Read one received email and act on it once (see the module docstring)."""
    try:
        mail = read_message(raw, envelope_from=envelope_from, envelope_rcpts=envelope_rcpts,
                            authserv_id=links.reply_domain(cfg))
    except TooLarge as exc:
        return _logged(Handled("ignored", f"too large: {exc}"))
    now = now or utcnow()
    token = next((t for t in (links.parse_reply_address(cfg, a) for a in mail.recipients) if t), None)
    try:
        with session_scope(db) as session:
            if session.exec(select(InboundMail.id).where(InboundMail.message_id == mail.message_id)).first():
                return _logged(Handled("ignored", "duplicate Message-ID: acted on once already"))
            handled = _handle(session, cfg, mail, token, now)
            session.add(InboundMail(message_id=mail.message_id, from_addr=mail.from_addr[:254],
                                    game_id=handled.game_id, outcome=handled.outcome, received_at=now))
            session.flush()
    except IntegrityError:  # the same message delivered twice at once: the other one acted
        return _logged(Handled("ignored", "duplicate Message-ID: acted on once already"))
    return _logged(handled)


def _logged(handled: Handled) -> Handled:
    log.info("reply %s: %s", handled.outcome, handled.reason,
             extra={"game_id": handled.game_id, "answered": handled.answered})
    return handled


def _handle(session: Session, cfg: Config, mail: Inbound, token: links.ReplyToken | None,
            now: datetime) -> Handled:
    if mail.machine:
        return Handled("ignored", f"sent by a machine ({mail.machine}): never answered")
    if token is None:
        return Handled("ignored", "not sent to a reply address of ours")
    try:
        game, seats = service.lock_game_with_seats(session, token.game_id)
    except service.NotFound:
        return Handled("ignored", "no such game")
    seat = next((s for s in seats if s.position == token.position), None)
    if seat is None or not seat.email or seat.email.strip().lower() != mail.from_addr:
        return Handled("ignored", "From is not the seat's address: never answered", game_id=game.id)
    if mail.dmarc_failed:
        return Handled("ignored", "DMARC failed at our server: never answered", game_id=game.id)
    with i18n.using(getattr(seat, "language", None)):  # every word of the answer: the seat's language
        return _answered(session, cfg, mail, token, game, seats, seat, now)


def _answered(session: Session, cfg: Config, mail: Inbound, token: links.ReplyToken, game: Game,
              seats: list[Seat], seat: Seat, now: datetime) -> Handled:
    """A reply from the seat's own address: played, or answered with why not."""
    state = load_state(game)
    if _replies_this_hour(session, mail.from_addr, now) >= MAX_REPLIES_PER_HOUR:
        if _replies_this_hour(session, mail.from_addr, now, outcome="flood") > 0:
            return Handled("flood", "rate-limited: not answered again", game_id=game.id)
        answered = _answer(session, cfg, game, seat, state, reason=_(FLOOD, limit=MAX_REPLIES_PER_HOUR))
        return Handled("flood", "rate-limited", answered, game.id)
    if not links.reply_signed(cfg, token, seat.link_nonce):
        return Handled("refused", "bad signature", _answer(session, cfg, game, seat, state, reason=_(DAMAGED)),
                       game.id)
    return _play(session, cfg, game, seats, seat, state, mail, token, now)


def _replies_this_hour(session: Session, address: str, now: datetime, outcome: str | None = None) -> int:
    query = select(func.count()).select_from(InboundMail).where(
        InboundMail.from_addr == address, col(InboundMail.received_at) > now - timedelta(hours=1))
    if outcome is not None:
        query = query.where(InboundMail.outcome == outcome)
    return int(session.exec(query).one())


def _play(session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat,
          state: engine.GameState, mail: Inbound, token: links.ReplyToken, now: datetime) -> Handled:
    if game.status != GameStatus.RUNNING:
        try:
            service.check_running(game)
        except service.GameError as exc:
            reason = exc.message
        # Words that would have gone to the partner (or the table) are not kept: say so.
        said = commands.read_reply(quotes.strip_quotes(mail.text), []).talk
        notes = [_(TALK_NOT_PASSED)] if said and (game.teams or game.table_talk) else []
        return Handled("refused", game.status, _answer(session, cfg, game, seat, state, reason=reason,
                                                       notes=notes), game.id)
    view = engine.player_view(state, seat.position)
    reading = commands.read_reply(quotes.strip_quotes(mail.text), view["legal_moves"])
    notes, heard, passed_on = _talk(session, cfg, game, seats, seat, reading.talk, now)
    if token.version != game.version:
        return Handled("refused", "old turn", _answer(session, cfg, game, seat, state, reason=_(MOVED_ON),
                                                      since=token.version, notes=notes, heard=heard), game.id)
    if reading.move is None:
        if reading.problem is None and passed_on:
            answered = _answer(session, cfg, game, seat, state, reason=_(TALK_ONLY), notes=notes, heard=heard)
            return Handled("talk", "words for the partner only", answered, game.id)
        reason = reading.problem or _(NO_MOVE if state.to_move == seat.position else NOT_YOUR_TURN)
        return Handled("refused", reason, _answer(session, cfg, game, seat, state, reason=reason,
                                                  notes=notes, heard=heard), game.id)
    if seat.handed_to_bot:
        return Handled("refused", "bot plays", _answer(session, cfg, game, seat, state, reason=_(BOT_PLAYS)), game.id)
    try:
        outcome = service.apply_game_move(session, cfg, game.id, seat.position, reading.move,  # type: ignore[arg-type]  # stored: its id is set
                                          expected_version=token.version, source="player", now=now,
                                          game=game, seats=seats)
    except service.GameError as exc:
        return Handled("refused", exc.message, _answer(session, cfg, game, seat, state, reason=exc.message,
                                                       notes=notes, heard=heard), game.id)
    after = load_state(game)
    happened = [board.describe_event(e, after.players, seat.position) for e in outcome.events]
    played = board.describe_move(outcome.move, view)
    answered = _answer(session, cfg, game, seat, after, played=played, happened=happened, notes=notes,
                       heard=heard)
    return Handled("played", played, answered, game.id)


def _talk(session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat, lines: list[str],
          now: datetime) -> tuple[list[str], list[dict[str, str]], bool]:
    """Pass the reply's words on; what to tell the speaker, the partner's unread words, and
    whether the words were passed on."""
    notes: list[str] = []
    passed_on = False
    if lines:
        said = talk.say(session, cfg, game, seats, seat, "\n".join(lines), now)
        if said.refused:
            notes.append(said.refused_text)
        elif said.listeners:
            passed_on = True
            listeners = _(" and ").join(said.listeners)
            notes.append(_("Your words went to %(listeners)s (shortened to fit).", listeners=listeners) if said.cut
                         else _("Your words went to %(listeners)s.", listeners=listeners))
    return notes, take_unread(session, game, seats, seat, now), passed_on


def _answer(session: Session, cfg: Config, game: Game, seat: Seat, state: engine.GameState, **kwargs: object) -> bool:
    return replies.queue_answer(session, cfg, game, seat, state, **kwargs) is not None  # type: ignore[arg-type]
