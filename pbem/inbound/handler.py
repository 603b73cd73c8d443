"""The one handler both receivers (SMTP, IMAP) call with a received email.

Who may play: the reply must go to a reply address we signed (`pbem.links.reply_address`) for
a seat, come From that seat's own address (exactly one From, one plain address), and not fail
DMARC at our own server. Anything else is dropped without an answer (answering a forged From
is backscatter), as is every message a machine sent (auto-replies, bounces: no mail loops). A
Message-ID acts once. Only replies with a verified token count against the sender's hourly limit.

What is read: only the writer's own new text (`quotes.strip_quotes`, which also cuts at the
first line of an email we sent that seat), and a move only when it is named without doubt
(`commands.read_reply`); what the reply asks for is a row of `COMMANDS` (a move, or talk).
Words go to the partner or the table only when the writer meant them:
a `say` line always, the reply's other lines only with a move that was played, everything sent
to a talk address (`links.talk_address`: the Reply-To of a talk email).

Every other reply is answered, to the seat's stored address: played, not played and why, the
game moved on, the game is over or paused, and what was passed on to whom. The move goes
through `service.apply_game_move`, as a move link's does: the same version check, move log,
emails and audit.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import engine
from engine.view_types import PlayerView
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from pbem import i18n, links, metrics
from pbem.config import Config
from pbem.db import session_scope
from pbem.games import errors, service, talk
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.inbound import bounces, commands, ours, quotes
from pbem.inbound.bounds import Rejected
from pbem.inbound.message import Inbound, read_message
from pbem.refusals import Refusal
from pbem.letters import replies
from pbem.present import phrases
from pbem.present.names import named_view
from pbem.letters.heard import take_unread
from pbem.models import Game, InboundMail, OutboxMessage, Seat, utcnow
from pbem.store import load_state

log = logging.getLogger("pbem.inbound")

# Replies per sender address and hour past which nothing is read (counted in the database, so
# every receiver process shares it); the first one over the limit is answered, then silence.
# Only replies that carry a verified token of one of that address's seats count.
MAX_REPLIES_PER_HOUR = 120  # a live game of two eager players sends about one a minute each
COUNTED = ("played", "refused", "talk", "flood")  # the outcomes of a verified reply
# The emails we sent a seat that its reply may quote: the one it answers and the latest few.
OUR_LATEST_EMAILS = 4

# The reasons an answer gives (msgids of the `pages` catalog: written in the seat's language).
MOVED_ON = lazy("The game has moved on since the email you answered: nothing was played. Here is the game now.")
NOT_YOUR_TURN = lazy("It is not your turn: nothing was played.")
NO_MOVE = lazy("Your reply had no move in it that we could read.")
TALK_ONLY = lazy("your reply had no move in it, only words for your partner.")
TALK_ONLY_TABLE = lazy("your reply had no move in it, only words for the table.")
FLOOD = lazy("You sent more than %(limit)s replies in an hour: replies from your address are not read for a "
             "while. Nothing was played.")
TALK_NOT_PASSED = lazy("The game is not running, so the words in your reply were not passed on.")
NOT_PLAYED_NOT_PASSED = lazy("Nothing was played, so the other words of your reply were not passed on.")
SAY_TO_TALK = lazy('Nothing was passed on: to send words without a move, start your reply with "say".')
NO_MOVES_BY_TALK = lazy("Replies to a talk email pass words on and play no move: to move, reply to your "
                        "latest turn email or open one of its links.")
WENT_TO = lazy("Your words went to %(listeners)s: “%(words)s”")
WENT_TO_CUT = lazy("Your words went to %(listeners)s, shortened to fit: “%(words)s”")
WENT_TO_TABLE = lazy("Your words went to the whole table (%(listeners)s): “%(words)s”")
WENT_TO_TABLE_CUT = lazy("Your words went to the whole table (%(listeners)s), shortened to fit: “%(words)s”")


@dataclass(frozen=True)
class Handled:
    """What became of one received email (logged, stored, and what the tests look at)."""

    outcome: str  # played | refused | talk | flood | ignored | bounce | complaint (pbem/inbound/bounces.py)
    reason: str
    answered: bool = False
    game_id: int | None = None
    passed_on: str = ""  # the words that went to the partner or the table ("" for none)


def handle_message(db: Engine, cfg: Config, raw: bytes, *, envelope_from: str | None = None,
                   envelope_rcpts: Iterable[str] = (), now: datetime | None = None) -> Handled:
    """Read one received email and act on it once (see the module docstring). Raises
    `bounds.Rejected` (nothing stored: the receiver answers its 5xx code, the IMAP poller
    quarantines it) for a message over a bound or malformed."""
    mail: Inbound | None = None
    try:
        if bounces.to_bounce_address(cfg, envelope_rcpts):  # a report: no reply is read in it
            report: bounces.Report | None = bounces.read_report(raw, envelope_rcpts)
        else:
            mail = read_message(raw, envelope_from=envelope_from, envelope_rcpts=envelope_rcpts,
                                authserv_id=links.reply_domain(cfg))
            report = bounces.report_of(mail, raw) if bounces.is_bounce_mail(cfg, mail) else None
    except Rejected as exc:
        log.info("reply rejected (%s): %s", exc.code, exc.reason)
        raise
    now = now or utcnow()
    if report is not None:
        message_id, from_addr = report.message_id, report.from_addr
    else:
        assert mail is not None
        message_id, from_addr = mail.message_id, mail.from_addr
    try:
        with session_scope(db) as session:
            if session.exec(select(InboundMail.id).where(InboundMail.message_id == message_id)).first():
                return _logged(Handled("ignored", "duplicate Message-ID: acted on once already"))
            if report is not None:  # the envelope sender's mail (a bounce, a complaint): never a reply
                outcome, reason, game_id = bounces.handle_bounce(session, cfg, report, now)
                handled = Handled(outcome, reason, game_id=game_id)
            else:
                assert mail is not None
                token = next((t for t in (links.parse_reply_address(cfg, a) for a in mail.recipients) if t), None)
                handled = _handle(session, cfg, mail, token, now)
            session.add(InboundMail(message_id=message_id, from_addr=from_addr[:254],
                                    game_id=handled.game_id, outcome=handled.outcome, received_at=now))
            session.flush()
    except IntegrityError:  # the same message delivered twice at once: the other one acted
        return _logged(Handled("ignored", "duplicate Message-ID: acted on once already"))
    return _logged(handled)


def _logged(handled: Handled) -> Handled:
    metrics.REPLIES.labels(handled.outcome, metrics.reason_label(handled.reason)).inc()
    log.info("reply %s: %s", handled.outcome, handled.reason,
             extra={"game_id": handled.game_id, "answered": handled.answered})
    return handled


def _handle(session: Session, cfg: Config, mail: Inbound, token: links.ReplyToken | None,
            now: datetime) -> Handled:
    if mail.machine:
        return Handled("ignored", f"sent by a machine ({mail.machine}): never answered")
    if mail.sender_problem:
        return Handled("ignored", f"sender not one plain address ({mail.sender_problem}): never answered")
    if token is None:
        return Handled("ignored", "not sent to a reply address of ours")
    try:
        game, seats = service.lock_game_with_seats(session, token.game_id)
    except errors.NotFound:
        return Handled("ignored", "no such game")
    seat = next((s for s in seats if s.position == token.position), None)
    if seat is None or not seat.email or seat.email.strip().lower() != mail.from_addr:
        return Handled("ignored", "From is not the seat's address: never answered", game_id=game.id)
    if mail.dmarc_failed:
        return Handled("ignored", "DMARC failed at our server: never answered", game_id=game.id)
    if not links.reply_signed(cfg, token, seat.link_nonce):
        return Handled("ignored", "token does not verify: never answered", game_id=game.id)
    with i18n.using(getattr(seat, "language", None)):  # every word of the answer: the seat's language
        return _answered(session, cfg, mail, token, game, seats, seat, now)


def _answered(session: Session, cfg: Config, mail: Inbound, token: links.ReplyToken, game: Game,
              seats: list[Seat], seat: Seat, now: datetime) -> Handled:
    """A verified reply from the seat's own address: played, or answered with why not."""
    state = load_state(game)
    if _replies_this_hour(session, mail.from_addr, now) >= MAX_REPLIES_PER_HOUR:
        if _replies_this_hour(session, mail.from_addr, now, outcomes=("flood",)) > 0:
            return Handled("flood", "rate-limited: not answered again", game_id=game.id)
        answered = _answer(session, cfg, game, seat, state, reason=_(FLOOD, limit=MAX_REPLIES_PER_HOUR))
        return Handled("flood", "rate-limited", answered, game.id)
    return _Reply(session, cfg, game, seats, seat, state, mail, token, now).act()


def _replies_this_hour(session: Session, address: str, now: datetime,
                       outcomes: tuple[str, ...] = COUNTED) -> int:
    query = select(func.count()).select_from(InboundMail).where(
        InboundMail.from_addr == address, col(InboundMail.received_at) > now - timedelta(hours=1),
        col(InboundMail.outcome).in_(outcomes))
    return int(session.exec(query).one())


class _Reply:
    """One verified reply read against the seat's game: what it plays and what it says."""

    def __init__(self, session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat,
                 state: engine.GameState, mail: Inbound, token: links.ReplyToken, now: datetime) -> None:
        self.session, self.cfg, self.game, self.seats, self.seat = session, cfg, game, seats, seat
        self.state, self.mail, self.token, self.now = state, mail, token, now
        self.view = named_view(engine.player_view(state, seat.position), seats)
        self.labels = move_labels(self.view, seat.language, seats)
        ours = our_email(session, cfg, seat, mail.answered_ids, self.labels)
        self.reading = commands.read_reply(
            quotes.strip_quotes(mail.text, ours), self.view["legal_moves"], labels=self.labels,
            languages=reading_languages(seat.language), own_names=own_names(seat.name))
        self.notes: list[str] = []
        self.passed = ""

    def act(self) -> Handled:
        """What every reply goes through, then the command it asks for (`COMMANDS`)."""
        reading = self.reading
        refused = self._refusal(None)  # the game is not running: paused, over or stopped
        if refused is not None:
            if reading.said or reading.remarks:
                self.notes.append(_(TALK_NOT_PASSED))
            return self._worded(refused)
        if self.token.talk:
            self._pass_on([*reading.said, *reading.remarks])
            if reading.command is not None:
                self.notes.append(_(NO_MOVES_BY_TALK))
            return self._talked() if self.passed else self._refused("talk address, nothing to pass on", _(NO_MOVE))
        self._pass_on(reading.said)
        refused = self._refusal(self.token.version)  # the turn emailed is over
        if refused is not None:
            return self._worded(refused)
        command = next(c for c in COMMANDS if c.asked(reading))
        done = command.act(self)
        return done if isinstance(done, Handled) else command.answer(self, done)

    def _play(self) -> Handled | service.MoveOutcome:
        """The move the reply names, played as a move link's is; a Handled when it is refused."""
        reading = self.reading
        if reading.move is None:
            return self._refused(reading.problem or "no move", reading.problem or self._no_move())
        refused = self._refusal(self.token.version, player=self.seat)  # a bot plays the seat
        if refused is not None:
            return self._worded(refused)
        try:
            return service.apply_game_move(self.session, self.cfg, self.game.id, self.seat.position,  # type: ignore[arg-type]  # stored: its id is set
                                           reading.move, expected_version=self.token.version,
                                           source="player", now=self.now, game=self.game, seats=self.seats)
        except errors.GameError as exc:
            return self._refused(exc.message, exc)

    def _played(self, outcome: service.MoveOutcome) -> Handled:
        """The reply's other lines go on with the move played, and the answer says what happened."""
        self._pass_on(self.reading.remarks)
        after = load_state(self.game)
        happened = [phrases.describe_event(e, after.players, self.seat.position) for e in outcome.events]
        played = phrases.describe_move(outcome.move, self.view)
        answered = self._answer(after, played=played, happened=happened)
        return Handled("played", played, answered, self.game.id, self.passed)

    def _talk(self) -> Handled | None:
        """Words only: the say lines went on already (None: nothing more to do); when nothing
        went, the reply is refused as having no move."""
        reading = self.reading
        if self.passed:
            return None
        if reading.remarks and not reading.said and talk.refusal(self.game, self.seats, self.seat) is None:
            self.notes.append(_(SAY_TO_TALK))
        return self._refused("no move", self._no_move())

    def _refusal(self, version: int | None, player: Seat | None = None) -> errors.GameError | None:
        """Why the domain refuses a move of this seat now (`service.refusal`, its rules left to
        the move itself): not running; with `version`, the turn emailed is over; with `player`,
        a bot plays the seat."""
        return service.refusal(self.session, self.game, self.seat.position, self.reading.move or {}, version,
                               check_rules=False, player=player)

    def _worded(self, refused: errors.GameError) -> Handled:
        """A refusal of the domain answered: its kind for the log, its sentence (an old turn in
        the words of an email answered, not of a link) for the seat."""
        if isinstance(refused, errors.StaleMove):
            return self._refused("old turn", _(MOVED_ON), since=self.token.version)
        if isinstance(refused, errors.GameNotRunning):
            return self._refused(self.game.status, refused)
        if isinstance(refused, errors.SeatHandedToBot):
            return self._refused("bot plays", refused)
        return self._refused(refused.message, refused)

    def _no_move(self) -> str:
        return _(NO_MOVE if self.state.to_move == self.seat.position else NOT_YOUR_TURN)

    def _pass_on(self, lines: list[str]) -> None:
        """Pass `lines` on to the partner or the table, and note for the answer what went to whom."""
        if not lines:
            return
        said = talk.say(self.session, self.cfg, self.game, self.seats, self.seat, "\n".join(lines), self.now)
        if said.refused:
            self.notes.append(said.refused_text)
        elif said.listeners:
            self.passed = "\n".join(filter(None, [self.passed, said.text]))
            listeners = _(" and ").join(said.listeners)
            message = (WENT_TO_TABLE_CUT if said.cut else WENT_TO_TABLE) if said.to_table \
                else (WENT_TO_CUT if said.cut else WENT_TO)
            self.notes.append(_(message, listeners=listeners, words=said.text))

    def _talked(self) -> Handled:
        reason = _(TALK_ONLY_TABLE if not self.game.teams else TALK_ONLY)
        return Handled("talk", "words passed on only", self._answer(self.state, reason=reason), self.game.id,
                       self.passed)

    def _refused(self, why: str, reason: str | Refusal, since: int | None = None) -> Handled:
        """Not played: `why` for the log, `reason` for the seat (a refusal is worded in its
        language by the answer)."""
        if self.reading.remarks and not self.passed and not self.notes and self.reading.command is not None:
            self.notes.append(_(NOT_PLAYED_NOT_PASSED))
        return Handled("refused", why, self._answer(self.state, reason=reason, since=since), self.game.id,
                       self.passed)

    def _answer(self, state: engine.GameState, **kwargs: Any) -> bool:
        heard = take_unread(self.session, self.game, self.seats, self.seat, self.now)
        return replies.queue_answer(self.session, self.cfg, self.game, self.seat, state, notes=self.notes,
                                    heard=heard, **kwargs) is not None


@dataclass(frozen=True)
class Command:
    """One thing a reply may ask for: `asked` reads whether the reading asks for it, `act` does
    it in the domain (a Handled when refused, else what it did) and `answer` answers that. The
    first row whose `asked` is true acts: a new command ("status", "leave") is one row, before
    talk, with its words in `vocabulary` and its reading in `commands.read_reply`."""

    name: str
    asked: Callable[[commands.Reading], bool]
    act: Callable[[_Reply], Any]
    answer: Callable[[_Reply, Any], Handled]


COMMANDS: tuple[Command, ...] = (
    Command("move", lambda reading: reading.command is not None, _Reply._play, _Reply._played),
    # no command line: the reply is words only (a reading with a problem always has its command line)
    Command("talk", lambda reading: True, _Reply._talk, lambda reply, _done: reply._talked()),
)


def _answer(session: Session, cfg: Config, game: Game, seat: Seat, state: engine.GameState, **kwargs: Any) -> bool:
    return replies.queue_answer(session, cfg, game, seat, state, **kwargs) is not None


def reading_languages(language: str | None) -> tuple[str, ...]:
    """The languages a seat's reply is read in: its own, then English."""
    own = language if language in i18n.LANGUAGES else "en"
    return (own,) if own == "en" else (own, "en")


def own_names(name: str) -> list[str]:
    """The writer's seat name and its words ("Ann Smith", "Ann", "Smith"): a signature, never talk."""
    return [name, *name.split()] if len(name.split()) > 1 else [name]


def move_labels(view: PlayerView, language: str | None, seats: Sequence[Seat] = ()) -> list[list[str]]:
    """For each legal move of `view`, the labels our emails print for it: in the seat's language
    and in English (the same presenter as the emails, `phrases.describe_move`), the bots named
    in each (`seats`: the game's)."""
    labels: list[list[str]] = [[] for _ in view["legal_moves"]]
    for lang in reading_languages(language):
        with i18n.using(lang):
            named = named_view(view, seats) if seats else view
            for i, move in enumerate(view["legal_moves"]):
                text = phrases.describe_move(move, named)
                if text not in labels[i]:
                    labels[i].append(text)
    return labels


def our_email(session: Session, cfg: Config, seat: Seat, answered_ids: Iterable[str],
              labels: list[list[str]]) -> ours.OurEmail:
    """What we sent `seat` that its reply may quote: the email it answers (by Message-ID) and the
    latest ones, their text and HTML; the move labels as printed; our link hosts."""
    sent = (col(OutboxMessage.seat_id) == seat.id, col(OutboxMessage.deferred).is_(None))
    # The latest emails' text parts, and the HTML of the one answered only: reading our HTML
    # twice per email cost a reply 60 ms (`python -m benchmarks.inbound_bench`: 51 -> 22 a second).
    texts = list(session.exec(select(OutboxMessage.text_body).where(
        *sent, col(OutboxMessage.game_id) == seat.game_id)  # by ix_outbox_game_created, not the id
        .order_by(col(OutboxMessage.created_at).desc()).limit(OUR_LATEST_EMAILS)).all())
    ids = [i for i in answered_ids if i][:3]
    if ids:
        for text, html in session.exec(select(OutboxMessage.text_body, OutboxMessage.html_body).where(
                *sent, col(OutboxMessage.message_id).in_(ids))).all():
            texts += [text, html]  # ours.our_email reads HTML too
    printed = [line for i, texts_of_move in enumerate(labels, 1) for label in texts_of_move
               for line in (label, f"{i}. {label}")]
    hosts = [h for h in (urlsplit(cfg.BASE_URL).hostname, links.reply_domain(cfg)) if h]
    return ours.our_email(texts, printed, hosts)
