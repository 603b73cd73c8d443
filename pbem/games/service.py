"""Games as stored rows: create, apply a move (locked, versioned, logged), play due bots, export.

Every function works inside the caller's transaction (a `Session`) and writes the state
snapshot, the move record and the outbox rows together, so a crash loses nothing and a
double click or two workers apply a move once. The rules are the engine's business.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import random
import re
import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

import engine
import engine.bots
from sqlalchemy import bindparam, insert, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from pbem.addresses import AddressRefused, canonical_key, check_address
from pbem.schedule import turn_clock
from pbem.games.clocks.notices import record_attacks  # "your ship was attacked" notices
from pbem.config import Config
from pbem.db import session_scope
from pbem.letters import notify
from pbem.mail.outbox import mail_domain  # the one Message-ID domain (thread ids too)
from pbem.mail.suppression import suppressed_among
from pbem.i18n import LANGUAGES, PSEUDO
from pbem.i18n import gettext as _  # what a player reads: in the seat's language (pages domain)
from pbem.i18n import lazy
from pbem.games.move_refusals import move_refusal
from pbem.models import AddressPreference, Game, GameStatus, MoveRecord, Seat, SeatKind, utcnow
from pbem.store import dump_state, load_state  # re-exported: many callers read a game's state here

MAX_NAME_LENGTH = 40  # a player's name (the admin form's maxlength is this)
MAX_GAME_NAME_LENGTH = 80  # a game's name: it leads every subject line
# Forced turns played one after another at most (a game is shorter: I2), then a turn email.
MAX_FORCED_CHAIN = 500
BOT_RETRY_DELAY = timedelta(minutes=5)  # after an unexpected error in one game's bot move
# The time a player has for each move, at every entry (the /new form, the dashboard, the CLI,
# this service): `check_deadline_hours`. Less than an hour makes a bot-only game a busy loop of
# the worker; more than 30 days is a game nobody remembers.
MIN_DEADLINE_HOURS = 1
MAX_DEADLINE_HOURS = 24 * 30
DEADLINE_OUT_OF_RANGE = lazy("The deadline for each move must be between 1 hour and 30 days (720 hours).")
ON_TIMEOUT_CHOICES = ("autoplay", "pause", "bot")
NAME_NEEDED = "Every player needs a name. Give this player a name."

log = logging.getLogger("pbem.games")


class GameError(Exception):
    """A refused request: `message` is shown to the user as is, `status` is the HTTP status."""

    status = 400

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if status is not None:
            self.status = status


class NotFound(GameError):
    status = 404


class StaleMove(GameError):
    status = 409
    already_played = False  # the same seat's same move was stored for this version


class IllegalMoveError(GameError):
    status = 422


class GameNotRunning(GameError):
    """Paused (409) or over (410)."""

    status = 409


class SeatHandedToBot(GameError):
    """A bot plays the seat now: its player's moves wait until an admin hands it back."""

    status = 409


class GameNotOver(GameError):
    """Refused until the game is finished or aborted (its deck would give away the deal)."""

    status = 409


# ---------------------------------------------------------------- players
@dataclass(frozen=True)
class SeatSpec:
    """One seat of a new game: a human with an email address, or a bot."""

    name: str
    email: str | None = None
    kind: str = SeatKind.HUMAN
    bot: str | None = None
    # "en", "fr", "vi" (pbem/i18n.py); None: the language the address chose last, else English.
    language: str | None = None


_PLAYER_RE = re.compile(r"^\s*(?P<name>.*?)\s*<(?P<email>[^<>]*)>\s*$", re.S)
# 'Élodie <elodie@example.com> [fr]': a person's spec may end with the code of their language.
_LANGUAGE_RE = re.compile(r"^(?P<player>.*?)\s*\[\s*(?P<code>[^\[\]]*?)\s*\]\s*$", re.S)


def check_language(code: str) -> str:
    """A language we speak ("fr", "FR" -> "fr"), or GameError."""
    if code.strip().lower() not in LANGUAGES:
        raise GameError(f"Unknown language {code.strip()!r}: choose one of {', '.join(LANGUAGES)}.")
    return code.strip().lower()


# The bidirectional controls: embeddings, overrides, isolates and the marks (LRM, RLM, ALM).
# They reorder the text around them on a page or in an email: refused in names and in talk.
_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
BIDI_CONTROLS = re.compile(f"[{_BIDI}]")
# What a name may not hold: control characters (C0, DEL, C1: line breaks and tabs included),
# the line and paragraph separators and the bidirectional controls; nor the invisible spaces
# (zero-width space, word joiner, byte order mark: "Ann" and "An\u200bn" would be two players
# who look alike). Every other character is fine, the zero-width joiner of emoji sequences
# (U+200D, the pirate flag) and the non-joiner of Persian and Indic scripts (U+200C) included,
# when they stand inside a word (`_STRAY_JOINER`).
_NOT_IN_NAMES = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{_BIDI}]")
_INVISIBLE_IN_NAMES = re.compile("[\u200b\u2060\ufeff]")
# A joiner at either end of a name, beside a space or beside another joiner joins nothing.
_STRAY_JOINER = re.compile("(?<![^\\s\u200c\u200d])[\u200c\u200d]|[\u200c\u200d](?![^\\s\u200c\u200d])")
HIDDEN_IN_NAME = lazy("A name may not hold invisible characters, such as zero-width spaces or text "
                      "direction marks: type it again by hand.")


def hides_characters(name: str) -> bool:
    """Does `name` hold a character nobody sees (an invisible space, a stray joiner, a bidi control)?"""
    return bool(BIDI_CONTROLS.search(name) or _INVISIBLE_IN_NAMES.search(name) or _STRAY_JOINER.search(name))


def _check_text_name(name: str, what: str, limit: int) -> str:
    """`name` normalised (NFC, outer spaces off), or GameError naming `what` ("A player name")."""
    name = unicodedata.normalize("NFC", name).strip()
    if not name:
        raise GameError(NAME_NEEDED if what == "A player name" else f"{what} may not be empty.")
    if _NOT_IN_NAMES.search(name):
        raise GameError(f"{what} may not contain line breaks or control characters.")
    if _INVISIBLE_IN_NAMES.search(name) or _STRAY_JOINER.search(name):
        raise GameError(f"{what} may not contain invisible characters such as zero-width spaces.")
    if len(name) > limit:
        raise GameError(f"{what} may have at most {limit} characters.")
    return name


def check_name(name: str) -> str:
    """A player's display name safe for headers and pages, or GameError."""
    return _check_text_name(name, "A player name", MAX_NAME_LENGTH)


def check_game_name(name: str) -> str:
    """A game's name (subjects and pages), or GameError with the game name's own sentence."""
    return _check_text_name(name, "A game name", MAX_GAME_NAME_LENGTH)


class BadAddress(GameError):
    """An address we do not write to: `message` says why, in the reader's language."""


def check_email(address: str) -> str:
    """An address we write to, normalised (`pbem.addresses.check_address`: a mailbox at a domain
    name, the domain in its ASCII form), or BadAddress saying why not."""
    try:
        return check_address(address)
    except AddressRefused as exc:
        raise BadAddress(exc.sentence) from None


def check_deadline_hours(hours: float) -> float:
    """The hours a player has for each move, between MIN_DEADLINE_HOURS and MAX_DEADLINE_HOURS
    (NaN and infinity refused), or GameError: every entry's one check."""
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) \
            or not MIN_DEADLINE_HOURS <= hours <= MAX_DEADLINE_HOURS:  # NaN compares false
        raise GameError(_(DEADLINE_OUT_OF_RANGE))
    return float(hours)


def bounded_deadline_hours(hours: float) -> float:
    """`hours` brought within the bounds: a rematch, or a proposal, of a game set up before them."""
    if not math.isfinite(hours):
        return 72.0
    return min(max(float(hours), MIN_DEADLINE_HOURS), MAX_DEADLINE_HOURS)


def parse_player(text: str) -> SeatSpec:
    """'Ann <ann@example.com>', 'ann@example.com' or 'bot:greedy' / 'bot:random' -> SeatSpec;
    a person's spec may end with their language: 'Élodie <elodie@example.com> [fr]'."""
    text = text.strip()
    tagged = _LANGUAGE_RE.match(text)
    if tagged and not tagged["player"].lower().startswith("bot:"):
        return replace(parse_player(tagged["player"]), language=check_language(tagged["code"]))
    if text.lower().startswith("bot:"):
        bot = text[4:].strip().lower()
        if bot not in engine.bots.BOTS:
            raise GameError(f"Unknown bot {bot!r}: choose one of {', '.join(engine.bots.BOTS)}.")
        return SeatSpec(name=f"{bot.capitalize()} bot", kind=SeatKind.BOT, bot=bot)
    match = _PLAYER_RE.match(text)
    if match:
        return SeatSpec(name=check_name(match["name"]), email=check_email(match["email"]))
    if "@" in text and "<" not in text and not any(ch.isspace() for ch in text):
        address = check_email(text)
        return SeatSpec(name=check_name(address.split("@")[0]), email=address)
    raise GameError(f"{text!r} is not a player like 'Ann <ann@example.com>' or 'bot:greedy'.")


def _number_bots(specs: list[SeatSpec]) -> list[SeatSpec]:
    """Number repeated bot names (Greedy bot, Greedy bot 2); humans' names are unique already."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        key = spec.name.casefold()
        if key in seen and spec.kind == SeatKind.BOT:
            seen[key] += 1
            spec = replace(spec, name=f"{spec.name} {seen[key]}")
        else:
            seen[key] = 1
        out.append(spec)
    return out


def parse_options(options: dict[str, Any] | None) -> engine.Options:
    """{'waiting_time': 'on', 'end_settlement': 'none'} -> engine.Options, or GameError."""
    values = dict(options or {})
    if isinstance(values.get("waiting_time"), str):  # command line and forms say on/off
        word = values["waiting_time"].strip().lower()
        values["waiting_time"] = {"on": True, "true": True, "yes": True, "1": True,
                                  "off": False, "false": False, "no": False, "0": False}.get(word, word)
    try:
        return engine.Options.from_json(values)
    except engine.ConfigError as exc:
        raise GameError(str(exc)) from None


def _options_json(options: engine.Options) -> str:
    return json.dumps({"end_settlement": options.end_settlement,
                       "waiting_time": options.waiting_time}, sort_keys=True)


# ---------------------------------------------------------------- state
# Built once: a prepared statement skips SQLAlchemy's per-call statement building.
_SEATS_OF = select(Seat).where(Seat.game_id == bindparam("game_id")).order_by(col(Seat.position))
_LOCK_GAME = (select(Game).where(Game.id == bindparam("game_id")).with_for_update()
              .execution_options(populate_existing=True))
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
@dataclass(frozen=True)
class SetupProblem:
    """One reason a game's setup is refused: `seat` (0-based, in the order given) and `field`
    ("name", "email", "bot" of that seat) say where; without a seat, `field` is the game's
    ("name", "waiting_time", "deadline_hours", "reminders", "on_timeout") or None (the whole)."""

    message: str
    field: str | None = None
    seat: int | None = None


class SetupError(GameError):
    """A refused setup: `message` is the first problem (one line), `problems` all of them."""

    def __init__(self, problems: list[SetupProblem]) -> None:
        super().__init__(problems[0].message)
        self.problems = problems


@dataclass(frozen=True)
class GameSetup:
    """A setup `check_setup` accepted, normalised (bots numbered, ladder sorted)."""

    specs: list[SeatSpec]
    options: engine.Options
    name: str
    deck: list[str] | None
    reminders: list[float]


def _problem(check: Any, value: Any, field: str | None, seat: int | None = None) -> SetupProblem | None:
    try:
        check(value)
    except GameError as exc:
        return SetupProblem(exc.message, field, seat)
    return None


def setup_problems(players: Sequence[SeatSpec], *, teams: bool = False, seed: int | None = None,
                   deck: list[str] | None = None, options: dict[str, Any] | engine.Options | None = None,
                   name: str = "", deadline_hours: float = 72.0, reminders: str = "50,85",
                   on_timeout: str = "autoplay") -> list[SetupProblem]:
    """Every reason to refuse this setup (none: it is fine), for the CLI, the admin form and
    `create_game` alike: names, addresses (one address per seat, whatever its case), bots, the
    number of players (the engine's R2), options, the deal and the clock."""
    problems: list[SetupProblem | None] = []
    seen_names: set[str] = set()
    seen_emails: set[str] = set()
    for seat, spec in enumerate(players):
        if spec.language is not None and spec.language not in LANGUAGES:
            problems.append(_problem(check_language, spec.language, "language", seat))
        if spec.kind == SeatKind.BOT:
            if spec.bot not in engine.bots.BOTS:
                problems.append(SetupProblem(
                    f"Unknown bot {spec.bot!r}: choose one of {', '.join(engine.bots.BOTS)}.", "bot", seat))
            problems.append(_problem(check_name, spec.name, "name", seat))
            seen_names.add(unicodedata.normalize("NFC", spec.name).strip().casefold())
            continue
        if not spec.name.strip():
            problems.append(SetupProblem(NAME_NEEDED, "name", seat))
        else:
            problems.append(_problem(check_name, spec.name, "name", seat))
            key = unicodedata.normalize("NFC", spec.name).strip().casefold()
            if key in seen_names:
                problems.append(SetupProblem(
                    f"Two players are called {spec.name.strip()!r}: give them different names."))
            seen_names.add(key)
        if not spec.email:
            problems.append(SetupProblem("A person needs an email address (or choose a bot).", "email", seat))
            continue
        bad_email = _problem(check_email, spec.email, "email", seat)
        problems.append(bad_email)
        if bad_email is None:  # one mailbox, one seat: ann@ and Ann+x@ are the same person
            if canonical_key(spec.email) in seen_emails:
                problems.append(SetupProblem("Two seats have the same email address."))
            seen_emails.add(canonical_key(spec.email))
    try:
        opts = options if isinstance(options, engine.Options) else parse_options(options)
    except GameError as exc:
        problems.append(SetupProblem(exc.message))
        opts = None
    try:  # how many players and teams: the engine's rules (R2)...
        engine.check_config(len(players), teams, engine.Options())
    except engine.ConfigError as exc:
        problems.append(SetupProblem(str(exc)))
    else:  # ...then the options for them (the waiting time is only for 2 or 3 alone)
        if opts is not None:
            try:
                engine.check_config(len(players), teams, opts)
            except engine.ConfigError as exc:
                problems.append(SetupProblem(str(exc), "waiting_time" if opts.waiting_time else None))
    if seed is not None and deck is not None:
        problems.append(SetupProblem("Give a seed or a deck, not both."))
    elif deck is not None:
        try:
            engine.validate_deck(deck)
        except engine.ConfigError as exc:
            problems.append(SetupProblem(str(exc)))
    if on_timeout not in ON_TIMEOUT_CHOICES:
        problems.append(SetupProblem(f"on_timeout must be one of {', '.join(ON_TIMEOUT_CHOICES)}.", "on_timeout"))
    problems.append(_problem(check_deadline_hours, deadline_hours, "deadline_hours"))
    problems.append(_problem(reminder_ladder, reminders, "reminders"))
    if name.strip():
        problems.append(_problem(check_game_name, name, "name"))
    return [_naming_the_seat(p, players) for p in problems if p is not None]


def _naming_the_seat(problem: SetupProblem, players: Sequence[SeatSpec]) -> SetupProblem:
    """A seat's problem says which seat it is ("Seat 2 (Bob): ..."): the CLI shows the sentence
    alone, and the form marks the seat's field besides."""
    if problem.seat is None:
        return problem
    name = unicodedata.normalize("NFC", players[problem.seat].name).strip()
    shown = f" ({name})" if (name and len(name) <= MAX_NAME_LENGTH and not _NOT_IN_NAMES.search(name)
                              and not hides_characters(name)) else ""
    return SetupProblem(f"Seat {problem.seat + 1}{shown}: {problem.message}", problem.field, problem.seat)



def reminder_ladder(text: str) -> list[float]:
    """'50,85' -> [50.0, 85.0] (sorted; '' is none), or GameError."""
    try:
        ladder = sorted(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise GameError(f"Reminders are percentages of the deadline separated by commas, like 50,85, "
                        f"not {text!r}.") from None
    if any(not 0 < p < 100 for p in ladder):  # also refuses NaN
        raise GameError("Each reminder must fall between 0 and 100 percent of the deadline.")
    return ladder


def check_setup(players: Sequence[SeatSpec | str], *, teams: bool = False, seed: int | None = None,
                deck: list[str] | None = None, options: dict[str, Any] | engine.Options | None = None,
                name: str = "", deadline_hours: float = 72.0, reminders: str = "50,85",
                on_timeout: str = "autoplay") -> GameSetup:
    """The setup, normalised, or SetupError with every problem (`setup_problems`)."""
    specs = []
    for seat, player in enumerate(players):
        try:
            specs.append(player if isinstance(player, SeatSpec) else parse_player(player))
        except GameError as exc:
            raise SetupError([SetupProblem(f"Seat {seat + 1}: {exc.message}", "name", seat)]) from None
    problems = setup_problems(specs, teams=teams, seed=seed, deck=deck, options=options, name=name,
                              deadline_hours=deadline_hours, reminders=reminders, on_timeout=on_timeout)
    if problems:
        raise SetupError(problems)
    return GameSetup(
        specs=_number_bots([replace(s, name=check_name(s.name), email=s.email and check_email(s.email))
                            for s in specs]),
        options=options if isinstance(options, engine.Options) else parse_options(options),
        name=check_game_name(name) if name.strip() else "",
        deck=engine.validate_deck(deck) if deck is not None else None,
        reminders=reminder_ladder(reminders),
    )


def refuse_suppressed(session: Session, specs: Sequence[SeatSpec]) -> None:
    """SetupError naming each seat whose address asked never to be emailed (the admin's and the
    CLI's words: English)."""
    never = suppressed_among(session, [s.email for s in specs])
    if never:
        raise SetupError([SetupProblem(f"Seat {seat + 1} ({spec.name}): {spec.email} asked never to be "
                                       "emailed by us; choose another player.", "email", seat)
                          for seat, spec in enumerate(specs) if (spec.email or "").lower() in never])


# ---------------------------------------------------------------- create
def create_game(
    session: Session,
    cfg: Config,
    players: Sequence[SeatSpec | str],
    *,
    teams: bool = False,
    seed: int | None = None,
    deck: list[str] | None = None,
    options: dict[str, Any] | engine.Options | None = None,
    name: str = "",
    deadline_hours: float = 72.0,
    reminders: str = "50,85",
    on_timeout: str = "autoplay",
    table_talk: bool = False,
    now: datetime | None = None,
) -> Game:
    """Create and start a game; queue the welcome emails and the first turn email.
    `table_talk`: players of an individual game may talk to the whole table (team games always
    let partners talk; pbem/games/talk.py).

    Raises GameError (one-line reason; SetupError from `check_setup`) before writing anything if
    the setup is refused.
    """
    now = now or utcnow()
    setup = check_setup(players, teams=teams, seed=seed, deck=deck, options=options, name=name,
                        deadline_hours=deadline_hours, reminders=reminders, on_timeout=on_timeout)
    specs, opts, name, deck, ladder = setup.specs, setup.options, setup.name, setup.deck, setup.reminders
    refuse_suppressed(session, specs)  # every path that starts a game meets this refusal
    if deck is None and seed is None:
        # Dealt from the operating system's randomness: nothing to guess from a hand. A seed
        # (2**31 of them) would be found again from seat 0's six cards, and with it every hand
        # and the draw pile. Explicit seeds and decks are for tests and replays.
        deck = engine.shuffled_deck(random.SystemRandom())
    try:
        state = engine.new_game([s.name for s in specs], teams=teams, options=opts,
                                seed=seed if deck is None else None, deck=deck)
    except engine.ConfigError as exc:
        raise GameError(str(exc)) from None

    game = Game(
        name=name or " vs ".join(s.name for s in specs)[:200],
        status=GameStatus.RUNNING,
        teams=teams,
        options_json=_options_json(opts),
        seed=seed if deck is None else None,
        deck_json=json.dumps(list(state.deck)),
        state_json=dump_state(state),
        version=state.version,
        to_move=state.to_move,
        created_at=now,
        updated_at=now,
        thread_id=f"<korsar-game-{secrets.token_hex(12)}@{mail_domain(cfg)}>",
        deadline_hours=float(deadline_hours),
        reminders=",".join(f"{p:g}" for p in ladder),
        on_timeout=on_timeout,
        table_talk=table_talk,
    )
    session.add(game)
    session.flush()
    assert game.id is not None  # the flush gave the game its id
    seats = []
    remembered = remembered_preferences(session, [s.email for s in specs])
    for position, spec in enumerate(specs):
        saved = remembered.get((spec.email or "").lower())
        language = spec.language or (saved.language if saved and (saved.language in LANGUAGES
                                                                   or saved.language == PSEUDO) else "en")
        seat = Seat(game_id=game.id, position=position, name=spec.name, email=spec.email,
                    kind=spec.kind, bot=spec.bot, team=engine.team_of(state, position),
                    link_nonce=secrets.token_hex(8), language=language, **_seat_preferences(saved))
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
def remembered_preferences(session: Session, emails: Sequence[str | None]) -> dict[str, AddressPreference]:
    """What each address chose for all its games (lower-case address -> its row)."""
    keys = sorted({e.strip().lower() for e in emails if e})
    if not keys:
        return {}
    rows = session.exec(select(AddressPreference).where(col(AddressPreference.email).in_(keys))).all()
    return {row.email: row for row in rows}


def remembered_languages(session: Session, emails: Sequence[str | None]) -> dict[str, str]:
    """The language each address chose last (lower-case address -> code), for a new game."""
    rows = remembered_preferences(session, emails).values()
    # The pseudo-locale is stored by tests only (set_seat_language refuses it): every word marked.
    return {row.email: row.language for row in rows if row.language in LANGUAGES or row.language == PSEUDO}


def _seat_preferences(saved: AddressPreference | None) -> dict[str, Any]:
    """A new seat's settings from its address's choices ("my games"); defaults where none."""
    if saved is None:
        return {}
    chosen = {"timezone": saved.timezone, "digest": saved.digest, "play_forced": saved.play_forced,
              "unsubscribed": None if saved.reminders is None else not saved.reminders}
    return {key: value for key, value in chosen.items() if value is not None}


def remember_language(session: Session, email: str | None, code: str, now: datetime | None = None) -> None:
    """The next game `email` joins starts in `code`."""
    if not email:
        return
    key = email.strip().lower()
    row = session.get(AddressPreference, key)
    if row is None:
        try:
            with session.begin_nested():  # the address's first choice...
                session.add(AddressPreference(email=key, language=code, updated_at=now or utcnow()))
            return
        except IntegrityError:  # ...made at the same moment in another game: this one is the last
            row = session.get(AddressPreference, key)
    if row is not None:
        row.language, row.updated_at = code, now or utcnow()
        session.add(row)


def set_seat_language(session: Session, seat: Seat, code: str, now: datetime | None = None) -> bool:
    """The seat reads `code` from now on (pages at once, emails from the next one), and its
    address's next game starts in it. GameError for a language we do not speak; False if it was
    the seat's language already."""
    code = check_language(code)
    changed = seat.language != code
    seat.language = code
    session.add(seat)
    remember_language(session, seat.email, code, now)
    return changed


def change_seat_language(session: Session, game_id: int, position: int, code: str, *,
                         now: datetime | None = None) -> Seat:
    """The admin's change of a seat's language (`set_seat_language`), the game row locked."""
    _game, seats = lock_game_with_seats(session, game_id)
    seat = next((s for s in seats if s.position == position), None)
    if seat is None:
        raise NotFound(f"Game {game_id} has no seat {position + 1}.")
    set_seat_language(session, seat, code, now)
    return seat


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
    """`lock_game` and `seats_of` in one round trip (the move path)."""
    rows = session.exec(_LOCK_GAME_WITH_SEATS, params={"game_id": game_id}).all()
    if not rows:
        raise NotFound(_("There is no such game."))
    return rows[0][0], [seat for _game, seat in rows]


def lock_game(session: Session, game_id: int) -> Game:
    """The game row, locked for this transaction (SELECT ... FOR UPDATE; SQLite: BEGIN IMMEDIATE)."""
    game = session.exec(_LOCK_GAME, params={"game_id": game_id}).first()
    if game is None:
        raise NotFound(_("There is no such game."))
    return game


def check_running(game: Game) -> None:
    if game.status == GameStatus.PAUSED:
        raise GameNotRunning(_("This game is paused: moves wait until an admin resumes it."), 409)
    if game.status == GameStatus.FINISHED:
        raise GameNotRunning(_("This game is over: no more moves can be played."), 410)
    if game.status == GameStatus.ABORTED:
        raise GameNotRunning(_("This game was stopped by an admin: no more moves can be played."), 410)


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
            already = StaleMove(_("You already played this move; it counted once."))
            already.already_played = True
            return already
    try:
        check_running(game)
    except GameError as exc:
        return exc
    if stale:
        return StaleMove(_("This link is from an older email: the game has moved on since. "
                           "Open your game page to see the moves you have now."))
    if player is not None and player.handed_to_bot:
        return SeatHandedToBot(_("A bot plays your seat now; ask the game's admin to hand it back to you."))
    if check_rules:
        try:
            engine.check_move(state or load_state(game), position, move)
        except engine.IllegalMove as exc:
            return IllegalMoveError(move_refusal(exc))
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
        raise IllegalMoveError(move_refusal(exc)) from None
    if not 0 <= position < len(seats):
        raise IllegalMoveError(_("There is no such seat in this game."))
    problem = refusal(session, game, position, move, expected_version, check_rules=False,
                      player=seats[position] if source == "player" else None)
    if problem is not None:
        raise problem
    try:
        state, events = engine.apply_move(state or load_state(game), position, move)
    except engine.IllegalMove as exc:
        raise IllegalMoveError(move_refusal(exc)) from None
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
        raise StaleMove(_("Someone else's move was stored first. Open your game page."))
    try:
        connection.execute(_INSERT_MOVE, [
            {"game_id": p.game.id, "number": p.state.version, "seat": p.position,
             "move_json": json.dumps(p.move, sort_keys=True), "events_json": json.dumps(p.events),
             "source": p.source, "created_at": p.now} for p in planned])
    except IntegrityError:
        raise StaleMove(_("This move was already stored. Open your game page.")) from None


def _after_stored(session: Session, cfg: Config, planned: list[PlannedMove], *,
                  play_forced: bool) -> list[PlannedMove]:
    """The stored moves' notices and emails; returns the forced moves that follow them, planned
    (their turn emails are not sent: the seat's next email says what was played for it)."""
    forced = []
    for p in planned:
        for key, value in p.values.items():  # the stored row, without marking the object dirty
            set_committed_value(p.game, key, value)
        if p.state.finished:
            record_attacks(session, cfg, p.game, p.seats, p.events, p.now)
            notify.queue_game_over(session, cfg, p.game, p.seats, p.state)
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

    `game` and `seats`: the caller already locked the game row (`lock_game`) and loaded its
    seats (`seats_of`) in this transaction; they are not queried again.
    """
    if game is None or game.id != game_id:
        game, seats = lock_game_with_seats(session, game_id)
    elif seats is None:
        seats = seats_of(session, game_id)
    planned = plan_move(session, cfg, game, seats, position, move, expected_version=expected_version,
                        source=source, now=now or utcnow())
    return store_moves(session, cfg, [planned])[0]


# ---------------------------------------------------------------- bots
def bot_rng(cfg: Config, game: Game, seat: Seat) -> random.Random:
    """The bot's random source for this game, version and seat: the same on every call with the
    same SECRET_KEY (the move planned and the move applied agree), but keyed with it, so a player
    who knows the game id and version cannot replay the bot's draws and read its hand from its
    choice (as with the old `random.Random(f"{id}:{version}:{position}")`)."""
    digest = hmac.new(cfg.SECRET_KEY.encode(), f"bot:{game.id}:{game.version}:{seat.position}".encode(),
                      hashlib.sha256).digest()
    return random.Random(int.from_bytes(digest, "big"))


def bot_move(game: Game, seat: Seat, state: engine.GameState,
             view: dict[str, Any] | None = None, *, cfg: Config) -> dict[str, Any]:
    """The move the seat's bot picks (deterministic per game, version and SECRET_KEY: see
    `bot_rng`). `view`: the seat's view of `state` when the caller has it already."""
    bot = engine.bots.get_bot(seat.bot or "greedy")
    return bot.choose(view or engine.player_view(state, seat.position), bot_rng(cfg, game, seat))


def _play_one_bot(engine_or_session: Engine | Session, cfg: Config, game_id: int,
                  now: datetime) -> bool:
    """Play the game's due bot move, if it still is one; True if a move was played.

    Given an Engine, the bot thinks outside any transaction (a search bot takes up to a second:
    holding the game row that long, on SQLite the whole database's write lock, would hold up
    mail delivery and the clocks), then the move is applied under the row lock only if the game
    has not moved on meanwhile. Given a Session, all of it happens in the caller's transaction.
    """
    if isinstance(engine_or_session, Session):
        session = engine_or_session
        game, seats = lock_game_with_seats(session, game_id)
        if (game.status != GameStatus.RUNNING or game.bot_due_at is None or game.bot_due_at > now
                or game.to_move is None):
            return False
        seat = seats[game.to_move]
        if not is_bot_seat(seat):
            game.bot_due_at = None
            session.add(game)
            return False
        move = bot_move(game, seat, load_state(game), cfg=cfg)
        apply_game_move(session, cfg, game_id, seat.position, move, expected_version=game.version,
                        source="bot", now=now, game=game, seats=seats)
        return True
    with session_scope(engine_or_session) as s:  # a plain read: no row lock while thinking
        read = s.get(Game, game_id)
        if (read is None or read.status != GameStatus.RUNNING or read.bot_due_at is None
                or read.bot_due_at > now or read.to_move is None):
            return False
        seat = seats_of(s, game_id)[read.to_move]
        version = read.version
        state = load_state(read)
    planned = bot_move(read, seat, state, cfg=cfg) if is_bot_seat(seat) else None  # no transaction
    with session_scope(engine_or_session) as s:
        game, seats = lock_game_with_seats(s, game_id)
        if (game.version != version or game.status != GameStatus.RUNNING
                or game.bot_due_at is None or game.bot_due_at > now or game.to_move is None):
            return False  # moved on while the bot thought: the next poll looks again
        seat = seats[game.to_move]
        if planned is None or not is_bot_seat(seat):
            game.bot_due_at = None
            s.add(game)
            return False
        apply_game_move(s, cfg, game_id, seat.position, planned, expected_version=version,
                        source="bot", now=now, game=game, seats=seats)
        return True


def due_bot_games(session: Session, now: datetime, limit: int = 100) -> list[int]:
    """Ids of running games with a bot move due at `now`, the longest waiting first."""
    ids = session.exec(
        select(col(Game.id)).where(Game.status == GameStatus.RUNNING, col(Game.bot_due_at) <= now)
        .order_by(col(Game.bot_due_at)).limit(limit))
    return [game_id for game_id in ids if game_id is not None]  # a stored game has its id: narrows only


def _defer_bot(engine_or_session: Engine | Session, game_id: int, when: datetime) -> None:
    statement = update(Game).where(col(Game.id) == game_id).values(bot_due_at=when)
    if isinstance(engine_or_session, Session):
        engine_or_session.execute(statement)
    else:
        with session_scope(engine_or_session) as s:
            s.execute(statement)


def play_due_bots(engine_or_session: Engine | Session, cfg: Config, now: datetime | None = None,
                  max_moves: int = 1000, budget_seconds: float | None = None) -> int:
    """Play the bot moves due at `now`, oldest due first; returns how many were played.

    `budget_seconds`: no new move is started once this much wall time has passed (at least one
    is played), so a backlog of thinking bots drains over the worker's polls instead of holding
    up its other jobs; what is left stays due. None: play everything that is due.
    Given an Engine, each move is its own transaction (two workers may run this at once: the
    row lock and version check make the second one skip). Given a Session, the caller commits.
    """
    now = now or utcnow()
    started = utcnow()
    played = 0
    while played < max_moves:
        progressed = False
        if isinstance(engine_or_session, Session):
            ids = due_bot_games(engine_or_session, now)
        else:
            with session_scope(engine_or_session) as s:
                ids = due_bot_games(s, now)
        for game_id in ids:
            if (budget_seconds is not None and played
                    and (utcnow() - started).total_seconds() >= budget_seconds):
                return played
            try:
                if isinstance(engine_or_session, Session):
                    with engine_or_session.begin_nested():
                        ok = _play_one_bot(engine_or_session, cfg, game_id, now)
                else:
                    ok = _play_one_bot(engine_or_session, cfg, game_id, now)
            except StaleMove:  # another worker played it first
                ok = False
            except Exception:  # noqa: BLE001  (one broken game, an illegal bot move included, must not stop every other bot)
                log.exception("bot move failed", extra={"game_id": game_id})
                _defer_bot(engine_or_session, game_id, now + BOT_RETRY_DELAY)
                ok = False
            if ok:
                played += 1
                progressed = True
            if played >= max_moves:
                break
        if not progressed:
            break
    return played


# ---------------------------------------------------------------- export
def moves_of(session: Session, game_id: int) -> list[MoveRecord]:
    return list(session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)
                             .order_by(col(MoveRecord.number))))


def is_over(game: Game) -> bool:
    return game.status in (GameStatus.FINISHED, GameStatus.ABORTED)


def export_record(session: Session, game_id: int, *, live: bool = False) -> dict[str, Any]:
    """The game as a record `python -m engine replay` reads: players, teams, options, deck, moves.

    The deck is the order of every hand and of the draw pile, so the record of a game still being
    played is refused (GameNotOver, 409) unless `live=True`: the server's own consistency checks,
    whose record nobody sees.
    """
    game = session.get(Game, game_id)
    if game is None:
        raise NotFound(f"There is no game {game_id}.")
    if not live and not is_over(game):
        raise GameNotOver(f"Game {game_id} is still being played: its record holds the deck (every hand and "
                          "the draw pile), so it can be exported once the game is over.")
    seats = seats_of(session, game_id)
    return {
        "players": [s.name for s in seats],
        "teams": game.teams,
        "options": json.loads(game.options_json),
        "deck": json.loads(game.deck_json),
        "moves": [{"player": m.seat, **json.loads(m.move_json)} for m in moves_of(session, game_id)],
    }


def replay_record(record: dict[str, Any]) -> engine.GameState:
    """Replay an exported record with the engine, as `python -m engine replay` does."""
    from engine.replay import replay_state

    state, error = replay_state(record)
    if error is not None:
        raise engine.IllegalMove(f"move {error['move_index']}: {error['message']}")
    return state
