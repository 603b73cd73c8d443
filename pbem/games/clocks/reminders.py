"""Due reminders: claimed a chunk at a time by the sweep, rendered when the worker sends them.

The sweep (`queue_due_reminders`) takes a chunk of due games in ONE short transaction: it locks
the rows that are still due (PostgreSQL: FOR UPDATE SKIP LOCKED, so a second worker skips them;
SQLite: the transaction is BEGIN IMMEDIATE), moves each game to its next ladder step with one
executemany UPDATE and queues the reminders with one multi-row INSERT. The claim and its outbox
rows commit together: a crash loses nothing and sends nothing twice.

Turn, timeout and game-over emails and the admin's nudge are queued and written the same way
(`DEFERRED`, the writers `register_writers` hands the mail transport at start-up); a turn email
is cancelled when the game moved on from the turn it announced.

The outbox row is queued with `deferred="reminder"` (its writer; `DEFERRED_TEXT` as its text for
the admin outbox page, no HTML; the subject is already there). Just before sending, the delivery
worker calls that writer, which builds the full reminder (hand, table, one signed link per legal
move, time left) from the game as it is then, or cancels the row (status "cancelled", with the
reason) when that seat's turn is already over. Rendering 1,000 full emails inside one sweep would
take seconds; spread over delivery it costs what a turn email costs, and the links are the freshest possible.
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm import QueryableAttribute, load_only
from sqlmodel import Session, col, select

from pbem.letters import emails
import pbem.i18n as i18n
from pbem.letters.emails import reminder_extra
from pbem.schedule import is_clocked, next_reminder, on_vacation
from pbem.letters.send import build, queue, wants_mail
from pbem.config import Config
from pbem.db import batched_writes
from pbem.letters import notify
from pbem.games.service import load_state
from pbem.mail.outbox import Email, OutboxRow
from pbem.mail.writers import Cancel, register_writer
from pbem.models import Game, GameStatus, OutboxMessage, Seat

log = logging.getLogger("pbem.games.clocks")
KIND = "reminder"
CHUNK = 200  # games claimed per transaction: short locks, few round trips
# The text of a reminder not rendered yet (also what the admin outbox page shows for it).
DEFERRED_TEXT = ("This reminder is written from the game as it stands just before it is sent: "
                 "the player's hand, the table and fresh move links.")


def _attributes(*attributes: Any) -> tuple[QueryableAttribute[Any], ...]:
    """Model attributes as load_only takes them: SQLModel types them as their values, not as the
    instrumented attributes they are on the class."""
    return attributes


_CLAIM_COLUMNS = (
    load_only(*_attributes(Game.id, Game.name, Game.thread_id, Game.deadline_at, Game.deadline_hours,
                           Game.reminders, Game.reminders_sent, Game.next_reminder_at, Game.on_timeout)),
    load_only(*_attributes(Seat.id, Seat.game_id, Seat.position, Seat.email, Seat.kind,
                           Seat.handed_to_bot, Seat.unsubscribed, Seat.timezone, Seat.vacation_start,
                           Seat.vacation_end, Seat.link_nonce,  # the nonce signs the unsubscribe link
                           Seat.language,  # the reminder's subject is in the seat's language
                           Seat.left_game)),
)


def no_reminder_reason(seat: Seat | None, now: datetime) -> str | None:
    """Why the seat to move gets no reminder now (the admin's nudge says it), or None."""
    if seat is None or not is_clocked(seat):
        return "Nobody (human) is to move in this game."
    if not wants_mail(seat):
        return f'{seat.name} has no email address: set one with "change email".'
    if seat.unsubscribed:
        return (f"{seat.name} has switched reminders off; "
                "resend the turn email instead (it always goes out).")
    if on_vacation(seat, now):
        return f"{seat.name} is on vacation: reminders wait until they are back."
    return None


def wants_reminder(seat: Seat | None, now: datetime) -> bool:
    return no_reminder_reason(seat, now) is None


def _queue_reminder(session: Session, cfg: Config, game: Game, seat: Seat, now: datetime) -> OutboxRow | None:
    """Queue a reminder written at delivery (`DEFERRED`)."""
    # Stamped with the instant of the claim (the sweep's clock): a turn started after it makes
    # the reminder stale at delivery.
    return queue(session, cfg, KIND, seat, {"game": {"name": game.name}, **reminder_extra(game, seat, now)},
                 game=game, write_at_delivery=DEFERRED_TEXT, now=now)


def queue_nudge(session: Session, cfg: Config, game: Game, seat: Seat, now: datetime) -> OutboxRow | None:
    """The admin's nudge: a reminder outside the ladder, queued like the sweep's (written, or
    cancelled if the turn is over by then, at delivery)."""
    return _queue_reminder(session, cfg, game, seat, now)


def queue_due_reminders(session: Session, cfg: Config, game_ids: list[int], now: datetime) -> int:
    """Claim the still-due reminders of `game_ids` and queue their emails; returns how many."""
    found = session.exec(
        select(Game, Seat)
        .outerjoin(Seat, (col(Seat.game_id) == col(Game.id)) & (col(Seat.position) == col(Game.to_move)))
        .where(col(Game.id).in_(game_ids), Game.status == GameStatus.RUNNING,
               col(Game.next_reminder_at) <= now)
        .options(*_CLAIM_COLUMNS)
        .with_for_update(of=Game, skip_locked=True)
    ).all()
    steps, rows = [], []
    with batched_writes(session):  # the outbox rows: one multi-row INSERT
        for game, seat in found:
            if game.deadline_at is not None and game.deadline_at <= now:
                continue  # the timeout comes first; the timeout email says what happened
            # Nobody (human) to move any more gives (last step, None): the stale time is dropped.
            step, next_at = next_reminder(game, seat, game.reminders_sent + 1, not_before=now)
            steps.append({"gid": game.id, "next_at": next_at, "step": step})
            row = _queue_reminder(session, cfg, game, seat, now) if wants_reminder(seat, now) else None
            if row is not None:
                rows.append(row)
    if not steps:
        return 0
    table = Game.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__
    connection = session.connection()
    connection.execute(
        update(table).where(table.c.id == bindparam("gid"))
        .values(next_reminder_at=bindparam("next_at"), reminders_sent=bindparam("step")), steps)
    log.info("reminders queued=%s claimed=%s games=%s", len(rows), len(steps),
             [r["game_id"] for r in rows])
    return len(rows)


# ---------------------------------------------------------------- at delivery
@i18n.speaking_to("seat")
def reminder_email(session: Session, cfg: Config, game: Game, seat: Seat, now: datetime) -> Email:
    """The full reminder: the turn email's content with fresh links, plus the time left."""
    context = notify.seat_context(session, cfg, game, seat, load_state(game))
    context.update(reminder_extra(game, seat, now))
    return build(cfg, KIND, seat, context, headers={"Reply-To": notify.reply_to(cfg, game, seat)})


def stale_reason(game: Game | None, seat: Seat | None, row: OutboxMessage, now: datetime) -> str | None:
    """Why a queued reminder must not go out any more, or None."""
    if game is None or seat is None or game.status != GameStatus.RUNNING:
        return "the game is no longer running"
    if game.to_move != seat.position or (game.turn_started_at is not None
                                         and game.turn_started_at > row.created_at):
        return "the turn was over before the reminder went out"
    if game.deadline_at is not None and game.deadline_at <= now:
        return "the deadline passed before the reminder went out"
    if (seat.email or "").lower() != row.to_addr.lower():
        return "the player's email address changed"
    if not wants_reminder(seat, now):
        return "the player no longer gets reminders (unsubscribed, on vacation or played by the bot)"
    return None


Params = dict[str, Any]


@dataclass(frozen=True)
class Deferred:
    """The writer of an email kind queued with `deferred=<kind>` and written by the delivery
    worker just before it is sent (a `pbem.mail.writers.Writer`)."""

    stale: Callable[[Game | None, Seat | None, OutboxMessage, Params, datetime], str | None]  # why not send
    write: Callable[[Session, Config, Game, Seat, OutboxMessage, Params, datetime], Email]

    def __call__(self, session: Session, cfg: Config, row: OutboxMessage, params: Params,
                 now: datetime) -> Email | Cancel:
        game = session.get(Game, row.game_id) if row.game_id is not None else None
        seat = session.get(Seat, row.seat_id) if row.seat_id is not None else None
        reason = self.stale(game, seat, row, params, now)
        if reason is not None:
            return Cancel(reason)
        assert game is not None and seat is not None
        return self.write(session, cfg, game, seat, row, params, now)


DEFERRED: dict[str, Deferred] = {
    KIND: Deferred(lambda game, seat, row, params, now: stale_reason(game, seat, row, now),
                   lambda session, cfg, game, seat, row, params, now: reminder_email(
                       session, cfg, game, seat, now)),
    "turn": Deferred(lambda game, seat, row, params, now: notify.turn_stale_reason(game, seat, row, params),
                     lambda session, cfg, game, seat, row, params, now: notify.deferred_turn_email(
                         session, cfg, game, seat, params)),
    "timeout_autoplay": Deferred(lambda game, seat, row, params, now: notify.address_stale_reason(seat, row),
                                 lambda session, cfg, game, seat, row, params, now: emails.timeout_autoplay_email(
                                     cfg, game, seat, row, params)),
    "game_over": Deferred(lambda game, seat, row, params, now: notify.address_stale_reason(seat, row),
                          lambda session, cfg, game, seat, row, params, now: notify.game_over_email(
                              session, cfg, game, seat)),
}


def register_writers() -> None:
    """Hand the mail transport the writers of the emails written at delivery (at start-up:
    `create_app`, which the worker and the CLI run too)."""
    for name, deferred in DEFERRED.items():
        register_writer(name, deferred)
