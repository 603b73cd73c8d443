"""Read-only queries behind the dashboard pages: a fixed number of indexed queries per page."""
from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import DateTime, func
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from pbem.models import AuditLog, Game, GameStatus, MoveRecord, OutboxMessage, OutboxStatus, Seat

PAGE_SIZE = 25

# ?sort= key -> column; each has an index (see pbem/models.py).
SORT_COLUMNS: dict[str, Any] = {
    "created": Game.created_at,
    "updated": Game.updated_at,
    "deadline": Game.deadline_at,
    "waiting": Game.turn_started_at,
    "id": Game.id,
}
NULLABLE_SORTS = frozenset({"deadline", "waiting"})
DEFAULT_SORT = ("updated", "desc")


@dataclass(frozen=True)
class Page:
    number: int
    size: int
    total: int

    @property
    def count(self) -> int:
        return max(1, math.ceil(self.total / self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size

    @property
    def has_prev(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.count


@dataclass
class GameRow:
    game: Game
    seats: list[Seat] = field(default_factory=list)

    @property
    def to_move(self) -> Seat | None:
        if self.game.to_move is None or self.game.status not in (GameStatus.RUNNING, GameStatus.PAUSED):
            return None
        return next((s for s in self.seats if s.position == self.game.to_move), None)


def clamp_page(raw: str | None) -> int:
    try:
        return max(1, int(raw or 1))
    except ValueError:
        return 1


def list_games(
    session: Session, *, status: str | None, sort: str, direction: str, page: int, size: int = PAGE_SIZE
) -> tuple[list[GameRow], Page]:
    """One page of games with their seats: three queries whatever the page size."""
    where = [Game.status == status] if status in GameStatus.ALL else []
    total = session.exec(select(func.count()).select_from(Game).where(*where)).one()
    pager = Page(min(page, max(1, math.ceil(total / size))), size, total)
    column = col(SORT_COLUMNS.get(sort, SORT_COLUMNS[DEFAULT_SORT[0]]))
    order = column.desc() if direction == "desc" else column.asc()
    if sort in NULLABLE_SORTS:
        order = order.nulls_last()  # same order on SQLite and PostgreSQL: games without one last
    tiebreak = col(Game.id).desc() if direction == "desc" else col(Game.id).asc()
    games = list(session.exec(
        select(Game).where(*where).order_by(order, tiebreak).offset(pager.offset).limit(size)
    ))
    rows = {g.id: GameRow(g) for g in games}
    if rows:
        for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(rows.keys()))
                                 .order_by(col(Seat.game_id), col(Seat.position))):
            rows[seat.game_id].seats.append(seat)
    return list(rows.values()), pager


def status_counts(session: Session) -> dict[str, int]:
    counts = dict.fromkeys(GameStatus.ALL, 0)
    for status, n in session.exec(select(Game.status, func.count()).group_by(Game.status)):
        counts[status] = n
    return counts


# ---------------------------------------------------------------- outbox
# Lists show subjects and statuses; the bodies (kilobytes each) only on a message's own page.
WITHOUT_BODIES = (defer(OutboxMessage.text_body), defer(OutboxMessage.html_body))  # type: ignore[arg-type]  # SQLModel types columns as values


def outbox_messages(
    session: Session, statuses: tuple[str, ...], page: int, size: int = 50
) -> tuple[list[OutboxMessage], Page]:
    where = [col(OutboxMessage.status).in_(statuses)]
    total = session.exec(select(func.count()).select_from(OutboxMessage).where(*where)).one()
    pager = Page(min(page, max(1, math.ceil(total / size))), size, total)
    rows = list(session.exec(
        select(OutboxMessage).where(*where).options(*WITHOUT_BODIES)
        .order_by(col(OutboxMessage.created_at).desc(), col(OutboxMessage.id).desc())
        .offset(pager.offset).limit(size)
    ))
    return rows, pager


def outbox_counts(session: Session) -> dict[str, int]:
    counts = {s: 0 for s in (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.SENT,
                             OutboxStatus.FAILED, OutboxStatus.CANCELLED)}
    for status, n in session.exec(select(OutboxMessage.status, func.count()).group_by(OutboxMessage.status)):
        counts[status] = n
    return counts


# ---------------------------------------------------------------- audit
def audit_entries(session: Session, page: int, game_id: int | None = None, size: int = 50
                  ) -> tuple[list[AuditLog], Page]:
    where = [AuditLog.game_id == game_id] if game_id is not None else []
    total = session.exec(select(func.count()).select_from(AuditLog).where(*where)).one()
    pager = Page(min(page, max(1, math.ceil(total / size))), size, total)
    rows = list(session.exec(select(AuditLog).where(*where)
                             .order_by(col(AuditLog.created_at).desc(), col(AuditLog.id).desc())
                             .offset(pager.offset).limit(size)))
    return rows, pager


# ---------------------------------------------------------------- stats
@dataclass(frozen=True)
class MoveTimes:
    moves: int
    average: timedelta | None


def _seconds_between(dialect: str, later: Any, earlier: Any) -> Any:
    if dialect == "sqlite":
        return (func.julianday(later) - func.julianday(earlier)) * 86400.0
    return func.extract("epoch", later - earlier)


def player_move_times(session: Session, since: datetime, recent: int = 10_000) -> MoveTimes:
    """Average time between a turn's start (the previous move) and a player's own move, over
    the last `recent` moves since `since` (bounded work however many moves are stored)."""
    moves = (select(MoveRecord.game_id, MoveRecord.number, MoveRecord.created_at, MoveRecord.source)
             .where(MoveRecord.created_at >= since).order_by(col(MoveRecord.id).desc()).limit(recent).subquery())
    previous = func.lag(moves.c.created_at, type_=DateTime()).over(
        partition_by=moves.c.game_id, order_by=moves.c.number)
    inner = select(moves.c.created_at.label("at"), previous.label("prev"), moves.c.source.label("source")).subquery()
    dialect = session.get_bind().dialect.name
    count, average = session.exec(
        select(func.count(), func.avg(_seconds_between(dialect, inner.c.at, inner.c.prev)))
        .where(inner.c.source == "player", inner.c.prev.is_not(None))
    ).one()
    if not count:
        return MoveTimes(0, None)
    return MoveTimes(int(count), timedelta(seconds=round(float(average))))


def top_timeouts(session: Session, limit: int = 10) -> list[tuple[str, str, int]]:
    """(name, email, timeouts) of the players who ran out of time most, over all games."""
    total = func.sum(Seat.timeouts).label("total")
    query = (select(func.max(Seat.name), Seat.email, total)
             .where(Seat.timeouts > 0, col(Seat.email).is_not(None))
             .group_by(Seat.email).order_by(total.desc(), col(Seat.email)).limit(limit))
    # The query has no row without an email: `email is not None` only narrows the Optional.
    return [(name, email, int(n)) for name, email, n in session.exec(query) if email is not None]


def emails_sent_per_day(session: Session, today: date, days: int = 30) -> list[tuple[date, int]]:
    """[(day, emails sent that day)] for the `days` days ending today, zeros included."""
    first = today - timedelta(days=days - 1)
    day = func.date(OutboxMessage.sent_at)
    query = (select(day, func.count()).where(OutboxMessage.status == OutboxStatus.SENT,
                                             col(OutboxMessage.sent_at) >= datetime.combine(first, datetime.min.time()))
             .group_by(day))
    counts: dict[date, int] = defaultdict(int)
    for d, n in session.exec(query):
        counts[d if isinstance(d, date) else date.fromisoformat(str(d))] += n
    return [(first + timedelta(days=i), counts[first + timedelta(days=i)]) for i in range(days)]
