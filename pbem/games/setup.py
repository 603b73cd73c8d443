"""A new game's setup checked: players and their names, addresses, the deal, and the GameSettings
(pbem/games/settings.py) for these players.

Every problem is a refusal by its code (`pbem.refusals`), worded where it is shown: the CLI and
the admin form in English, /new in the reader's language. One pass (`_setup`) checks and
normalises for every entry: `check_setup` (the CLI, the admin form, `create_game`) names a seat
"Seat 2 (Bob): ...", `check_form` (/new, and `form_problems` for a creator's replacement) reads
the form and names a line "Line 2: ...", the creator's problems on their own fields."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlmodel import Session

import engine
import engine.bots
from pbem.addresses import NOT_AN_ADDRESS, AddressRefused, canonical_key, check_address
from pbem.games.errors import GameError, declare_refusals
from pbem.games.settings import (DEFAULT_SETTINGS, GameSettings, SettingsProblem, checked_settings, reminder_ladder)
from pbem.games.names import (HIDDEN_IN_NAME, MAX_NAME_LENGTH, NOT_IN_NAMES, check_name, graphemes,
                              hides_characters, shortened)
from pbem.i18n import LANGUAGES
from pbem.i18n import lazy
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


# Why a setup is refused, by code. The dashboard and the command line name a seat ("Seat 2 (Bob):
# ..."), the /new form a line of its players ("Line 2: ..."): `SetupProblem.refusal` wraps the
# problem in its entry's naming.
declare_refusals({
    "unknown_language": (lazy("Unknown language %(code)s: choose one of %(choices)s."), 400),
    "unknown_bot": (lazy("Unknown bot %(bot)s: choose one of %(choices)s."), 400),
    "not_a_player": (lazy("%(text)s is not a player like 'Ann <ann@example.com>' or 'bot:greedy'."), 400),
    "bad_address": (NOT_AN_ADDRESS, 400),
    "person_needs_email": (lazy("A person needs an email address (or choose a bot)."), 400),
    "same_email": (lazy("Two seats have the same email address."), 400),
    "same_name": (lazy("Two players are called %(name)s: give them different names."), 400),
    "already_playing": (lazy("%(email)s is already playing in this game."), 400),
    "seed_and_deck": (lazy("Give a seed or a deck, not both."), 400),
    "seat_suppressed": (lazy("%(email)s asked never to be emailed by us; choose another player."), 409),
    # how an entry names where a problem is
    "at_seat": (lazy("Seat %(seat)d: %(problem)s"), 400),
    "at_named_seat": (lazy("Seat %(seat)d (%(name)s): %(problem)s"), 400),
    "at_line": (lazy("Line %(seat)d: %(problem)s"), 400),
    # the /new form's words for what the visitor types
    "form_your_name": (lazy("Write your name as the other players will see it."), 400),
    "form_hidden_in_name": (HIDDEN_IN_NAME, 400),
    "form_name_rule": (lazy("A name has at most 40 characters and no line breaks."), 400),
    "form_your_email": (lazy("Write your email address, like ann@example.com."), 400),
    "form_no_other_player": (lazy("Add at least one other player: a friend or a bot."), 400),
    "form_team_count": (lazy("Team play needs 4, 6 or 8 players with you; you have %(n)d."), 400),
    "form_player_count": (lazy("Korsar is played by 2 to 5 players alone (4, 6 or 8 in teams); "
                               "with you, you have %(n)d."), 400),
    "form_waiting_time": (lazy("The waiting time is only for games of 2 or 3 players alone."), 400),
    "form_no_such_bot": (lazy("%(line)s: there is no such bot. Write one of %(bots)s."), 400),
    "form_not_a_player": (lazy("%(line)s: write a player as Name <email@example.com>, or a bot as bot:greedy."),
                          400),
})


def check_language(code: str) -> str:
    """A language we speak ("fr", "FR" -> "fr"), or GameError."""
    if code.strip().lower() not in LANGUAGES:
        raise GameError("unknown_language", {"code": repr(code.strip()), "choices": ", ".join(LANGUAGES)})
    return code.strip().lower()


class BadAddress(GameError):
    """An address we do not write to, worded by `pbem.addresses` (why, the address said back)."""

    def __init__(self, refused: AddressRefused) -> None:
        super().__init__("bad_address")
        self.refused = refused

    def sentence(self) -> str:
        return self.refused.sentence


def check_email(address: str) -> str:
    """An address we write to, normalised (`pbem.addresses.check_address`: a mailbox at a domain
    name, the domain in its ASCII form), or BadAddress saying why not."""
    try:
        return check_address(address)
    except AddressRefused as exc:
        raise BadAddress(exc) from None


def _unknown_bot(bot: str | None) -> GameError:
    return GameError("unknown_bot", {"bot": repr(bot), "choices": ", ".join(engine.bots.BOTS)})


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
            raise _unknown_bot(bot)
        return SeatSpec(name=engine.bots.REGISTRY[bot].display, kind=SeatKind.BOT, bot=bot)
    match = _PLAYER_RE.match(text)
    if match:
        return SeatSpec(name=check_name(match["name"]), email=check_email(match["email"]))
    if "@" in text and "<" not in text and not any(ch.isspace() for ch in text):
        address = check_email(text)
        return SeatSpec(name=check_name(address.split("@")[0]), email=address)
    raise GameError("not_a_player", {"text": repr(text)})


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
    """One reason a game's setup is refused (`refusal`): `seat` (0-based, in the order given) and
    `field` ("name", "email", "bot" of that seat) say where; without a seat, `field` is the game's
    ("name", "waiting_time", "deadline_hours", "reminders", "on_timeout") or None (the whole).
    `message` is the refusal in the language in force where it is read."""

    refusal: GameError
    field: str | None = None
    seat: int | None = None

    @property
    def message(self) -> str:
        return self.refusal.text()


class SetupError(GameError):
    """A refused setup (400): its sentence is the first problem's (one line), `problems` all of them."""

    def __init__(self, problems: list[SetupProblem]) -> None:
        first = problems[0].refusal
        super().__init__(first.code, first.params, 400)
        self.problems = problems

    def sentence(self) -> str:
        return self.problems[0].refusal.sentence()


@dataclass(frozen=True)
class GameSetup:
    """A setup `check_setup` accepted, normalised (bots numbered, ladder sorted)."""

    specs: list[SeatSpec]
    settings: GameSettings  # its name checked, its ladder sorted
    deck: list[str] | None

    @property
    def reminders(self) -> list[float]:
        return reminder_ladder(self.settings.reminders)


_SHOWN_LINE = 60  # visible characters of a typed line echoed in a refusal
SEAT, LINE = "seat", "line"  # how an entry names where a problem is: "Seat 2 (Bob): ...", "Line 2: ..."


def named(problem: SetupProblem, players: Sequence[SeatSpec], naming: str = SEAT) -> SetupProblem:
    """A seat's problem saying which seat it is, as the entry names it: the dashboard and the
    command line a seat with its name ("Seat 2 (Bob): ..."), the /new form a line of its
    players ("Line 2: ..."). The form marks the seat's field besides."""
    if problem.seat is None:
        return problem
    number = problem.seat + 1
    if naming == LINE:
        return replace(problem, refusal=GameError("at_line", {"seat": number, "problem": problem.refusal}))
    name = unicodedata.normalize("NFC", players[problem.seat].name).strip() if problem.seat < len(players) else ""
    shown = len(graphemes(name)) <= MAX_NAME_LENGTH and not NOT_IN_NAMES.search(name) and not hides_characters(name)
    if name and shown:
        return replace(problem, refusal=GameError("at_named_seat", {"seat": number, "name": name,
                                                                     "problem": problem.refusal}))
    return replace(problem, refusal=GameError("at_seat", {"seat": number, "problem": problem.refusal}))


def _checked(check: Any, value: Any, field: str | None, seat: int | None, problems: list[SetupProblem]) -> Any:
    """`check(value)`, or None with its refusal added to `problems`."""
    try:
        return check(value)
    except GameError as exc:
        problems.append(SetupProblem(exc, field, seat))
        return None


def _setup(players: Sequence[SeatSpec], settings: GameSettings, *, seed: int | None, deck: list[str] | None,
           unread: Sequence[SettingsProblem], form: bool = False) -> tuple[list[SetupProblem], GameSetup | None]:
    """The one pass of every check (`setup_problems`, `check_form`), normalising as it checks: its
    problems, and the setup normalised when there are none. `form`: /new's, which words what to
    choose rather than the exact reason (`SettingsProblem.refusal`) and puts a seat's clash on
    that seat (its line); naming the seats is the entry's (`named`, `_on_form`)."""
    problems: list[SetupProblem] = []
    specs: list[SeatSpec] = []
    seen_names: set[str] = set()
    seen_emails: set[str] = set()
    for seat, spec in enumerate(players):
        if spec.language is not None and spec.language not in LANGUAGES:
            _checked(check_language, spec.language, "language", seat, problems)
        if spec.kind == SeatKind.BOT:
            if spec.bot not in engine.bots.BOTS:
                problems.append(SetupProblem(_unknown_bot(spec.bot), "bot", seat))
            specs.append(replace(spec, name=_checked(check_name, spec.name, "name", seat, problems) or spec.name))
            seen_names.add(unicodedata.normalize("NFC", spec.name).strip().casefold())
            continue
        name = _checked(check_name, spec.name, "name", seat, problems) or spec.name
        if spec.name.strip():
            key = unicodedata.normalize("NFC", spec.name).strip().casefold()
            if key in seen_names:
                problems.append(SetupProblem(GameError("same_name", {"name": repr(spec.name.strip())}),
                                             *(("name", seat) if form else ())))
            seen_names.add(key)
        if not spec.email:
            problems.append(SetupProblem(GameError("person_needs_email"), "email", seat))
            continue
        email = _checked(check_email, spec.email, "email", seat, problems)
        if email is not None:  # one mailbox, one seat: ann@ and Ann+x@ are the same person
            if canonical_key(spec.email) in seen_emails:
                problems.append(SetupProblem(GameError("already_playing", {"email": email}) if form
                                             else GameError("same_email"), *(("email", seat) if form else ())))
            seen_emails.add(canonical_key(spec.email))
        specs.append(replace(spec, name=name, email=email))
    teams, opts = settings.teams, settings.options
    # at /new, what is unreadable of the options is the settlement's select
    problems += [SetupProblem(u.refusal(form=form), "end_settlement" if form else u.field)
                 for u in unread if u.code == "unreadable_options"]
    try:  # how many players and teams: the engine's rules (R2)...
        engine.check_config(len(players), teams, engine.Options())
    except engine.ConfigError as exc:
        count = {"n": len(players)}
        problems.append(SetupProblem(GameError("form_team_count" if teams else "form_player_count", count), "players")
                        if form else SetupProblem(GameError("engine_config", {"reason": str(exc)})))
    else:  # ...then the options for them (the waiting time is only for 2 or 3 alone)
        try:
            engine.check_config(len(players), teams, opts)
        except engine.ConfigError as exc:
            problems.append(SetupProblem(GameError("form_waiting_time") if form and opts.waiting_time
                                         else GameError("engine_config", {"reason": str(exc)}),
                                         "waiting_time" if opts.waiting_time else None))
    checked_deck = None
    if seed is not None and deck is not None:
        problems.append(SetupProblem(GameError("seed_and_deck")))
    elif deck is not None:
        try:
            checked_deck = engine.validate_deck(deck)
        except engine.ConfigError as exc:
            problems.append(SetupProblem(GameError("engine_config", {"reason": str(exc)})))
    checked, refused = checked_settings(settings, unread)
    problems += [SetupProblem(p.refusal(form=form), p.field) for p in refused]
    if problems:
        return (problems if form else [named(p, players) for p in problems]), None
    checked = replace(checked, name=checked.name or default_name(specs, teams=teams))
    return [], GameSetup(specs=_number_bots(specs), settings=checked, deck=checked_deck)


def setup_problems(players: Sequence[SeatSpec], settings: GameSettings = DEFAULT_SETTINGS, *,
                   seed: int | None = None, deck: list[str] | None = None,
                   unread: Sequence[SettingsProblem] = ()) -> list[SetupProblem]:
    """Every reason to refuse this setup (none: it is fine), for the CLI, the admin form and
    `create_game` alike: names, addresses (one address per seat, whatever its case), bots, the
    number of players (the engine's R2), options, the deal and the clock. `unread`: the settings
    `read_settings` could not read, each said in its place."""
    return _setup(players, settings, seed=seed, deck=deck, unread=unread)[0]


def check_setup(players: Sequence[SeatSpec | str], settings: GameSettings = DEFAULT_SETTINGS, *,
                seed: int | None = None, deck: list[str] | None = None,
                unread: Sequence[SettingsProblem] = ()) -> GameSetup:
    """The setup, normalised in the same pass that checks it, or SetupError with every problem
    (`setup_problems`); a player written as text that cannot be read is refused alone."""
    specs = []
    for seat, player in enumerate(players):
        try:
            specs.append(player if isinstance(player, SeatSpec) else parse_player(player))
        except GameError as exc:
            raise SetupError([replace(named(SetupProblem(exc, "name", seat), ()), field="name")]) from None
    problems, setup = _setup(specs, settings, seed=seed, deck=deck, unread=unread)
    if setup is None:
        raise SetupError(problems)
    return setup


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
        raise SetupError([SetupProblem(GameError("at_named_seat", {
                              "seat": seat + 1, "name": spec.name,
                              "problem": GameError("seat_suppressed", {"email": spec.email})}), "email", seat)
                          for seat, spec in enumerate(specs) if (spec.email or "").lower() in never])


def player_lines(players: str) -> list[str]:
    return [line.strip() for line in players.splitlines() if line.strip()]


def form_problems(your_name: str, your_email: str, lines: list[str], settings: GameSettings,
                  unread: Sequence[SettingsProblem] = ()) -> tuple[list[SetupProblem], list[SeatSpec]]:
    """The /new form's problems (`check_form`'s), and its seats as read (the creator first)."""
    problems, specs, _checked_setup = _form_setup(your_name, your_email, lines, settings, unread)
    return problems, specs


def check_form(your_name: str, your_email: str, lines: list[str], settings: GameSettings,
               unread: Sequence[SettingsProblem] = ()) -> GameSetup:
    """/new's setup (the creator, then a seat per line of players), checked by the one pass of
    every entry, or SetupError with every problem where the form shows it: the creator's on
    their fields, a line's as "Line N: ...", the settings' on theirs."""
    problems, _specs, setup = _form_setup(your_name, your_email, lines, settings, unread)
    if setup is None:
        raise SetupError(problems)
    return setup


def _form_setup(your_name: str, your_email: str, lines: list[str], settings: GameSettings,
                unread: Sequence[SettingsProblem]) -> tuple[list[SetupProblem], list[SeatSpec], GameSetup | None]:
    """The form read (a line that is no player is refused in the words of what to type), then
    the one pass (`_setup`) over what could be read, its problems said where the form shows them."""
    problems: list[SetupProblem] = []
    specs = [SeatSpec(name=your_name, email=your_email.strip().lower() or None)]
    line_of_seat: list[int | None] = [None]  # the creator has no line
    for index, line in enumerate(lines):
        try:
            spec = parse_player(line)
        except BadAddress as exc:
            problems.append(SetupProblem(exc, "players", index))
            continue
        except GameError as exc:
            if exc.code.startswith("name_"):  # a player written right whose name is refused: say why
                problems.append(named(SetupProblem(exc, "players", index), (), LINE))
            else:
                problems.append(SetupProblem(_line_problem(line), "players", index))
            continue
        specs.append(replace(spec, email=spec.email.lower()) if spec.email else spec)
        line_of_seat.append(index)
    if not lines:
        problems.append(SetupProblem(GameError("form_no_other_player"), "players"))
    found, setup = _setup(specs, settings, seed=None, deck=None, unread=unread, form=True)
    unread_lines = bool(problems)  # then the pass counted too few players: its count is not said
    again = {p.seat for p in found if p.refusal.code == "already_playing"}  # a person twice: not their name too
    problems += [_on_form(p, your_name, your_email, line_of_seat) for p in found
                 if not (unread_lines and p.field == "players" and p.seat is None)
                 and not (p.refusal.code == "same_name" and p.seat in again)]
    return problems, specs, None if problems else setup


def _on_form(problem: SetupProblem, your_name: str, your_email: str, line_of_seat: list[int | None]
             ) -> SetupProblem:
    """A problem of the pass where /new shows it: the creator's (seat 0) on "your_name" or
    "your_email" in the words of what to type, another seat's on its line ("Line N: ...")."""
    if problem.seat is None:
        return problem
    line = line_of_seat[problem.seat]
    if line is not None:
        return named(replace(problem, field="players", seat=line), (), LINE)
    if problem.field == "name":
        return SetupProblem(_name_problem(your_name), "your_name")
    if problem.field == "email" and not your_email.strip():
        return SetupProblem(GameError("form_your_email"), "your_email")
    return SetupProblem(problem.refusal, "your_email" if problem.field == "email" else problem.field)


def _name_problem(text: str) -> GameError:
    if not text.strip():
        return GameError("form_your_name")
    if hides_characters(text):
        return GameError("form_hidden_in_name")
    return GameError("form_name_rule")


def _line_problem(line: str) -> GameError:
    if line.lower().startswith("bot:"):
        return GameError("form_no_such_bot", {"line": shortened(line, _SHOWN_LINE),
                                              "bots": ", ".join(f"bot:{name}" for name in engine.bots.BOTS)})
    return GameError("form_not_a_player", {"line": shortened(line, _SHOWN_LINE)})
