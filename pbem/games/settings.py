"""A game's settings as one value: `GameSettings` (name, teams, the engine's options, the clock,
the timeout policy, table talk), read from every entry by `read_settings`, stored on a `Game` or a
`Proposal` by `GameSettings.columns` and read back by `GameSettings.of`.

Its defaults are the models' (DEFAULT_DEADLINE_HOURS, DEFAULT_REMINDERS, OnTimeout.AUTOPLAY) and
the engine's (`engine.Options`); the emails and pages word it (pbem/letters/invitations.py)."""
from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from dataclasses import field as dataclass_field
from typing import Any

import engine
from pbem.games.errors import GameError, declare_refusals
from pbem.games.names import check_game_name
from pbem.i18n import lazy
from pbem.models import DEFAULT_DEADLINE_HOURS, DEFAULT_REMINDERS, Game, OnTimeout, Proposal

# The time a player has for each move, at every entry (the /new form, the dashboard, the CLI,
# a rematch): `check_deadline_hours`. Less than an hour makes a bot-only game a busy loop of
# the worker; more than 30 days is a game nobody remembers.
MIN_DEADLINE_HOURS = 1
MAX_DEADLINE_HOURS = 24 * 30
DEADLINE_OUT_OF_RANGE = lazy("The deadline for each move must be between 1 hour and 30 days (720 hours).")
# What forms and the command line write for a checkbox option (`--option waiting_time=on`).
_YES_NO = {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}


@dataclass(frozen=True)
class GameSettings:
    """Everything a game's creator chooses but the players: the same at /new, on the dashboard,
    on the command line, in a proposal and in the game it becomes (a rematch copies it).
    `reminders` is the ladder as text, percents of the deadline ("50,85"; "" is none)."""

    name: str = ""
    teams: bool = False
    options: engine.Options = field(default_factory=engine.Options)
    deadline_hours: float = DEFAULT_DEADLINE_HOURS
    reminders: str = DEFAULT_REMINDERS
    on_timeout: OnTimeout = OnTimeout.AUTOPLAY
    table_talk: bool = False

    def columns(self) -> dict[str, Any]:
        """The columns `Game` and `Proposal` store it in (checked settings: `check_setup`'s)."""
        return {"name": self.name, "teams": self.teams,
                "options_json": json.dumps(self.options.to_json(), sort_keys=True),
                "deadline_hours": float(self.deadline_hours),
                "reminders": ",".join(f"{p:g}" for p in reminder_ladder(self.reminders)),
                "on_timeout": str(self.on_timeout), "table_talk": self.table_talk}

    @classmethod
    def of(cls, row: Game | Proposal) -> GameSettings:
        """The settings a game or a proposal was stored with; a deadline set before today's
        bounds is brought within them (a rematch, or the game a proposal becomes)."""
        return cls(name=row.name, teams=row.teams, options=parse_options(json.loads(row.options_json or "{}")),
                   deadline_hours=bounded_deadline_hours(row.deadline_hours), reminders=row.reminders,
                   on_timeout=OnTimeout(row.on_timeout), table_talk=row.table_talk)


DEFAULT_SETTINGS = GameSettings()  # frozen: one shared default is safe


declare_refusals({
    "deadline_out_of_range": (DEADLINE_OUT_OF_RANGE, 400),
    "reminders_unreadable": (lazy("Reminders are percentages of the deadline separated by commas, like 50,85, "
                                  "not %(text)s."), 400),
    "reminder_out_of_range": (lazy("Each reminder must fall between 0 and 100 percent of the deadline."), 400),
    "unknown_on_timeout": (lazy("on_timeout must be one of %(choices)s."), 400),
    # the /new form's words: what the visitor chooses there, not how the option is spelled
    "form_options_unreadable": (lazy("Choose what happens to the ships left on the table at the end."), 400),
    "form_on_timeout": (lazy("Choose what happens when a player runs out of time."), 400),
    "form_bad_reminders": (lazy("Reminders are percentages of the time for a move, like 50,85."), 400),
    "form_bad_game_name": (lazy("A game name has at most 80 characters and no line breaks."), 400),
})
# Why settings are refused, by code: the refusal the dashboard and the command line show (None:
# the check's own refusal, `SettingsProblem.reason`), and the one the /new form shows.
PROBLEM_CODES: dict[str, tuple[str | None, str]] = {
    "unreadable_options": (None, "form_options_unreadable"),
    "unknown_on_timeout": ("unknown_on_timeout", "form_on_timeout"),
    "deadline_out_of_range": ("deadline_out_of_range", "deadline_out_of_range"),
    "bad_reminders": (None, "form_bad_reminders"),
    "bad_game_name": (None, "form_bad_game_name"),
}


@dataclass(frozen=True)
class SettingsProblem:
    """A refused setting: `code` (a key of PROBLEM_CODES), the entry's `field` it is about (None:
    the options as a whole), `params` of its refusal, `reason` the check's own refusal. Each entry
    words it: `refusal()` on the dashboard and the command line (the exact reason), `refusal(form=True)`
    at /new (what to choose)."""

    code: str
    field: str | None = None
    params: Mapping[str, str] = dataclass_field(default_factory=dict)
    reason: GameError | None = None

    def refusal(self, *, form: bool = False) -> GameError:
        admin, reader = PROBLEM_CODES[self.code]
        if form:
            return GameError(reader, self.params)
        if admin is None:
            assert self.reason is not None, f"{self.code} is worded by its reason"
            return self.reason
        return GameError(admin, self.params)


def read_settings(*, name: str = "", teams: bool = False,
                  options: Mapping[str, Any] | engine.Options | None = None,
                  deadline_hours: float = DEFAULT_DEADLINE_HOURS, reminders: str = DEFAULT_REMINDERS,
                  on_timeout: str = OnTimeout.AUTOPLAY, table_talk: bool = False
                  ) -> tuple[GameSettings, list[SettingsProblem]]:
    """An entry's input as GameSettings (the /new form, the dashboard's form, the CLI), and what
    could not be read (that setting keeps its default). The bounds (deadline, ladder, name, the
    options for these players) are `setup.check_setup`'s, with the seats."""
    problems = []
    try:
        opts = options if isinstance(options, engine.Options) else parse_options(options)
    except GameError as exc:
        problems.append(SettingsProblem("unreadable_options", None, reason=exc))
        opts = engine.Options()
    try:
        timeout = OnTimeout(on_timeout)
    except ValueError:
        problems.append(SettingsProblem("unknown_on_timeout", "on_timeout", {"choices": ", ".join(OnTimeout)}))
        timeout = OnTimeout.AUTOPLAY
    return GameSettings(name=name, teams=teams, options=opts, deadline_hours=deadline_hours, reminders=reminders,
                        on_timeout=timeout, table_talk=table_talk), problems


def checked_settings(settings: GameSettings, unread: Sequence[SettingsProblem] = ()
                     ) -> tuple[GameSettings, list[SettingsProblem]]:
    """What is wrong with the clock (the timeout policy, the deadline, the reminders) and the
    game's name, and the settings normalised as they are checked (the name's spaces off, the
    ladder sorted): every entry's one check, each entry wording it (`SettingsProblem.refusal`).
    The options for these players are the setup's (`setup.setup_problems`)."""
    problems = [u for u in unread if u.code == "unknown_on_timeout"]
    name, reminders = "", settings.reminders
    try:
        check_deadline_hours(settings.deadline_hours)
    except GameError:
        problems.append(SettingsProblem("deadline_out_of_range", "deadline_hours"))
    try:
        reminders = ",".join(f"{p:g}" for p in reminder_ladder(settings.reminders))
    except GameError as exc:
        problems.append(SettingsProblem("bad_reminders", "reminders", reason=exc))
    if settings.name.strip():
        try:
            name = check_game_name(settings.name)
        except GameError as exc:
            problems.append(SettingsProblem("bad_game_name", "name", reason=exc))
    return replace(settings, name=name, reminders=reminders), problems


def settings_problems(settings: GameSettings, unread: Sequence[SettingsProblem] = ()) -> list[SettingsProblem]:
    """`checked_settings`' problems alone."""
    return checked_settings(settings, unread)[1]


def parse_options(options: Mapping[str, Any] | None) -> engine.Options:
    """{'waiting_time': 'on', 'end_settlement': 'none'} -> engine.Options, or GameError."""
    values = dict(options or {})
    for key, value in values.items():  # the command line and forms say on/off
        if isinstance(value, str) and isinstance(getattr(engine.Options, key, None), bool):
            values[key] = _YES_NO.get(value.strip().lower(), value.strip().lower())
    try:
        return engine.Options.from_json(values)
    except engine.ConfigError as exc:
        raise GameError("engine_config", {"reason": str(exc)}) from None


def check_deadline_hours(hours: float) -> float:
    """The hours a player has for each move, between MIN_DEADLINE_HOURS and MAX_DEADLINE_HOURS
    (NaN and infinity refused), or GameError: every entry's one check."""
    if isinstance(hours, bool) or not isinstance(hours, (int, float)) \
            or not MIN_DEADLINE_HOURS <= hours <= MAX_DEADLINE_HOURS:  # NaN compares false
        raise GameError("deadline_out_of_range")
    return float(hours)


def bounded_deadline_hours(hours: float) -> float:
    """`hours` brought within the bounds: a rematch, or a proposal, of a game set up before them."""
    if not math.isfinite(hours):
        return DEFAULT_DEADLINE_HOURS
    return min(max(float(hours), MIN_DEADLINE_HOURS), MAX_DEADLINE_HOURS)


def reminder_ladder(text: str) -> list[float]:
    """'50,85' -> [50.0, 85.0] (sorted; '' is none), or GameError."""
    try:
        ladder = sorted(float(p) for p in text.split(",") if p.strip())
    except ValueError:
        raise GameError("reminders_unreadable", {"text": repr(text)}) from None
    if any(not 0 < p < 100 for p in ladder):  # also refuses NaN
        raise GameError("reminder_out_of_range")
    return ladder

