"""The emails of the scheduled side: reminders, timeouts, pauses, seats handed to the bot,
vacations, attack notices and the daily digest. Each function queues its emails in the
caller's transaction (pbem.mail.outbox.enqueue); nothing here talks SMTP.

What a player may see: their own hand arrives only through the turn/reminder email built by
pbem.letters.notify; every other email here carries public information only.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, select

from pbem.present.names import ShownName
from pbem.schedule import away_days_text, local_time_text, time_left_text
from pbem.letters.send import Admin, build, queue, wants_mail
from pbem.letters.unsubscribe import unsubscribe_url
from pbem import links
import pbem.i18n as i18n
from pbem.i18n import gettext as _
from pbem.config import Config
from pbem.letters import notify
from pbem.store import load_state
from pbem.mail.outbox import Email
from pbem.models import AdminUser, Game, OutboxMessage, Seat
from pbem.words import plural


def _about(cfg: Config, game: Game, seat: Seat | None) -> dict[str, Any]:
    # Templates get the game's name, never the row: its state_json holds every hand.
    return {"game": {"id": game.id, "name": game.name}, "seat": seat, "base_url": cfg.BASE_URL}


def _personal(cfg: Config, game: Game, seat: Seat) -> dict[str, Any]:
    # Every email to a player says how to stop it (the templates' footer shows the link).
    return {**_about(cfg, game, seat), "game_url": notify.seat_page_url(cfg, seat),
            "unsubscribe_url": unsubscribe_url(cfg, seat), "rules_url": links.rules_url(cfg)}


def admin_addresses(session: Session, cfg: Config) -> list[str]:
    addresses = [a.lower() for a in session.exec(select(AdminUser.email))]
    addresses += [a.strip().lower() for a in cfg.ADMIN_EMAILS if a.strip()]
    return sorted(set(addresses))


# ---------------------------------------------------------------- turn and reminder
def queue_turn(session: Session, cfg: Config, game: Game, seat: Seat) -> Any:
    """The ordinary "your turn" email, with fresh links (pbem.letters.notify builds it)."""
    return notify.queue_turn_email(session, cfg, game, seat, load_state(game))


@i18n.speaking_to("seat")
def reminder_extra(game: Game, seat: Seat, now: datetime) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if game.deadline_at is not None:
        extra["time_left"] = time_left_text(game.deadline_at, now)
        extra["deadline_local"] = local_time_text(game.deadline_at, seat)
        extra["on_timeout"] = game.on_timeout
    return extra


# ---------------------------------------------------------------- timeouts and lifecycle
# The text of a timeout email not written yet (what the admin outbox page shows for it); the
# move played for the player waits in its params until the delivery worker writes it.
DEFERRED_AUTOPLAY_TEXT = ("This email is written just before it is sent: it tells the player which "
                          "move the bot played for them when their deadline passed.")


def queue_timeout_autoplay(session: Session, cfg: Config, game: Game, seat: Seat, *,
                           move_text: str, now: datetime) -> None:
    """Tell the player what the bot played for them when their deadline passed.

    Written at delivery (`timeout_autoplay_email`), like turn emails: a sweep with many
    timeouts queues them cheaply, and the game page link in it is signed when it is sent.
    """
    if wants_mail(seat):
        queue(session, cfg, "timeout_autoplay", seat, {"game": {"name": game.name}}, game=game,
              write_at_delivery=DEFERRED_AUTOPLAY_TEXT, params={"move_text": move_text})


@i18n.speaking_to("seat")
def timeout_autoplay_email(cfg: Config, game: Game, seat: Seat, row: OutboxMessage,
                           params: dict[str, Any]) -> Email:
    """The full timeout email of a queued one (`queue_timeout_autoplay`)."""
    context = {"move_text": params.get("move_text", ""), **_personal(cfg, game, seat)}
    return build(cfg, "timeout_autoplay", seat, context)


def queue_paused(session: Session, cfg: Config, game: Game, seats: list[Seat], *, reason: str,
                 now: datetime) -> None:
    """Every player is told the game is paused; on a timeout the admins are emailed too."""
    waiting = next((s for s in seats if s.position == game.to_move), None)
    waiting_for = None if waiting is None else {"name": ShownName(waiting, seats)}
    for seat in seats:
        if wants_mail(seat):
            queue(session, cfg, "paused", seat,
                  {"reason": reason, "waiting_for": waiting_for, "for_admin": False,
                   **_personal(cfg, game, seat)}, game=game)
    if reason == "timeout":
        for address in admin_addresses(session, cfg):
            queue(session, cfg, "paused", Admin(address),
                  {"reason": reason, "waiting_for": waiting_for, "for_admin": True,
                   "admin_url": f"{cfg.BASE_URL}/admin/games/{game.id}", **_about(cfg, game, None)},
                  game=game)


def queue_resumed(session: Session, cfg: Config, game: Game, seats: list[Seat], *,
                  now: datetime) -> None:
    """Every player is told the game runs again (the pause email promised it)."""
    to_move = next((s for s in seats if s.position == game.to_move), None)
    for seat in seats:
        if wants_mail(seat):
            queue(session, cfg, "resumed", seat,
                  {"to_move": None if to_move is None else {"name": ShownName(to_move, seats)},
                   "your_turn": to_move is not None and to_move.id == seat.id,
                   **_personal(cfg, game, seat)}, game=game)


@i18n.speaking_to("seat")
def queue_seat_to_bot(session: Session, cfg: Config, game: Game, seat: Seat, *, reason: str,
                      now: datetime) -> None:
    if wants_mail(seat):
        queue(session, cfg, "seat_to_bot", seat,
              {"reason": reason, **_personal(cfg, game, seat)}, game=game)


@i18n.speaking_to("seat")
def queue_seat_back(session: Session, cfg: Config, game: Game, seat: Seat, *, now: datetime,
                    their_turn: bool) -> None:
    if wants_mail(seat) and not their_turn:
        queue(session, cfg, "notice", seat,
              {"subject": _("%(game)s: your seat is yours again", game=game.name),
               "lines": [_("An admin handed your seat back to you: the bot no longer plays for you."),
                         _("You will get an email when it is your turn.")],
               **_personal(cfg, game, seat)}, game=game)


@i18n.speaking_to("seat")
def queue_deadline_moved(session: Session, cfg: Config, game: Game, seat: Seat, *,
                         now: datetime) -> None:
    if wants_mail(seat) and game.deadline_at is not None:
        queue(session, cfg, "notice", seat,
              {"subject": _("%(game)s: more time for your turn", game=game.name),
               "lines": [_("An admin gave you more time: your turn now ends %(when)s, in %(left)s.",
                           when=local_time_text(game.deadline_at, seat),
                           left=time_left_text(game.deadline_at, now))],
               **_personal(cfg, game, seat)}, game=game)


def queue_aborted(session: Session, cfg: Config, game: Game, seats: list[Seat], *, reason: str,
                  now: datetime) -> None:
    for seat in seats:
        _queue_aborted_to(session, cfg, game, seat, reason)


@i18n.speaking_to("seat")
def _queue_aborted_to(session: Session, cfg: Config, game: Game, seat: Seat, reason: str) -> None:
    if wants_mail(seat):
        lines = [_("An admin stopped this game: no more moves can be played.")]
        if reason:
            lines.append(_("Reason: %(reason)s", reason=reason))
        queue(session, cfg, "notice", seat,
              {"subject": _("%(game)s: the game was stopped", game=game.name),
               "lines": lines, **_personal(cfg, game, seat)}, game=game)


@i18n.speaking_to("seat")
def queue_email_changed(session: Session, cfg: Config, game: Game, seat: Seat, *,
                        now: datetime) -> None:
    if wants_mail(seat):
        queue(session, cfg, "notice", seat,
              {"subject": _("%(game)s: your game page", game=game.name),
               "lines": [_("Your emails for this game now come to this address; "
                           "links from older emails no longer work."),
                         _("You will get an email when it is your turn.")],
               **_personal(cfg, game, seat)}, game=game)


# ---------------------------------------------------------------- events (batched)
@i18n.speaking_to("seat")
def queue_events(session: Session, cfg: Config, game: Game, seat: Seat, kind: str,
                 lines: list[str], *, now: datetime) -> None:
    """One email with `lines` (public events): kind attacked | news | digest."""
    queue(session, cfg, kind, seat,
          {"lines": lines, **_personal(cfg, game, seat)}, game=game)


@i18n.speaking_to("seat")
def queue_vacation(session: Session, cfg: Config, game: Game, seat: Seat, *, now: datetime,
                   days_left: float) -> None:
    """Confirm the vacation to its player (the table's news is the caller's: clocks/vacation.py)."""
    assert seat.vacation_start is not None and seat.vacation_end is not None
    start, end = away_days_text(seat)  # the days as typed, the last one counted in
    if wants_mail(seat):
        queue(session, cfg, "vacation", seat,
              {"start_local": start, "end_local": end, "days_left": plural(days_left, "vacation day"),
               **_personal(cfg, game, seat)}, game=game)

