"""Ratings: every mailbox (`pbem.addresses.canonical_key`) has a rating per mode (individual,
teams), openskill's Plackett-Luce (2 to 5 sides, teams as teams), moved by every game played to
its end. How a rating is shown (the scale, "provisional"): pbem/present/ratings.py.

- The one way in is `rate_finished_game`, a hook of `pbem.games.finish.HOOKS` (`register`,
  called by `create_app`): it runs in the finishing transaction, for games "played" to their end
  only (an aborted game counts for nobody).
- A game's sides are ranked by their final score (ties share a rank); a seat that left the game
  (`Seat.left_game`) ranks last, and in teams its whole team does. A seat a bot took over for
  its human (timeouts) still counts for that human.
- Bots have fixed ratings per kind (`BOT_RATINGS`, never updated): a game against bots moves a
  human's rating as a game against players of that strength would.
- A game is rated once, however many workers finish it: its `rated_game` row is claimed first
  (a unique key), and the ratings are written under one lock (PostgreSQL: an advisory
  transaction lock; SQLite writes one transaction at a time already), so two games of one
  mailbox finishing together never lose an update.
- A game where one mailbox holds two seats is not rated (it played against itself).
- An admin can exclude a game (and undo it): the affected mailboxes' ratings are replayed from
  that game on, in the order the games were rated (`set_excluded`, audited).
- An erased mailbox (`forget_mailbox`) leaves the line-ups it played in as a fixed strength (what
  it had before each game, like a bot's): the others' games still replay, and no rating row
  stands in its place.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import engine
from openskill.models import PlackettLuce
from sqlalchemy import delete, insert, text, update
from sqlalchemy import select as sa_select  # five columns: past sqlmodel's typed overloads
from sqlmodel import Session, col, func, select

from pbem.addresses import canonical_key
from pbem.auth import record_audit
from pbem.config import Config
from pbem.games import finish
from pbem.games.errors import GameError, declare_refusals
from pbem.i18n import lazy
from pbem.models import Game, Seat, SeatKind, utcnow
from pbem.models_ratings import LeaderboardEntry, RatedGame, Rating, RatingChange, RatingMode
from pbem.present.ratings import points, provisional, rating_text

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
# A bot's fixed strength by kind (mu, sigma), never updated. Sigma is small: the bot's strength
# is taken as known, so a human's rating moves by what the human did. Rough values: the random
# bot loses to everyone, the greedy bot plays like a beginner who grabs, the expert like a
# settled good player (benchmarks/bots_bench.py shows their order); the beginner's bot wins about
# a third of greedy's share at a greedy table (bot_levels_bench), expert_flat ties expert and
# expert_ismcts is weaker than expert (engine duel).
BOT_RATINGS: dict[str, tuple[float, float]] = {
    "random": (12.0, 2.0),
    "beginner": (17.0, 2.0),
    "greedy": (22.0, 2.0),
    "expert": (29.0, 2.0),
    "expert_flat": (29.0, 2.0),
    "expert_ismcts": (27.0, 2.0),
}
UNKNOWN_BOT = (22.0, 2.0)  # a bot kind not in the table (a new one): taken as greedy
# The advisory lock under which ratings are written (pbem/auth.py and pbem/mail/undeliverable.py
# hold others): one for all ratings, so a replay and a new game's update take turns.
_RATINGS_LOCK = 0x4B4C0004
MAX_HISTORY = 200  # points of a mode's history on /me

declare_refusals({
    "game_not_rated": (lazy("This game did not count for the ratings (it was not played to its end, "
                            "or nobody in it has a rating)."), 409),
})


def register() -> None:
    """Hook the ratings into the one end of a game (called by `create_app`; idempotent)."""
    if rate_finished_game not in finish.HOOKS:
        finish.HOOKS.append(rate_finished_game)


# ---------------------------------------------------------------- line-up of a game
@dataclass(frozen=True)
class Player:
    seat: int
    key: str | None = None  # a human's mailbox
    bot: str | None = None  # a bot's kind
    fixed: tuple[float, float] | None = None  # an erased human: (mu, sigma) before the game, never updated

    def as_json(self) -> dict[str, Any]:
        if self.key is not None:
            return {"seat": self.seat, "key": self.key}
        if self.fixed is not None:
            return {"seat": self.seat, "fixed": list(self.fixed)}
        return {"seat": self.seat, "bot": self.bot}

    def strength(self) -> tuple[float, float]:
        """A player not rated by the game (a bot, an erased human): its fixed (mu, sigma)."""
        return self.fixed or BOT_RATINGS.get(self.bot or "", UNKNOWN_BOT)


@dataclass(frozen=True)
class Side:
    players: tuple[Player, ...]
    rank: int  # 1 is first
    won: bool


@dataclass(frozen=True)
class Lineup:
    mode: str
    sides: tuple[Side, ...]

    def keys(self) -> list[str]:
        return [p.key for s in self.sides for p in s.players if p.key is not None]

    def to_json(self) -> str:
        return json.dumps([{"players": [p.as_json() for p in s.players], "rank": s.rank, "won": s.won}
                           for s in self.sides], separators=(",", ":"))

    @classmethod
    def from_json(cls, mode: str, data: str) -> Lineup:
        return cls(mode, tuple(Side(tuple(Player(p["seat"], p.get("key"), p.get("bot"),
                                                 tuple(p["fixed"]) if p.get("fixed") else None)
                                          for p in s["players"]), s["rank"], s["won"]) for s in json.loads(data)))


def _player(seat: Seat) -> Player:
    """A seat as the ratings see it: its human's mailbox (also when a bot plays for them, left or
    timed out), else the bot's kind."""
    if seat.email and (seat.kind == SeatKind.HUMAN or seat.handed_to_bot or seat.left_game):
        return Player(seat.position, key=canonical_key(seat.email))
    return Player(seat.position, bot=seat.bot or "random")


def ranks(scores: Sequence[int], left: Sequence[bool]) -> list[int]:
    """Each side's rank (1 is first; equal scores share one): by score, the sides that left last."""
    stayed = [s for s, gone in zip(scores, left) if not gone]
    last = len(stayed) + 1
    return [last if gone else 1 + sum(1 for other in stayed if other > score) for score, gone in zip(scores, left)]


def lineup_of(game: Game, seats: Sequence[Seat], state: engine.GameState) -> Lineup | None:
    """The sides of a finished game in seat (or team) order with their ranks, or None when it
    rates nobody (no human) or a mailbox holds two seats."""
    by_position = sorted(seats, key=lambda s: s.position)
    players = [_player(s) for s in by_position]
    keys = [p.key for p in players if p.key is not None]
    if not keys or len(set(keys)) != len(keys):
        return None
    winners = set(engine.winners(state))
    if state.teams:
        team_scores = engine.team_scores(state) or []
        groups: list[list[int]] = [[] for _ in team_scores]
        for seat in by_position:
            groups[engine.team_of(state, seat.position) or 0].append(seat.position)
        scores = list(team_scores)
    else:
        groups = [[s.position] for s in by_position]
        scores = engine.scores(state)
    left = [any(by_position[i].left_game for i in group) for group in groups]
    ranked = ranks(scores, left)
    sides = tuple(Side(tuple(players[i] for i in group), rank, side in winners and not left[side])
                  for side, (group, rank) in enumerate(zip(groups, ranked)))
    return Lineup(RatingMode.TEAMS if state.teams else RatingMode.INDIVIDUAL, sides)


# ---------------------------------------------------------------- the update, pure
@dataclass
class Standing:
    """A mailbox's rating while games are applied."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0


def new_standing() -> Standing:
    return Standing(MODEL.mu, MODEL.sigma)


def rate(lineup: Lineup, current: dict[str, Standing]) -> dict[str, Standing]:
    """Each human's standing after the game (openskill's Plackett-Luce on the sides and their
    ranks); bots (and erased humans) take part at their fixed ratings and are not updated."""
    teams = [[MODEL.rating(mu=current[p.key].mu, sigma=current[p.key].sigma) if p.key is not None
              else MODEL.rating(*p.strength()) for p in side.players]
             for side in lineup.sides]
    rated = MODEL.rate(teams, ranks=[float(side.rank) for side in lineup.sides])
    out = {}
    for side, after in zip(lineup.sides, rated):
        for player, new in zip(side.players, after):
            if player.key is not None:
                was = current[player.key]
                out[player.key] = Standing(new.mu, new.sigma, was.games + 1, was.wins + int(side.won))
    return out


# ---------------------------------------------------------------- stored
def _serialise(session: Session) -> None:
    """Ratings are written one transaction at a time (PostgreSQL: an advisory lock until the
    transaction ends; SQLite holds the database's write lock already)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _RATINGS_LOCK})


def _standings(session: Session, mode: str, keys: Iterable[str]) -> dict[str, Rating]:
    """The stored rating rows of `keys` in `mode`, new rows (not yet added) for the others."""
    wanted = sorted(set(keys))
    found = session.exec(select(Rating).where(Rating.mode == mode, col(Rating.key).in_(wanted))).all()
    rows = {r.key: r for r in found}
    for key in wanted:
        if key not in rows:
            rows[key] = Rating(key=key, mode=mode, mu=MODEL.mu, sigma=MODEL.sigma)
    return rows


def rate_finished_game(session: Session, cfg: Config, game: Game, seats: list[Seat],
                       state: engine.GameState | None, how: finish.How) -> None:
    """The hook: a game played to its end moves its humans' ratings, once. A few statements
    (no unit of work): the claim, one read of the ratings, then one batch each of changes,
    updated ratings and new ones."""
    if how != "played" or state is None or game.id is None:
        return
    lineup = lineup_of(game, seats, state)
    if lineup is None:
        return
    _serialise(session)
    claimed = session.exec(select(RatedGame.game_id).where(RatedGame.game_id == game.id)).first()
    if claimed is not None:  # another worker rated it first
        return
    now = game.finished_at or utcnow()
    # The claim: a second one fails here on the primary key, before any rating moves.
    session.execute(insert(RatedGame).values(game_id=game.id, mode=lineup.mode, finished_at=now,
                                             lineup_json=lineup.to_json(), rated_at=utcnow(), excluded=False))
    keys = sorted(set(lineup.keys()))
    stored = {key: Standing(mu, sigma, games, wins) for key, mu, sigma, games, wins in session.execute(
        sa_select(col(Rating.key), col(Rating.mu), col(Rating.sigma), col(Rating.games), col(Rating.wins))
        .where(col(Rating.mode) == lineup.mode, col(Rating.key).in_(keys))).all()}
    before = {key: stored.get(key) or new_standing() for key in keys}
    after = rate(lineup, before)
    changes = [{"game_id": game.id, "key": p.key, "mode": lineup.mode, "position": p.seat, "rank": side.rank,
                "won": side.won, "mu_before": before[p.key].mu, "sigma_before": before[p.key].sigma,
                "mu_after": after[p.key].mu, "sigma_after": after[p.key].sigma,
                "games_before": before[p.key].games, "excluded": False, "created_at": now}
               for side in lineup.sides for p in side.players if p.key is not None]
    session.execute(insert(RatingChange), changes)
    rows = [{"key": k, "mode": lineup.mode, "mu": after[k].mu, "sigma": after[k].sigma, "games": after[k].games,
             "wins": after[k].wins, "updated_at": now} for k in keys]
    if known := [r for r in rows if r["key"] in stored]:
        session.execute(update(Rating), known)  # by primary key (key, mode), one executemany
    if new := [r for r in rows if r["key"] not in stored]:
        session.execute(insert(Rating), new)


# ---------------------------------------------------------------- exclusion and its undo
def set_excluded(session: Session, game_id: int, excluded: bool, *, actor: str,
                 now: datetime | None = None) -> list[str]:
    """Take a rated game out of the ratings (`excluded`) or put it back: the affected mailboxes'
    ratings are replayed from it on, in the order the games were rated; audited. Returns the
    mailboxes whose ratings were replayed ([] when nothing changed)."""
    _serialise(session)
    rated = session.get(RatedGame, game_id)
    if rated is None:
        raise GameError("game_not_rated", status=409)
    if rated.excluded == excluded:
        return []
    rated.excluded = excluded
    session.add(rated)
    replayed = _replay_from(session, rated)
    record_audit(session, actor, "ratings_exclude" if excluded else "ratings_include", game_id=game_id,
                 detail=f"{len(replayed)} ratings replayed", now=now)
    session.flush()
    return replayed


def _replay_from(session: Session, pivot: RatedGame) -> list[str]:
    """Replay every game rated from `pivot` on that shares a mailbox (directly or through
    another replayed game) with it; the others are unchanged. Each mailbox starts from what it
    had before its first replayed game (the chain of its stored changes)."""
    mode = pivot.mode
    changes = session.exec(select(RatingChange).where(RatingChange.game_id == pivot.game_id)).all()
    if not changes:  # its humans were all erased: nobody's rating depends on it any more
        return []
    first_id = min(c.id or 0 for c in changes)
    later = session.exec(select(RatingChange).where(RatingChange.mode == mode, col(RatingChange.id) >= first_id)
                         .order_by(col(RatingChange.id))).all()
    by_game: dict[int, list[RatingChange]] = {}
    for change in later:  # games in the order they were rated (their rows' ids)
        by_game.setdefault(change.game_id, []).append(change)
    games = {g.game_id: g for g in
             session.exec(select(RatedGame).where(col(RatedGame.game_id).in_(list(by_game)))).all()}
    dirty: set[str] = {c.key for c in changes}
    working: dict[str, Standing] = {}
    for game_id, rows in by_game.items():
        if not dirty.intersection(r.key for r in rows):
            continue
        rated = games[game_id]
        for r in rows:
            dirty.add(r.key)
            working.setdefault(r.key, Standing(r.mu_before, r.sigma_before, r.games_before))
        before = {r.key: Standing(working[r.key].mu, working[r.key].sigma, working[r.key].games) for r in rows}
        after = before if rated.excluded else rate(Lineup.from_json(mode, rated.lineup_json), before)
        for r in rows:
            was, new = before[r.key], after[r.key]
            r.mu_before, r.sigma_before, r.games_before = was.mu, was.sigma, was.games
            r.mu_after, r.sigma_after, r.excluded = new.mu, new.sigma, rated.excluded
            session.add(r)
            working[r.key] = Standing(new.mu, new.sigma, new.games if not rated.excluded else was.games)
    rows_now = _standings(session, mode, working)
    for key, standing in working.items():
        row = rows_now[key]
        row.mu, row.sigma, row.games = standing.mu, standing.sigma, standing.games
        row.wins = session.exec(select(func.count()).select_from(RatingChange).where(
            RatingChange.key == key, RatingChange.mode == mode, col(RatingChange.won),
            col(RatingChange.excluded).is_(False))).one()
        row.updated_at = utcnow()
        session.add(row)
    return sorted(working)


def forget_mailbox(session: Session, key: str) -> int:
    """An erased mailbox out of the ratings, in the caller's transaction: in each line-up it
    played in, its place keeps the strength it had before that game (so the others' games replay
    as they were rated), and its ratings, changes and leaderboard entry go. Returns rows deleted."""
    _serialise(session)
    changes = session.exec(select(RatingChange).where(RatingChange.key == key)).all()
    lineups = {g.game_id: g for g in session.exec(select(RatedGame).where(
        col(RatedGame.game_id).in_(sorted({c.game_id for c in changes})))).all()}
    for change in changes:
        rated = lineups.get(change.game_id)
        if rated is None:
            continue
        lineup = Lineup.from_json(rated.mode, rated.lineup_json)
        rated.lineup_json = Lineup(lineup.mode, tuple(
            Side(tuple(Player(p.seat, fixed=(change.mu_before, change.sigma_before)) if p.key == key else p
                       for p in side.players), side.rank, side.won) for side in lineup.sides)).to_json()
        session.add(rated)
    session.flush()
    deleted = 0
    for model, column in ((RatingChange, RatingChange.key), (Rating, Rating.key),
                          (LeaderboardEntry, LeaderboardEntry.key)):
        deleted += session.execute(delete(model).where(col(column) == key)).rowcount or 0  # type: ignore[attr-defined]
    return deleted


# ---------------------------------------------------------------- read
@dataclass(frozen=True)
class HistoryPoint:
    game_id: int
    at: datetime
    points: int


@dataclass(frozen=True)
class ModeRating:
    """A mailbox's rating in one mode, as /me shows it."""

    mode: str
    points: int
    text: str  # "1,512?" while provisional
    provisional: bool
    games: int
    wins: int
    history: list[HistoryPoint] = field(default_factory=list)  # oldest first, the start included


def ratings_of(session: Session, email: str) -> list[ModeRating]:
    """The address's rating in each mode it played rated games in (individual first)."""
    key = canonical_key(email)
    out = []
    for mode in RatingMode.ALL:
        row = session.get(Rating, (key, mode))
        if row is None or row.games == 0:
            continue
        changes = session.exec(select(RatingChange, RatedGame.finished_at)
                               .join(RatedGame, col(RatedGame.game_id) == col(RatingChange.game_id))
                               .where(RatingChange.key == key, RatingChange.mode == mode,
                                      col(RatingChange.excluded).is_(False))
                               .order_by(col(RatingChange.id).desc()).limit(MAX_HISTORY)).all()
        history = [HistoryPoint(c.game_id, at, points(c.mu_after, c.sigma_after)) for c, at in reversed(changes)]
        if changes:  # where the first shown game started from
            first, at = changes[-1]
            history.insert(0, HistoryPoint(0, at, points(first.mu_before, first.sigma_before)))
        value = points(row.mu, row.sigma)
        out.append(ModeRating(mode=mode, points=value, text=rating_text(value, row.games),
                              provisional=provisional(row.games), games=row.games, wins=row.wins, history=history))
    return out


def admin_ratings(session: Session, *, limit: int = 500) -> list[tuple[Rating, int]]:
    """Every rating, best first, with its shown points (the admin's list: it shows mailboxes)."""
    rows = session.exec(select(Rating).where(col(Rating.games) > 0)).all()
    return sorted(((r, points(r.mu, r.sigma)) for r in rows), key=lambda t: (t[0].mode, -t[1]))[:limit]


@dataclass(frozen=True)
class RatedGameLine:
    """A rated game in the admin's list."""

    game_id: int
    name: str
    mode: str
    finished_at: datetime
    excluded: bool
    changes: list[RatingChange]


def rated_games(session: Session, *, limit: int = 100) -> list[RatedGameLine]:
    """The latest rated games, newest first, with what each did to its mailboxes (the admin's)."""
    rows = session.exec(select(RatedGame, Game.name).join(Game, col(Game.id) == col(RatedGame.game_id))
                        .order_by(col(RatedGame.rated_at).desc(), col(RatedGame.game_id).desc()).limit(limit)).all()
    ids = [r.game_id for r, _name in rows]
    changes: dict[int, list[RatingChange]] = {}
    for change in session.exec(select(RatingChange).where(col(RatingChange.game_id).in_(ids))
                               .order_by(col(RatingChange.position))).all():
        changes.setdefault(change.game_id, []).append(change)
    return [RatedGameLine(r.game_id, name, r.mode, r.finished_at, r.excluded, changes.get(r.game_id, []))
            for r, name in rows]
