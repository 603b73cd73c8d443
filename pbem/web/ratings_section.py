"""The rating section of /me (templates/me/_ratings.html), for pbem/web/my_games.py: the rating
per mode, games played and won, its history as a small SVG chart with a table beside it, and
the name the address is on the leaderboard under (pbem/web/leaderboard.py takes the choice)."""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from pbem.games import leaderboard, ratings
from pbem.i18n import format_date, format_number
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models_ratings import RatingMode
from pbem.present.ratings import HistoryChart, history_chart

MODE_WORDS = {RatingMode.INDIVIDUAL: lazy("Individual games"), RatingMode.TEAMS: lazy("Team games")}
HISTORY_ROWS = 20  # the table beside the chart: the last games


@dataclass(frozen=True)
class HistoryRow:
    when: str
    rating: str


@dataclass(frozen=True)
class ModeSection:
    mode: str
    title: str
    rating: ratings.ModeRating
    chart: HistoryChart | None
    rows: list[HistoryRow]


@dataclass(frozen=True)
class RatingsSection:
    """The rating section of /me."""

    modes: list[ModeSection]
    listed_name: str | None  # the leaderboard's name, None: not listed


def my_ratings(session: Session, email: str) -> RatingsSection:
    """The address's ratings as /me shows them (its history in the page's language)."""
    modes = []
    for mine in ratings.ratings_of(session, email):
        rows = [HistoryRow(format_date(p.at), format_number(p.points)) for p in mine.history[1:]][-HISTORY_ROWS:]
        modes.append(ModeSection(mode=mine.mode, title=_(MODE_WORDS[mine.mode]), rating=mine,
                                 chart=history_chart([p.points for p in mine.history]), rows=list(reversed(rows))))
    return RatingsSection(modes=modes, listed_name=leaderboard.listed_name(session, email))
