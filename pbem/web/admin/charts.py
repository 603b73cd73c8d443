"""Server-side SVG bar charts: geometry computed here, drawn by a Jinja macro (no JS)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    width: float
    height: float
    value: int
    label: str  # shown under the bar (may be empty to avoid crowding)
    title: str  # tooltip and accessible text


@dataclass(frozen=True)
class BarChart:
    width: int
    height: int
    plot_top: int
    plot_bottom: int
    bars: list[Bar]
    max_value: int
    gridlines: list[tuple[float, int]]  # (y, value), whole numbers only
    summary: str  # the chart in words, for screen readers


def nice_max(value: int) -> int:
    """The smallest of 1, 2, 5 x 10^n at or above `value` (a tidy top for the axis)."""
    if value <= 0:
        return 1
    step = 1
    while True:
        for m in (1, 2, 5):
            if m * step >= value:
                return m * step
        step *= 10


def daily_bar_chart(series: list[tuple[date, int]], *, width: int = 720, height: int = 220,
                    label_every: int = 5, what: str = "emails sent") -> BarChart:
    left, right, top, bottom = 40, 10, 12, 28
    plot_w, plot_h = width - left - right, height - top - bottom
    top_value = nice_max(max((n for _, n in series), default=0))
    slot = plot_w / max(1, len(series))
    bars = []
    for i, (day, n) in enumerate(series):
        h = plot_h * n / top_value
        last = i == len(series) - 1
        bars.append(Bar(
            x=round(left + i * slot + slot * 0.15, 2), y=round(top + plot_h - h, 2),
            width=round(slot * 0.7, 2), height=round(h, 2), value=n,
            label=day.strftime("%d %b") if i % label_every == 0 or last else "",
            title=f"{day.isoformat()}: {n} {what}",
        ))
    ticks = 5 if top_value % 5 == 0 else 2 if top_value % 2 == 0 else 1
    grid = [(round(top + plot_h - plot_h * i / ticks, 2), top_value * i // ticks) for i in range(ticks + 1)]
    total = sum(n for _, n in series)
    summary = f"{total} {what} in the last {len(series)} days"
    return BarChart(width, height, top, top + plot_h, bars, top_value, grid, summary)
