"""The leaderboard: the mailboxes that chose to be listed, under a name they chose (off by
default), ranked by their rating in a mode (pbem/games/ratings.py keeps the ratings)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from pbem.addresses import canonical_key
from pbem.games.errors import GameError, declare_refusals
from pbem.games.names import check_name
from pbem.i18n import lazy
from pbem.models import utcnow
from pbem.models_ratings import LeaderboardEntry, Rating
from pbem.present.ratings import points, rating_text

declare_refusals({
    "leaderboard_name_needed": (lazy("Choose the name the leaderboard shows for you."), 422),
    "leaderboard_name_taken": (lazy("Another player is on the leaderboard under this name: choose another one."), 409),
})


@dataclass(frozen=True)
class BoardLine:
    place: int
    name: str
    points: int
    text: str
    games: int
    wins: int


def leaderboard(session: Session, mode: str, *, limit: int = 100) -> list[BoardLine]:
    """The players who opted in, by rating in `mode` (the provisional ones too, marked)."""
    rows = session.exec(select(Rating, LeaderboardEntry.display_name)
                        .join(LeaderboardEntry, col(LeaderboardEntry.key) == col(Rating.key))
                        .where(Rating.mode == mode, col(Rating.games) > 0)).all()
    ranked = sorted(((points(r.mu, r.sigma), name, r) for r, name in rows), key=lambda t: (-t[0], t[1].casefold()))
    return [BoardLine(place=i + 1, name=name, points=value, text=rating_text(value, r.games), games=r.games,
                      wins=r.wins) for i, (value, name, r) in enumerate(ranked[:limit])]


def listed_name(session: Session, email: str) -> str | None:
    """The name the address is on the leaderboard under, or None (not listed: the default)."""
    entry = session.get(LeaderboardEntry, canonical_key(email))
    return entry.display_name if entry else None


def set_listed(session: Session, email: str, name: str | None, *, now: datetime | None = None) -> None:
    """Put the address on the leaderboard under `name` (checked like a player's name), or take
    it off (None). GameError when the name is refused or another mailbox shows it."""
    key = canonical_key(email)
    entry = session.get(LeaderboardEntry, key)
    if name is None:
        if entry is not None:
            session.delete(entry)
        return
    if not name.strip():
        raise GameError("leaderboard_name_needed", status=422)
    name = check_name(name)
    taken = session.exec(select(LeaderboardEntry.key).where(
        func.lower(col(LeaderboardEntry.display_name)) == name.lower(), LeaderboardEntry.key != key)).first()
    if taken is not None:
        raise GameError("leaderboard_name_taken", status=409)
    entry = entry or LeaderboardEntry(key=key, display_name=name, joined_at=now or utcnow())
    entry.display_name = name
    try:
        with session.begin_nested():  # another mailbox took the name at the same moment: the index says
            session.add(entry)
    except IntegrityError:
        raise GameError("leaderboard_name_taken", status=409) from None
