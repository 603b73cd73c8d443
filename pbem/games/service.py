"""Games as stored rows: the game row locked, a game created, a move applied (locked, versioned, logged).

Every function works inside the caller's transaction (a `Session`) and writes the state
snapshot, the move record and the outbox rows together, so a crash loses nothing and a
double click or two workers apply a move once. The rules are the engine's business; the setup
check is `setup.py`, the bots `bots.py`, the export `records.py`.
"""
from __future__ import annotations

import json
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import engine
import engine.bots
from sqlalchemy import bindparam, insert, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from pbem.schedule import turn_clock
from pbem.games.notices import record_attacks  # "your ship was attacked" notices
from pbem import metrics
from pbem.config import Config
from pbem.letters import notify
from pbem.mail.outbox import mail_domain  # the one Message-ID domain (thread ids too)
from pbem import i18n
from pbem.i18n import LANGUAGES, PSEUDO
from pbem.models import Game, GameStatus, MoveRecord, Seat, SeatKind, utcnow
from pbem.store import dump_state, load_state
from pbem.games.address_prefs import remembered_preferences, seat_preferences
from pbem.games.finish import finish_game
from pbem.games.errors import GameError, GameNotRunning, IllegalMoveError, NotFound, SeatHandedToBot, StaleMove
from pbem.games.setup import SeatSpec, check_setup, default_name, refuse_suppressed
from pbem.games.settings import DEFAULT_SETTINGS, GameSettings, SettingsProblem

# Forced turns played one after another at most (a game is shorter: I2), then a turn email.
MAX_FORCED_CHAIN = 500


# ---------------------------------------------------------------- players


# ---------------------------------------------------------------- state
# Built once: a prepared statement skips SQLAlchemy's per-call statement building.
_SEATS_OF = select(Seat).where(Seat.game_id == bindparam("game_id")).order_by(col(Seat.position))
_LOCK_GAME_WITH_SEATS = (select(Game, Seat).join(Seat, col(Seat.game_id) == col(Game.id))
                         .where(Game.id == bindparam("game_id")).order_by(col(Seat.position))
                         .with_for_update(of=Game).execution_options(populate_existing=True))


def seats_of(session: Session, game_id: int) -> list[Seat]:
    return list(session.exec(_SEATS_OF, params={"game_id": game_id}))


def is_bot_seat(seat: Seat) -> bool:
    return seat.kind == SeatKind.BOT or seat.handed_to_bot


def next_turn_clock(game: Game, seats: list[Seat], cfg: Config, now: datetime, *,
                    to_move: int | None, running: bool) -> dict[str, Any]:
    """The clock columns of the turn of `to_move` starting `now`: deadline and reminders for a
    person, the bot timer for a bot, nothing when nobody moves."""
    seat = seats[to_move] if to_move is not None and running else None
    clock = turn_clock(game, seat, now)
    bot = seat is not None and is_bot_seat(seat)
    clock["bot_due_at"] = now + timedelta(seconds=cfg.BOT_DELAY_SECONDS) if bot else None
    return clock


def start_turn(game: Game, seats: list[Seat], cfg: Config, now: datetime) -> None:
    """Start the clock of whoever moves next, and the bot timer if that is a bot."""
    clock = next_turn_clock(game, seats, cfg, now, to_move=game.to_move,
                            running=game.status == GameStatus.RUNNING)
    for key, value in clock.items():
        setattr(game, key, value)


# ---------------------------------------------------------------- setup


# ---------------------------------------------------------------- create
def create_game(
    session: Session,
    cfg: Config,
    players: Sequence[SeatSpec | str],
    settings: GameSettings = DEFAULT_SETTINGS,
    *,
    seed: int | None = None,
    deck: list[str] | None = None,
    unread: Sequence[SettingsProblem] = (),
    now: datetime | None = None,
) -> Game:
    """Create and start a game; queue the welcome emails and the first turn email.
    `settings.table_talk`: players of an individual game may talk to the whole table (team games
    always let partners talk; pbem/games/talk.py).

    Raises GameError (one-line reason; SetupError from `check_setup`, with `unread`: what
    `read_settings` could not read) before writing anything if the setup is refused.
    """
    now = now or utcnow()
    unnamed = not settings.name.strip()
    setup = check_setup(players, settings, seed=seed, deck=deck, unread=unread)
    specs, settings, deck = setup.specs, setup.settings, setup.deck
    refuse_suppressed(session, specs)  # every path that starts a game meets this refusal
    if deck is None and seed is None:
        # Dealt from the operating system's randomness: nothing to guess from a hand. A seed
        # (2**31 of them) would be found again from seat 0's six cards, and with it every hand
        # and the draw pile. Explicit seeds and decks are for tests and replays.
        deck = engine.shuffled_deck(random.SystemRandom())
    try:
        state = engine.new_game([s.name for s in specs], teams=settings.teams, options=settings.options,
                                seed=seed if deck is None else None, deck=deck)
    except engine.ConfigError as exc:
        raise GameError("engine_config", {"reason": str(exc)}) from None

    game = Game(
        **settings.columns(),
        status=GameStatus.RUNNING,
        seed=seed if deck is None else None,
        deck_json=json.dumps(list(state.deck)),
        state_json=dump_state(state),
        version=state.version,
        to_move=state.to_move,
        created_at=now,
        updated_at=now,
        thread_id=f"<korsar-game-{secrets.token_hex(12)}@{mail_domain(cfg)}>",
    )
    remembered = remembered_preferences(session, [s.email for s in specs])
    languages = [_seat_language(spec, remembered) for spec in specs]
    if unnamed:  # the CLI's or the admin's game: named in its first player's language, as /new does
        with i18n.using(next((lang for spec, lang in zip(specs, languages) if spec.kind == SeatKind.HUMAN),
                             i18n.DEFAULT)):
            game.name = default_name(specs, teams=settings.teams)
    game.name = game.name or " vs ".join(s.name for s in specs)[:200]
    session.add(game)
    session.flush()
    assert game.id is not None  # the flush gave the game its id
    seats = []
    for position, spec in enumerate(specs):
        saved = remembered.get((spec.email or "").lower())
        language = languages[position]
        seat = Seat(game_id=game.id, position=position, name=spec.name, email=spec.email,
                    kind=spec.kind, bot=spec.bot, team=engine.team_of(state, position),
                    link_nonce=secrets.token_hex(8), language=language, **seat_preferences(saved))
        session.add(seat)
        seats.append(seat)
    session.flush()
    start_turn(game, seats, cfg, now)
    session.flush()  # the game row as stored: a forced first turn updates it by its version
    forced = state.to_move is not None and forced_move(seats[state.to_move], state) is not None
    notify.queue_game_start(session, cfg, game, seats, state, turn_email=not forced)
    if forced:
        play_forced_turn(session, cfg, game, seats, now, state=state)
    session.flush()
    return game


# ---------------------------------------------------------------- languages
def _seat_language(spec: SeatSpec, remembered: dict[str, Any]) -> str:
    """A new seat's language: the one given with its spec, else the one its address chose
    last, else English."""
    saved = remembered.get((spec.email or "").lower())
    return spec.language or (saved.language if saved and (saved.language in LANGUAGES
                                                          or saved.language == PSEUDO) else "en")


# ---------------------------------------------------------------- moves
_GAMES = Game.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__
# A move's one versioned UPDATE of its game row (executemany for several games): the SET
# columns are the keys of the parameters; b_id / b_version pick the row at the version seen.
_STORE_MOVE = update(_GAMES).where(_GAMES.c.id == bindparam("b_id"),
                                   _GAMES.c.version == bindparam("b_version"))
_INSERT_MOVE = insert(MoveRecord.__table__)  # type: ignore[attr-defined]  # SQLModel declares no __table__


@dataclass(frozen=True)
class MoveOutcome:
    """What an applied move did."""

    game_id: int
    number: int
    seat: int
    move: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    to_move: int | None = None


@dataclass(frozen=True)
class PlannedMove:
    """A move checked and played by the engine, not stored yet (`store_moves` stores it)."""

    game: Game
    seats: list[Seat]
    position: int
    move: dict[str, Any]
    source: str
    now: datetime
    state: engine.GameState  # after the move
    events: list[dict[str, Any]]
    values: dict[str, Any]  # the game row's columns after the move, the next turn's clock included

    def outcome(self) -> MoveOutcome:
        return MoveOutcome(self.game.id, self.state.version, self.position, self.move,  # type: ignore[arg-type]  # stored: its id is set
                           self.events, self.state.finished, self.state.to_move)


def forced_move(seat: Seat, state: engine.GameState) -> dict[str, Any] | None:
    """The move the service plays at once for `seat`: the only legal move of its turn (a draw,
    mostly) when its player asked for it ("play my forced moves for me"); never a choice of
    two. Bots play their own turns (`play_due_bots`)."""
    if (state.finished or state.to_move != seat.position or not seat.play_forced
            or seat.kind != SeatKind.HUMAN or is_bot_seat(seat)):
        return None
    moves = engine.legal_moves(state)
    return moves[0] if len(moves) == 1 else None


def lock_game_with_seats(session: Session, game_id: int) -> tuple[Game, list[Seat]]:
    """The game row, locked for this transaction (SELECT ... FOR UPDATE; SQLite: BEGIN IMMEDIATE), and
    its seats (`seats_of`), in one round trip."""
    rows = session.exec(_LOCK_GAME_WITH_SEATS, params={"game_id": game_id}).all()
    if not rows:
        raise NotFound("no_such_game")
    return rows[0][0], [seat for _game, seat in rows]


def check_running(game: Game) -> None:
    if game.status == GameStatus.PAUSED:
        raise GameNotRunning("game_paused")
    if game.status == GameStatus.FINISHED:
        raise GameNotRunning("game_finished")
    if game.status == GameStatus.ABORTED:
        raise GameNotRunning("game_aborted")


def refusal(session: Session, game: Game, position: int, move: dict[str, Any],
            expected_version: int | None, *, check_rules: bool = True,
            player: Seat | None = None, state: engine.GameState | None = None) -> GameError | None:
    """Why `position` cannot play `move` (issued at `expected_version`) now, or None. Read-only.

    The order matters for the message: a double click hears "already played", an old link
    to a finished game hears "the game is over", any other old link "the game moved on".
    `player`: the seat when a person (not a bot or an admin) makes the move. `state`: the
    game's state when the caller has it parsed already (the rules are checked on it).
    """
    stale = expected_version is not None and expected_version != game.version
    if stale and expected_version is not None:  # (the second test only narrows the Optional)
        played = session.exec(select(MoveRecord).where(
            MoveRecord.game_id == game.id, MoveRecord.number == expected_version + 1)).first()
        if played is not None and played.seat == position and json.loads(played.move_json) == move:
            return StaleMove("already_played")
    try:
        check_running(game)
    except GameError as exc:
        return exc
    if stale:
        return StaleMove("old_link")
    if player is not None and player.handed_to_bot:
        return SeatHandedToBot("handed_to_bot")
    if check_rules:
        try:
            engine.check_move(state or load_state(game), position, move)
        except engine.IllegalMove as exc:
            return IllegalMoveError.of(exc)
    return None


def plan_move(session: Session, cfg: Config, game: Game, seats: list[Seat], position: int,
              move: dict[str, Any], *, expected_version: int | None = None,
              source: str = "player", now: datetime,
              state: engine.GameState | None = None) -> PlannedMove:
    """Check `position`'s move and play it with the engine; GameError if refused. Writes nothing
    (the game object is left as it is: a refused or failed plan leaves nothing to flush).
    `state`: the game's state when the caller has it loaded already."""
    try:
        move = engine.normalize_move(move)
    except engine.IllegalMove as exc:
        raise IllegalMoveError.of(exc) from None
    if not 0 <= position < len(seats):
        raise IllegalMoveError("no_such_seat")
    problem = refusal(session, game, position, move, expected_version, check_rules=False,
                      player=seats[position] if source == "player" else None)
    if problem is not None:
        raise problem
    try:
        state, events = engine.apply_move(state or load_state(game), position, move)
    except engine.IllegalMove as exc:
        raise IllegalMoveError.of(exc) from None
    values: dict[str, Any] = {
        "state_json": dump_state(state), "version": state.version, "to_move": state.to_move,
        "updated_at": now,
        "status": GameStatus.FINISHED if state.finished else game.status,
        "finished_at": now if state.finished else game.finished_at,
    }
    values.update(next_turn_clock(game, seats, cfg, now, to_move=state.to_move,
                                  running=not state.finished))
    return PlannedMove(game, seats, position, move, source, now, state,
                       [e.to_json() for e in events], values)


def store_moves(session: Session, cfg: Config, planned: list[PlannedMove]) -> list[MoveOutcome]:
    """Store planned moves of different games: one versioned UPDATE and one INSERT into the move
    log for all of them, then their notices and emails (queued in this transaction), then the
    forced moves that follow (`forced_move`: source "forced", the same checks and log)."""
    if not planned:
        return []
    _store_rows(session, planned)
    outcomes = [p.outcome() for p in planned]
    # A forced turn is played at once (`forced_move`), and so may the next one be: the chain
    # ends at a real choice or the end of the game, and within MAX_FORCED_CHAIN all the same.
    for chain in range(MAX_FORCED_CHAIN + 1):
        planned = _after_stored(session, cfg, planned, play_forced=chain < MAX_FORCED_CHAIN)
        if not planned:
            break
        _store_rows(session, planned)
    return outcomes


def _store_rows(session: Session, planned: list[PlannedMove]) -> None:
    """The versioned UPDATE of each game row and the INSERT into the move log."""
    connection = session.connection()
    result = connection.execute(_STORE_MOVE, [
        {"b_id": p.game.id, "b_version": p.game.version, **p.values} for p in planned])
    if result.rowcount != len(planned):
        raise StaleMove("stored_first")
    try:
        connection.execute(_INSERT_MOVE, [
            {"game_id": p.game.id, "number": p.state.version, "seat": p.position,
             "move_json": json.dumps(p.move, sort_keys=True), "events_json": json.dumps(p.events),
             "source": p.source, "created_at": p.now} for p in planned])
    except IntegrityError:
        raise StaleMove("stored_already") from None
    for p in planned:
        metrics.MOVES.labels(p.source).inc()


def _after_stored(session: Session, cfg: Config, planned: list[PlannedMove], *,
                  play_forced: bool) -> list[PlannedMove]:
    """The stored moves' notices and emails; returns the forced moves that follow them, planned
    (their turn emails are not sent: the seat's next email says what was played for it)."""
    forced = []
    for p in planned:
        for key, value in p.values.items():  # the stored row, without marking the object dirty
            set_committed_value(p.game, key, value)
        if p.state.finished:
            finish_game(session, cfg, p.game, p.seats, p.state, "played", now=p.now, events=p.events)
            continue
        seat = p.seats[p.state.to_move]  # type: ignore[index]  # not finished: to_move is set
        move = forced_move(seat, p.state) if play_forced else None
        if move is not None:
            record_attacks(session, cfg, p.game, p.seats, p.events, p.now)
            forced.append(plan_move(session, cfg, p.game, p.seats, seat.position, move,
                                    expected_version=p.state.version, source="forced", now=p.now,
                                    state=p.state))
            continue
        told = notify.queue_turn_email(session, cfg, p.game, seat, p.state)
        # The turn email queued now tells its reader of the attacks on their ships ("since your
        # last turn"): no "your ship was attacked" email besides it.
        record_attacks(session, cfg, p.game, p.seats, p.events, p.now,
                       told=seat if told is not None else None)
    return forced


def play_forced_turn(session: Session, cfg: Config, game: Game, seats: list[Seat], now: datetime, *,
                     state: engine.GameState | None = None) -> bool:
    """Play the turn of the seat to move if it is forced (`forced_move`), and the forced turns
    after it; False (nothing done) when that seat has a choice. The game row must be locked and
    flushed (its pending changes would overwrite the move's UPDATE at the commit)."""
    if game.status != GameStatus.RUNNING or game.to_move is None:
        return False
    state = state or load_state(game)
    move = forced_move(seats[game.to_move], state)
    if move is None:
        return False
    store_moves(session, cfg, [plan_move(session, cfg, game, seats, game.to_move, move,
                                         expected_version=game.version, source="forced", now=now,
                                         state=state)])
    return True


def apply_game_move(
    session: Session,
    cfg: Config,
    game_id: int,
    position: int,
    move: dict[str, Any],
    *,
    expected_version: int | None = None,
    source: str = "player",
    now: datetime | None = None,
    game: Game | None = None,
    seats: list[Seat] | None = None,
) -> MoveOutcome:
    """Apply `position`'s move to the game, store it, queue its emails and start the next turn.

    `game` and `seats`: the caller already locked the game row and loaded its seats in this
    transaction (`lock_game_with_seats`); they are not queried again.
    """
    if game is None or game.id != game_id:
        game, seats = lock_game_with_seats(session, game_id)
    elif seats is None:
        seats = seats_of(session, game_id)
    planned = plan_move(session, cfg, game, seats, position, move, expected_version=expected_version,
                        source=source, now=now or utcnow())
    return store_moves(session, cfg, [planned])[0]


# ---------------------------------------------------------------- bots


# ---------------------------------------------------------------- export


