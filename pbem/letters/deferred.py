"""The emails written at delivery: their writers (`DEFERRED`), handed to the mail transport at
start-up (`register_writers`, from `create_app`, which the worker and the CLI run too), and the
reminder, the one of them queued by the turn clock (pbem/games/clocks/reminders.py claims the
due ones; the admin's nudge is `queue_nudge`).

A row queued with `write_at_delivery` (pbem/letters/send.py) names its writer; just before
sending, the delivery worker calls it: it builds the full email (hand, table, one signed link
per legal move, time left) from the game as it is then, or cancels the row (status "cancelled",
with the reason) when its turn is over or its address changed. Rendering 1,000 full reminders
inside one sweep would take seconds; spread over delivery each costs what a turn email costs,
and the links are the freshest possible.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session

import pbem.i18n as i18n
from pbem.i18n import lazy
from pbem.config import Config
from pbem.letters import emails, notify
from pbem.letters.emails import reminder_extra
from pbem.letters.send import build, queue, wants_mail
from pbem.mail.outbox import Email, OutboxRow
from pbem.mail.writers import Cancel, register_writer
from pbem.models import Game, GameStatus, OutboxMessage, Seat
from pbem.refusals import Refusal, declare_refusals
from pbem.schedule import is_clocked, on_vacation
from pbem.store import load_state

KIND = "reminder"
# The text of a reminder not rendered yet (also what the admin outbox page shows for it).
DEFERRED_TEXT = ("This reminder is written from the game as it stands just before it is sent: "
                 "the player's hand, the table and fresh move links.")


declare_refusals({  # why the admin's nudge sends no reminder
    "nobody_human_to_move": (lazy("Nobody (human) is to move in this game."), 409),
    "no_address_to_remind": (lazy('%(name)s has no email address: set one with "change email".'), 409),
    "reminders_switched_off": (lazy("%(name)s has switched reminders off; "
                                    "resend the turn email instead (it always goes out)."), 409),
    "reminder_after_vacation": (lazy("%(name)s is on vacation: reminders wait until they are back."), 409),
})


def no_reminder_reason(seat: Seat | None, now: datetime) -> Refusal | None:
    """Why the seat to move gets no reminder now (the admin's nudge says it), or None."""
    if seat is None or not is_clocked(seat):
        return Refusal("nobody_human_to_move")
    if not wants_mail(seat):
        return Refusal("no_address_to_remind", {"name": seat.name})
    if seat.unsubscribed:
        return Refusal("reminders_switched_off", {"name": seat.name})
    if on_vacation(seat, now):
        return Refusal("reminder_after_vacation", {"name": seat.name})
    return None


def wants_reminder(seat: Seat | None, now: datetime) -> bool:
    return no_reminder_reason(seat, now) is None


def queue_reminder(session: Session, cfg: Config, game: Game, seat: Seat, now: datetime) -> OutboxRow | None:
    """Queue a reminder written at delivery (`DEFERRED`)."""
    # Stamped with the instant of the claim (the sweep's clock): a turn started after it makes
    # the reminder stale at delivery.
    return queue(session, cfg, KIND, seat, {"game": {"name": game.name}, **reminder_extra(game, seat, now)},
                 game=game, write_at_delivery=DEFERRED_TEXT, now=now)


def queue_nudge(session: Session, cfg: Config, game: Game, seat: Seat, now: datetime) -> OutboxRow | None:
    """The admin's nudge: a reminder outside the ladder, queued like the sweep's (written, or
    cancelled if the turn is over by then, at delivery)."""
    return queue_reminder(session, cfg, game, seat, now)


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
