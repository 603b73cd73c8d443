"""The tables of ratings (beside pbem/models.py, which holds the games): each mailbox's rating
per mode, each rated game's line-up, each mailbox's change in a game, and the leaderboard's
opt-ins. Written by pbem/games/ratings.py, read by the pages and the game-over email.

A mailbox is `pbem.addresses.canonical_key` of a seat's address: ann+korsar@ and ann@ are one
player. An address is never shown: the leaderboard shows the name its player chose.
"""
from __future__ import annotations

from typing import Optional

from pydantic import NaiveDatetime
from sqlalchemy import Column, Index, Text, UniqueConstraint, func
from sqlmodel import Field, Session, SQLModel, col, select

from pbem.models import utcnow


class RatingMode:
    INDIVIDUAL = "individual"
    TEAMS = "teams"
    ALL = (INDIVIDUAL, TEAMS)


class Rating(SQLModel, table=True):
    """One mailbox's rating in one mode (openskill's Plackett-Luce mu and sigma), and its
    count of rated games and wins in that mode."""

    __tablename__ = "rating"

    key: str = Field(primary_key=True, max_length=254)  # pbem.addresses.canonical_key
    mode: str = Field(primary_key=True, max_length=16)  # a RatingMode
    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    updated_at: NaiveDatetime = Field(default_factory=utcnow)


class RatedGame(SQLModel, table=True):
    """A finished game as the ratings read it: its line-up (the sides in seat order, each a
    list of players, a mailbox key or a bot's kind, and each side's rank), so an exclusion can
    replay it without the engine. One row per game: a game is rated once."""

    __tablename__ = "rated_game"

    game_id: int = Field(primary_key=True, foreign_key="game.id")
    mode: str = Field(max_length=16)  # a RatingMode
    finished_at: NaiveDatetime  # when it ended (the replay's order is its changes' ids: the order rated)
    # [{"players": [{"key": "ann@example.com", "seat": 0} | {"bot": "expert", "seat": 1}], "rank": 1}, ...]
    lineup_json: str = Field(sa_column=Column(Text, nullable=False))
    excluded: bool = False  # an admin took it out of the ratings (audited)
    rated_at: NaiveDatetime = Field(default_factory=utcnow)


class RatingChange(SQLModel, table=True):
    """What one game did to one mailbox's rating. Unique per (game, mailbox): a game moves a
    rating once, however many workers finish it. An excluded game's rows stay, marked."""

    __tablename__ = "rating_change"
    __table_args__ = (UniqueConstraint("game_id", "key", name="uq_rating_change_game_key"),
                      Index("ix_rating_change_key_mode", "key", "mode", "id"))

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found through uq_rating_change_game_key
    key: str = Field(max_length=254)
    mode: str = Field(max_length=16)
    position: int  # the seat it played (its first, if the line-up held it twice)
    rank: int  # 1 is first; a seat that left is last
    won: bool = False
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games_before: int = 0  # rated games in this mode before this one (provisional below 5)
    excluded: bool = False
    created_at: NaiveDatetime = Field(default_factory=utcnow)


class LeaderboardEntry(SQLModel, table=True):
    """A mailbox that asked to be on the leaderboard (from /me), under the name it chose. No row:
    not listed (the default). A name is one mailbox's, whatever its case
    (uq_leaderboard_entry_name_lower, below)."""

    __tablename__ = "leaderboard_entry"

    key: str = Field(primary_key=True, max_length=254)
    display_name: str = Field(max_length=100)
    joined_at: NaiveDatetime = Field(default_factory=utcnow)


# Two mailboxes never show one name, even choosing it at the same moment (leaderboard.set_listed checks
# first, this holds under a race). An index on an expression: the migration makes it (0013).
Index("uq_leaderboard_entry_name_lower", func.lower(col(LeaderboardEntry.display_name)), unique=True)


def changes_of_game(session: Session, game_id: int) -> list[RatingChange]:
    """What the game did to its humans' ratings, in seat order (none: not rated)."""
    return list(session.exec(select(RatingChange).where(RatingChange.game_id == game_id)
                             .order_by(col(RatingChange.position))).all())
