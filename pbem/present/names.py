"""Players' names as each reader reads them: a person's as typed, a bot's from its kind.

A bot seat is stored by its kind (`Seat.bot`, `Invitation.bot`: a key of engine.bots.REGISTRY);
its name is worded here, at display time, in the reader's language ("Robot glouton", "Máy tham
lam"), and numbered when the game has several of one kind ("Greedy bot 2"). The English name the
service stores (`Seat.name`, the engine state's `players`) is what the admin, the CLI and the
move log's export read; no reader sees it. Old games whose bot seats hold an English name need
no rewrite: the name is always worded from the kind, never read back.

The default game name ("Paul vs Greedy bot") and a rematch's ("… (rematch)") are worded here too.
"""
from __future__ import annotations

import unicodedata

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import engine.bots
from engine.view_types import AdminView, PlayerView
from pbem.i18n import gettext as _
from pbem.present.grammar import together
from pbem.models import SeatKind

# A default name leads every subject line: as long as a name a creator may type (pbem/games/names.py).
MAX_GAME_NAME = 80


class Named(Protocol):
    """A seat of a game or of a game being set up (models.Seat, models.Invitation)."""

    @property
    def position(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def bot(self) -> str | None: ...


@dataclass(frozen=True)
class NamedSeat:
    """A seat not stored yet (a game's setup): what its name is worded from."""

    position: int
    name: str
    kind: str
    bot: str | None


def bot_name(kind: str | None, number: int = 1) -> str:
    """A bot's name from its kind, in the current language: "Greedy bot", the second one of its
    kind at a table "Greedy bot 2"."""
    known = engine.bots.REGISTRY.get(kind or "")
    name = _(known.display) if known else _("Bot (%(kind)s)", kind=kind or "?")
    return name if number == 1 else _("%(bot)s %(number)s", bot=name, number=number)


def isolated(name: str) -> str:
    """A player's name as it enters a sentence: a name in a right-to-left script is wrapped in
    Unicode's first-strong isolate (FSI ... PDI), so that the words around it keep their order
    ("عبد الرحمن's ship 24", not "s'… ship 24"); any other name as it is."""
    if any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in name):
        return f"\u2068{name}\u2069"
    return name


def reader_names(seats: Sequence[Named]) -> list[str]:
    """Every seat's name in position order, as the current reader reads it: bots numbered by
    their order among the bots of their kind."""
    seen: dict[str | None, int] = {}
    names = []
    for seat in sorted(seats, key=lambda s: s.position):
        if seat.kind == SeatKind.BOT:
            seen[seat.bot] = seen.get(seat.bot, 0) + 1
            names.append(bot_name(seat.bot, seen[seat.bot]))
        else:
            names.append(isolated(seat.name))
    return names


def seat_name(seat: Named, seats: Sequence[Named]) -> str:
    """One seat's name for the current reader (`seats`: all of its game's, for the numbering)."""
    if seat.kind != SeatKind.BOT:
        return isolated(seat.name)
    ordered = sorted(seats, key=lambda s: s.position)
    return reader_names(ordered)[[s.position for s in ordered].index(seat.position)]


@dataclass(frozen=True)
class ShownName:
    """A seat's name worded when a template shows it (`str()`), so in the language of the email
    being written (pbem/letters/send.py renders each in its reader's): for a context shared by
    several readers."""

    seat: Named
    seats: Sequence[Named]

    def __str__(self) -> str:
        return seat_name(self.seat, self.seats)


View = TypeVar("View", PlayerView, AdminView)


def named_view(view: View, seats: Sequence[Named]) -> View:
    """`view` with its players named for the current reader: what every presenter reads."""
    named = view.copy()
    named["players"] = reader_names(seats) if len(seats) == len(view["players"]) else list(view["players"])
    return named


def default_game_name(names: Sequence[str], *, teams: bool) -> str:
    """A game's name when its creator gave none, from its players' names as the current reader
    reads them (`reader_names`): "Paul vs Greedy bot"; in team play partners (seats 0 and 1, 2
    and 3, …: engine.team_of) side by side. At most MAX_GAME_NAME (cut between words)."""
    sides = [together(names[start:start + 2]) for start in range(0, len(names), 2)] if teams else list(names)
    name = "".join(sides) if len(sides) < 2 else _("%(first)s vs %(others)s", first=sides[0],
                                                     others=together(sides[1:]))
    if len(name) <= MAX_GAME_NAME:
        return name
    return name[:MAX_GAME_NAME - 1].rsplit(" ", 1)[0].rstrip(" ,") + "…"


def rematch_name(first: str, number: int) -> str:
    """The name of the `number`th rematch of the game named `first` (the first of the line), in
    the current language: "Paul vs Greedy bot (rematch)", then "(rematch 2)", "(rematch 3)"…;
    `first` cut short (…) where the whole would pass MAX_GAME_NAME."""
    def named(game: str) -> str:
        if number <= 1:
            return _("%(game)s (rematch)", game=game)
        return _("%(game)s (rematch %(number)s)", game=game, number=number)
    over = len(named(first)) - MAX_GAME_NAME
    return named(first) if over <= 0 else named(first[:max(1, len(first) - over - 1)].rstrip() + "…")
