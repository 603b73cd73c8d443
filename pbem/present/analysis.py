"""The expert's analysis as every reader sees it: per step the mark of a human move, the move
played and the expert's best one in words (pbem/present/phrases.py, from the mover's view at that
step), and the expected margin over the game as a small chart (an SVG drawn by the template from
`Chart`, with a table fallback). Stored results come in (pbem/models_analysis.AnalysisMove); the
words are in the current language."""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.analysis import BLUNDER, GOOD, INACCURATE, MARKS, MISTAKE, THRESHOLDS
from pbem.i18n import format_number
from pbem.i18n import gettext as _
from pbem.i18n import lazy, ngettext
from pbem.models_analysis import AnalysisMove
from pbem.present.phrases import describe_move

MARK_WORDS = {
    GOOD: lazy("Good move"),
    INACCURATE: lazy("Inaccuracy"),
    MISTAKE: lazy("Mistake"),
    BLUNDER: lazy("Blunder"),
}
MARK_SYMBOLS = {GOOD: "", INACCURATE: "?!", MISTAKE: "?", BLUNDER: "??"}  # as chess annotates


@dataclass(frozen=True)
class StepAnalysis:
    """One analysed move (the `analysis` of replay/_analysis.html): `number` is the move's
    number in the game (step + 1), `best_text` None when the move played was the best one."""

    step: int
    number: int
    seat: int
    player: str
    mark: str
    mark_text: str
    symbol: str
    played_text: str
    best_text: str | None
    loss: float
    loss_text: str
    played_margin: float
    best_margin: float
    played_margin_text: str
    best_margin_text: str
    forced: bool
    capped: bool


@dataclass(frozen=True)
class ChartPoint:
    x: float
    y: float
    number: int
    margin: float
    margin_text: str
    mark: str


@dataclass(frozen=True)
class Chart:
    """The expected final margin after each analysed move of one seat: SVG coordinates (a
    `width` x `height` box, `zero_y` the line of an even game) and the rows of its table."""

    title: str
    description: str
    width: int
    height: int
    zero_y: float
    path: str
    points: list[ChartPoint]
    top_label: str
    bottom_label: str
    rows: list[StepAnalysis]


def gold_text(value: float) -> str:
    """A margin in gold, signed, one decimal: "+3.5 gold", "−2.0 gold"."""
    sign = "+" if value > 0 else "−" if value < 0 else ""
    gold = format_number(round(abs(value), 1))
    return _("%(sign)s%(gold)s gold", sign=sign, gold=gold)


def present_step(row: AnalysisMove, view: Mapping[str, Any], players: Sequence[str],
                 reader: int | None) -> StepAnalysis:
    """One stored move in words, from `view` (the mover's view before it, players named for the
    reader), its labels spoken to seat `reader` (None: the admin)."""
    played = json.loads(row.played_json)
    best = json.loads(row.best_json)
    return StepAnalysis(
        step=row.step, number=row.step + 1, seat=row.seat, player=players[row.seat],
        mark=row.mark, mark_text=_(MARK_WORDS[row.mark]), symbol=MARK_SYMBOLS[row.mark],
        played_text=describe_move(played, view, reader),
        best_text=None if best == played else describe_move(best, view, reader),
        loss=row.loss, loss_text=gold_text(-row.loss), played_margin=row.played_margin,
        best_margin=row.best_margin, played_margin_text=gold_text(row.played_margin),
        best_margin_text=gold_text(row.best_margin), forced=row.forced, capped=row.capped)


def counts_text(steps: Sequence[StepAnalysis]) -> str:
    """"2 blunders, 1 mistake, 3 inaccuracies" (or that every move was good)."""
    parts = []
    for mark, n in ((BLUNDER, sum(s.mark == BLUNDER for s in steps)),
                    (MISTAKE, sum(s.mark == MISTAKE for s in steps)),
                    (INACCURATE, sum(s.mark == INACCURATE for s in steps))):
        if n:
            parts.append({BLUNDER: ngettext("%(num)s blunder", "%(num)s blunders", n),
                          MISTAKE: ngettext("%(num)s mistake", "%(num)s mistakes", n),
                          INACCURATE: ngettext("%(num)s inaccuracy", "%(num)s inaccuracies", n)}[mark])
    return ", ".join(parts) if parts else _("No mistake: every move was as good as the expert's.")


def thresholds_text() -> list[str]:
    """The marks' thresholds in words, for the page's legend."""
    blunder, mistake, inaccurate = (format_number(gold) for gold, _mark in THRESHOLDS)
    return [_("Inaccuracy: %(low)s to %(high)s gold of expected margin lost against the expert's move",
              low=inaccurate, high=mistake),
            _("Mistake: %(low)s to %(high)s gold lost", low=mistake, high=blunder),
            _("Blunder: %(low)s gold or more lost (a big ship given away)", low=blunder)]


WIDTH, HEIGHT, PAD = 320, 120, 8


def chart(steps: Sequence[StepAnalysis], player: str) -> Chart | None:
    """The expected final margin of `steps` (one seat's, in game order) as a line; None if none."""
    judged = [s for s in steps if not s.forced]
    if not judged:
        return None
    values = [s.played_margin for s in judged]
    top = max(max(values), 0.0, 1.0)
    bottom = min(min(values), 0.0, -1.0)
    last = max(s.number for s in judged)
    first = min(s.number for s in judged)
    span_x = max(1, last - first)

    def y_of(v: float) -> float:
        return round(PAD + (top - v) / (top - bottom) * (HEIGHT - 2 * PAD), 1)

    points = [ChartPoint(x=round(PAD + (s.number - first) / span_x * (WIDTH - 2 * PAD), 1),
                         y=y_of(s.played_margin), number=s.number, margin=s.played_margin,
                         margin_text=s.played_margin_text, mark=s.mark)
              for s in judged]
    path = " ".join(f"{'M' if i == 0 else 'L'}{p.x},{p.y}" for i, p in enumerate(points))
    return Chart(
        title=_("Expected final margin of %(name)s, move by move", name=player),
        description=_("Expected final margin after each move of %(name)s, from %(low)s to %(high)s; "
                      "the middle line is an even game. The table below gives every value.",
                      name=player, low=gold_text(bottom), high=gold_text(top)),
        width=WIDTH, height=HEIGHT, zero_y=y_of(0.0), path=path, points=points,
        top_label=gold_text(top), bottom_label=gold_text(bottom), rows=list(judged))


assert set(MARK_WORDS) == set(MARKS) == set(MARK_SYMBOLS)
