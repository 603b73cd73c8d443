"""How a rating is shown, for the game-over email, the game page, /me, the leaderboard and the
admin: one scale, one way of writing it in the reader's language.

The scale: openskill's ordinal (mu - 3 sigma, a skill the player has almost surely reached),
scaled to a familiar number: `points = 1500 + 20 * (mu - 3 * sigma)`, i.e. openskill's
`rating.ordinal(3, 20, 1500)`. A newcomer (mu 25, sigma 25/3) shows 1 500; a player who keeps
winning climbs as sigma shrinks and mu grows (a settled mid-table player shows about 1 850). Below
`PROVISIONAL_GAMES` rated games a rating is provisional: written "1 512?".
Numbers are written by Babel (pbem/i18n.format_number): "1,512" in English, "1 512" (a narrow
no-break space) in French, "1.512" in Vietnamese.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pbem.i18n import format_number
from pbem.i18n import gettext as _
from pbem.i18n import ngettext

Z, SCALE, BASE = 3.0, 20.0, 1500.0  # openskill's ordinal(z, alpha, target)
PROVISIONAL_GAMES = 5  # fewer rated games than this in a mode: the rating is provisional


def points(mu: float, sigma: float) -> int:
    """A rating on the shown scale (openskill's `ordinal(Z, SCALE, BASE)`, rounded)."""
    return round(SCALE * (mu - Z * sigma) + BASE)


def provisional(games: int) -> bool:
    return games < PROVISIONAL_GAMES


def rating_text(value: int, games: int) -> str:
    """'1,512', or '1,512?' while provisional (in the reader's language)."""
    number = format_number(value)
    return _("%(rating)s?", rating=number) if provisional(games) else number


def delta_text(delta: int) -> str:
    """'+28', '−12' (a true minus sign), '±0'."""
    if delta > 0:
        return f"+{format_number(delta)}"
    if delta < 0:
        return f"\u2212{format_number(-delta)}"
    return "\u00b10"


@dataclass(frozen=True)
class ChangeLine:
    """One human's rating change in one game, as the game-over email and page show it."""

    position: int
    name: str
    before: str  # "1,512?"
    after: str  # "1,540"
    delta: str  # "+28"
    excluded: bool  # an admin took the game out of the ratings: no change
    provisional: bool  # the rating before the game was provisional (its "?")

    @property
    def text(self) -> str:
        """'1,512 → 1,540 (+28)'."""
        return _("%(before)s → %(after)s (%(delta)s)", before=self.before, after=self.after, delta=self.delta)


class ChangeRow(Protocol):
    """What the ratings stored for one seat (pbem/models_ratings.RatingChange has these)."""

    position: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    games_before: int
    excluded: bool


def change_lines(rows: Sequence[ChangeRow], names: Mapping[int, str],
                 you: int | None = None) -> list[ChangeLine]:
    """Each rated human's change, in seat order; `names`: the seats' names by position; the
    seat `you` (the reader's) reads "You"."""
    names = {**names, you: _("You")} if you is not None else names
    out = []
    for row in sorted(rows, key=lambda r: r.position):
        before = points(row.mu_before, row.sigma_before)
        after = before if row.excluded else points(row.mu_after, row.sigma_after)
        games_after = row.games_before + (0 if row.excluded else 1)
        name = names.get(row.position, "")
        out.append(ChangeLine(position=row.position, name=name,
                              before=rating_text(before, row.games_before),
                              after=rating_text(after, games_after), delta=delta_text(after - before),
                              excluded=row.excluded, provisional=provisional(row.games_before)))
    return out


@dataclass(frozen=True)
class HistoryChart:
    """A rating's history as a small SVG line (geometry here, drawn by me/_ratings.html)."""

    width: int
    height: int
    points: str  # the polyline's "x,y x,y ..."
    dots: list[tuple[float, float, str]]  # (x, y, its value in words) of each game, last ones only
    gridlines: list[tuple[float, str]]  # (y, the value written)
    summary: str  # the chart in words: its <title>


def history_chart(values: Sequence[int], *, width: int = 320, height: int = 120) -> HistoryChart | None:
    """The line of `values` (oldest first, the start included), or None below two points."""
    if len(values) < 2:
        return None
    left, right, top, bottom = 44, 8, 10, 10
    low, high = min(values), max(values)
    step = 50 if high - low <= 300 else 100
    low, high = (low // step) * step, -(-high // step) * step
    if high == low:
        high = low + step
    plot_w, plot_h = width - left - right, height - top - bottom

    def y(v: int) -> float:
        return round(top + plot_h * (high - v) / (high - low), 1)

    xs = [round(left + plot_w * i / (len(values) - 1), 1) for i in range(len(values))]
    coords = [(x, y(v)) for x, v in zip(xs, values)]
    grid = [(y(low), format_number(low)), (y(high), format_number(high))]
    summary = ngettext("Rating over your last %(num)s game: from %(first)s to %(last)s (lowest %(low)s, "
                       "highest %(high)s).",
                       "Rating over your last %(num)s games: from %(first)s to %(last)s (lowest %(low)s, "
                       "highest %(high)s).", len(values) - 1, first=format_number(values[0]),
                       last=format_number(values[-1]), low=format_number(min(values)),
                       high=format_number(max(values)))
    return HistoryChart(width=width, height=height, points=" ".join(f"{x},{yy}" for x, yy in coords),
                        dots=[(x, yy, format_number(v)) for (x, yy), v in list(zip(coords, values))[-30:]],
                        gridlines=grid, summary=summary)
