"""A new game's setup checked: players and their names, addresses, the deal, and the GameSettings
(pbem/games/settings.py) for these players.

Two checks stand side by side: `check_setup` (the CLI, the admin form and `create_game`: English
sentences, each on its seat and field) and `form_problems` (the /new form and a creator's
replacement: the reader's language)."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session

import engine
import engine.bots
from pbem.addresses import AddressRefused, canonical_key, check_address
from pbem.games.errors import GameError
from pbem.games.settings import DEFAULT_SETTINGS, GameSettings, SettingsProblem, reminder_ladder, settings_problems
from pbem.games.names import (HIDDEN_IN_NAME, MAX_NAME_LENGTH, NAME_NEEDED, NOT_IN_NAMES, check_game_name, check_name,
                              hides_characters)
from pbem.i18n import LANGUAGES
from pbem.i18n import gettext as _  # what a player reads: in the seat's language (pages domain)
from pbem.mail.suppression import suppressed_among
from pbem.present.names import NamedSeat, default_game_name, reader_names
from pbem.models import SeatKind



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


class BadAddress(GameError):
    """An address we do not write to: `message` says why, in the reader's language."""


def check_email(address: str) -> str:
    """An address we write to, normalised (`pbem.addresses.check_address`: a mailbox at a domain
    name, the domain in its ASCII form), or BadAddress saying why not."""
    try:
        return check_address(address)
    except AddressRefused as exc:
        raise BadAddress(exc.sentence) from None


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
        return SeatSpec(name=engine.bots.REGISTRY[bot].display, kind=SeatKind.BOT, bot=bot)
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
    settings: GameSettings  # its name checked, its ladder sorted
    deck: list[str] | None

    @property
    def reminders(self) -> list[float]:
        return reminder_ladder(self.settings.reminders)


def _problem(check: Any, value: Any, field: str | None, seat: int | None = None) -> SetupProblem | None:
    try:
        check(value)
    except GameError as exc:
        return SetupProblem(exc.message, field, seat)
    return None


def setup_problems(players: Sequence[SeatSpec], settings: GameSettings = DEFAULT_SETTINGS, *,
                   seed: int | None = None, deck: list[str] | None = None,
                   unread: Sequence[SettingsProblem] = ()) -> list[SetupProblem]:
    """Every reason to refuse this setup (none: it is fine), for the CLI, the admin form and
    `create_game` alike: names, addresses (one address per seat, whatever its case), bots, the
    number of players (the engine's R2), options, the deal and the clock. `unread`: the settings
    `read_settings` could not read, each said in its place."""
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
    teams, opts = settings.teams, settings.options
    problems += [SetupProblem(u.english(), u.field) for u in unread if u.code == "unreadable_options"]
    try:  # how many players and teams: the engine's rules (R2)...
        engine.check_config(len(players), teams, engine.Options())
    except engine.ConfigError as exc:
        problems.append(SetupProblem(str(exc)))
    else:  # ...then the options for them (the waiting time is only for 2 or 3 alone)
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
    problems += [SetupProblem(p.english(), p.field) for p in settings_problems(settings, unread)]
    return [_naming_the_seat(p, players) for p in problems if p is not None]


def _naming_the_seat(problem: SetupProblem, players: Sequence[SeatSpec]) -> SetupProblem:
    """A seat's problem says which seat it is ("Seat 2 (Bob): ..."): the CLI shows the sentence
    alone, and the form marks the seat's field besides."""
    if problem.seat is None:
        return problem
    name = unicodedata.normalize("NFC", players[problem.seat].name).strip()
    shown = f" ({name})" if (name and len(name) <= MAX_NAME_LENGTH and not NOT_IN_NAMES.search(name)
                              and not hides_characters(name)) else ""
    return SetupProblem(f"Seat {problem.seat + 1}{shown}: {problem.message}", problem.field, problem.seat)


def check_setup(players: Sequence[SeatSpec | str], settings: GameSettings = DEFAULT_SETTINGS, *,
                seed: int | None = None, deck: list[str] | None = None,
                unread: Sequence[SettingsProblem] = ()) -> GameSetup:
    """The setup, normalised, or SetupError with every problem (`setup_problems`)."""
    specs = []
    for seat, player in enumerate(players):
        try:
            specs.append(player if isinstance(player, SeatSpec) else parse_player(player))
        except GameError as exc:
            raise SetupError([SetupProblem(f"Seat {seat + 1}: {exc.message}", "name", seat)]) from None
    problems = setup_problems(specs, settings, seed=seed, deck=deck, unread=unread)
    if problems:
        raise SetupError(problems)
    return GameSetup(
        specs=_number_bots([replace(s, name=check_name(s.name), email=s.email and check_email(s.email))
                            for s in specs]),
        settings=replace(settings, name=check_game_name(settings.name) if settings.name.strip()
                         else default_name(specs, teams=settings.teams),
                         reminders=",".join(f"{p:g}" for p in reminder_ladder(settings.reminders))),
        deck=engine.validate_deck(deck) if deck is not None else None,
    )


def default_name(specs: Sequence[SeatSpec], *, teams: bool) -> str:
    """The name of a game its creator left unnamed, in the language in force (its creator's:
    the /new page's, a rematch's asker's; English for the admin and the CLI)."""
    return default_game_name(reader_names([NamedSeat(position, s.name, s.kind, s.bot)
                                           for position, s in enumerate(specs)]), teams=teams)


def refuse_suppressed(session: Session, specs: Sequence[SeatSpec]) -> None:
    """SetupError naming each seat whose address asked never to be emailed (the admin's and the
    CLI's words: English)."""
    never = suppressed_among(session, [s.email for s in specs])
    if never:
        raise SetupError([SetupProblem(f"Seat {seat + 1} ({spec.name}): {spec.email} asked never to be "
                                       "emailed by us; choose another player.", "email", seat)
                          for seat, spec in enumerate(specs) if (spec.email or "").lower() in never])


def player_lines(players: str) -> list[str]:
    return [line.strip() for line in players.splitlines() if line.strip()]


def form_problems(your_name: str, your_email: str, lines: list[str], settings: GameSettings,
                  unread: Sequence[SettingsProblem] = ()) -> tuple[list[SetupProblem], list[SeatSpec]]:
    """The form's problems in the reader's language, each on its field (and line), and the seats
    (the creator first) when there are none."""
    teams = settings.teams
    problems: list[SetupProblem] = []
    creator_name = creator_email = ""
    try:
        creator_name = check_name(your_name)
    except GameError:
        problems.append(SetupProblem(_name_problem(your_name), "your_name"))
    try:
        creator_email = check_email(your_email).lower()
    except GameError as exc:  # what is wrong with the address, once there is one
        problems.append(SetupProblem(exc.message if your_email.strip()
                                     else _("Write your email address, like ann@example.com."), "your_email"))
    specs = [SeatSpec(name=creator_name, email=creator_email)]
    names = {creator_name.casefold()} if creator_name else set()
    emails = {canonical_key(creator_email)} if creator_email else set()  # mailboxes: ann@ is Ann+x@
    for index, line in enumerate(lines):
        try:
            spec = parse_player(line)
        except BadAddress as exc:
            problems.append(SetupProblem(exc.message, "players", index))
            continue
        except GameError:
            problems.append(SetupProblem(_line_problem(line), "players", index))
            continue
        if spec.kind == SeatKind.HUMAN:
            address = (spec.email or "").lower()
            if canonical_key(address) in emails:
                problems.append(SetupProblem(
                    _("Line %(n)d: %(email)s is already playing in this game.", n=index + 1, email=address),
                    "players", index))
            elif spec.name.casefold() in names:
                problems.append(SetupProblem(
                    _("Line %(n)d: two players are called %(name)s: give them different names.",
                      n=index + 1, name=spec.name), "players", index))
            names.add(spec.name.casefold())
            emails.add(canonical_key(address))
            spec = SeatSpec(name=spec.name, email=address, language=spec.language)
        specs.append(spec)
    if not lines:
        problems.append(SetupProblem(_("Add at least one other player: a friend or a bot."), "players"))
    elif not any(p.field == "players" for p in problems):
        count = len(lines) + 1
        try:  # how many may play: the engine's rule (R2.3), said in the reader's words
            engine.check_config(count, teams, engine.Options())
        except engine.ConfigError:
            problems.append(SetupProblem(
                _("Team play needs 4, 6 or 8 players with you; you have %(n)d.", n=count) if teams else
                _("Korsar is played by 2 to 5 players alone (4, 6 or 8 in teams); with you, you have %(n)d.",
                  n=count), "players"))
    problems += [SetupProblem(p.text(), p.field) for p in settings_problems(settings, unread)]
    return problems + _option_problems(settings, unread, count=len(lines) + 1), specs


def _option_problems(settings: GameSettings, unread: Sequence[SettingsProblem], *, count: int
                     ) -> list[SetupProblem]:
    """The engine's options, asked of the engine (R2.3, R7), said in the reader's words."""
    for problem in unread:
        if problem.code == "unreadable_options":  # at /new, what is unreadable is the settlement's select
            return [SetupProblem(problem.text(), "end_settlement")]
    try:
        engine.check_config(count, settings.teams, settings.options)
    except engine.ConfigError:  # the player count itself is refused elsewhere, on its own field
        if settings.options.waiting_time:
            return [SetupProblem(_("The waiting time is only for games of 2 or 3 players alone."), "waiting_time")]
    return []


def _name_problem(text: str) -> str:
    if not text.strip():
        return _("Write your name as the other players will see it.")
    if hides_characters(text):
        return _(HIDDEN_IN_NAME)
    return _("A name has at most 40 characters and no line breaks.")


def _line_problem(line: str) -> str:
    if line.lower().startswith("bot:"):
        return _("%(line)s: there is no such bot. Write one of %(bots)s.", line=line[:60],
                 bots=", ".join(f"bot:{name}" for name in engine.bots.BOTS))
    return _("%(line)s: write a player as Name <email@example.com>, or a bot as bot:greedy.",
             line=line[:60])
