"""Event notices: "your ship was attacked" and table news, batched into few emails.

A notice is stored in the transaction of the move (or action) that caused it, with the time it
may go out: now, or one hour after the seat's last attack email (at most one per hour), or the
seat's next digest time (08:00 local) for players who chose the daily digest. The sweep sends
every due notice of a seat as one email. Unsubscribed seats get no notices. Texts are public
information only (the events' sentences), never a hand; each is written in its reader's
language when it is stored: give `add_notice`/`add_news` a function writing it
(`lambda: _("%(name)s is back.", name=...)`), called in each seat's language.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, time, timedelta
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlmodel import Session, col, select

import pbem.i18n as i18n
from pbem.present.names import reader_names
from pbem.present.phrases import describe_event
from pbem.schedule import seat_zone, to_local, to_utc
from pbem.config import Config
from pbem.db import write
from pbem.letters import emails
from pbem.models import Game, Notice, NoticeStatus, OutboxMessage, Seat, SeatKind

ATTACK_EMAIL_INTERVAL = timedelta(hours=1)
DIGEST_TIME = time(8, 0)


def wants_events(seat: Seat) -> bool:
    return seat.kind == SeatKind.HUMAN and bool(seat.email) and not seat.unsubscribed and not seat.left_game


def next_digest_time(seat: Seat, now: datetime) -> datetime:
    """The next 08:00 in the seat's zone strictly after `now` (naive UTC)."""
    zone = seat_zone(seat)
    local = to_local(now, zone)
    day = local.date() if local.time() < DIGEST_TIME else local.date() + timedelta(days=1)
    return to_utc(datetime.combine(day, DIGEST_TIME, tzinfo=zone))


_NOTICES = Notice.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__
_LAST_ATTACK_EMAIL = select(func.max(Notice.sent_at)).where(
    Notice.seat_id == bindparam("seat_id"), Notice.kind == "attacked")
_INSERT_NOTICE = insert(_NOTICES)


def _last_attack_email(session: Session, seat: Seat) -> datetime | None:
    return session.exec(_LAST_ATTACK_EMAIL, params={"seat_id": seat.id}).one()


# A notice's text: written already, or a function that writes it in the current language.
NoticeText = str | Callable[[], str]


def add_notice(session: Session, game: Game, seat: Seat, kind: str, text: NoticeText, *,
               now: datetime) -> bool:
    """Store one notice for `seat` with the time it may be emailed (False: seat wants none); a
    function `text` writes it in the seat's language."""
    if not wants_events(seat):
        return False
    if callable(text):
        with i18n.using(seat.language):
            text = text()
    due = now
    if seat.digest:
        due = next_digest_time(seat, now)
    elif kind == "attacked":
        last = _last_attack_email(session, seat)
        if last is not None and last + ATTACK_EMAIL_INTERVAL > now:
            due = last + ATTACK_EMAIL_INTERVAL
    write(session, _INSERT_NOTICE, {"game_id": game.id, "seat_id": seat.id, "kind": kind,
                                    "text": text, "created_at": now, "due_at": due,
                                    "status": NoticeStatus.PENDING, "sent_at": None})
    return True


def add_news(session: Session, game: Game, seats: list[Seat], text: NoticeText, *, now: datetime,
             skip: Seat | None = None) -> None:
    """Tell the table something (a vacation, a seat handed to the bot)."""
    for seat in seats:
        if skip is None or seat.id != skip.id:
            add_notice(session, game, seat, "news", text, now=now)


def record_attacks(session: Session, cfg: Config, game: Game, seats: list[Seat],
                   events: list[dict[str, Any]], now: datetime, *, told: Seat | None = None) -> int:
    """Called with a stored move's events: a notice to each owner whose ship another side
    attacked, but `told`, whose turn email queued with the move carries the same news."""
    by_position = {s.position: s for s in seats}
    count = 0
    for event in events:
        if not event.get("attack"):  # the engine says whether it hit another side's ship
            continue
        owner = event["owner"]
        owner_seat = by_position.get(owner)
        if owner_seat is None or (told is not None and owner_seat.id == told.id):
            continue
        def text(event: dict[str, Any] = event, owner: int = owner) -> str:
            return describe_event(event, reader_names(seats), owner)  # bots named in the reader's words
        if add_notice(session, game, owner_seat, "attacked", text, now=now):
            count += 1
    return count


def due_notice_seats(session: Session, now: datetime, limit: int) -> list[int]:
    return list(session.exec(
        select(Notice.seat_id).where(Notice.status == NoticeStatus.PENDING, col(Notice.due_at) <= now)
        .distinct().limit(limit)))


def claim_due_notices(session: Session, seat_id: int, now: datetime) -> list[tuple[int, str, str]]:
    """Mark the seat's due notices sent, return them as (id, kind, text); a second worker gets []."""
    rows = session.execute(
        update(Notice)
        .where(col(Notice.seat_id) == seat_id, col(Notice.status) == NoticeStatus.PENDING,
               col(Notice.due_at) <= now)
        .values(status=NoticeStatus.SENT, sent_at=now)
        .returning(col(Notice.id), col(Notice.kind), col(Notice.text))
    ).all()
    return sorted((id_, kind, text) for id_, kind, text in rows)


# An attack notice is dropped when a turn email to its seat was queued within this time after
# it: that turn email tells the same news ("since your last turn"), written when it is sent.
TOLD_BY_TURN_EMAIL = timedelta(minutes=1)


def _not_told_yet(session: Session, seat: Seat, notices: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The claimed notices but the attacks a turn email queued within the minute already tells."""
    attacks = dict(session.exec(select(Notice.id, Notice.created_at).where(
        col(Notice.id).in_([n[0] for n in notices if n[1] == "attacked"]))).all())
    if not attacks:
        return notices
    first, last = min(attacks.values()), max(attacks.values())
    turns = list(session.exec(select(OutboxMessage.created_at).where(
        OutboxMessage.seat_id == seat.id, OutboxMessage.kind == "turn",
        col(OutboxMessage.created_at) >= first,
        col(OutboxMessage.created_at) <= last + TOLD_BY_TURN_EMAIL)))
    told = {id_ for id_, at in attacks.items() if any(at <= t <= at + TOLD_BY_TURN_EMAIL for t in turns)}
    if told:
        session.execute(update(Notice).where(col(Notice.id).in_(told)).values(status=NoticeStatus.DROPPED))
    return [n for n in notices if n[0] not in told]


def send_due_notices(session: Session, cfg: Config, seat_id: int, now: datetime) -> int:
    """One email with every due notice of one seat (attack batch, news, or the digest)."""
    notices = claim_due_notices(session, seat_id, now)
    seat = session.get(Seat, seat_id)
    if not notices or seat is None:
        return 0
    if not wants_events(seat):
        session.execute(update(Notice).where(col(Notice.id).in_([n[0] for n in notices]))
                        .values(status=NoticeStatus.DROPPED))
        return 0
    game = session.get(Game, seat.game_id)
    assert game is not None
    notices = _not_told_yet(session, seat, notices)
    if not notices:
        return 0
    if seat.digest:
        emails.queue_events(session, cfg, game, seat, "digest", [t for _, _, t in notices], now=now)
        return 1
    sent = 0
    for kind in ("attacked", "news"):
        lines = [t for _, k, t in notices if k == kind]
        if lines:
            emails.queue_events(session, cfg, game, seat, kind, lines, now=now)
            sent += 1
    return sent
