"""The pure clock rules: quiet-hour boundaries, the clock stopping during an absence, the ladder,
and the words for the time left."""
from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from pbem.schedule import after_quiet_hours, extend_for_absence, parse_ladder, time_left_text

PARIS = ZoneInfo("Europe/Paris")  # UTC+1 in January
D = datetime(2026, 1, 12)


@pytest.mark.parametrize("utc,expected", [
    (D.replace(hour=20, minute=59), D.replace(hour=20, minute=59)),  # 21:59 local: sent now
    (D.replace(hour=21), D.replace(day=13, hour=7)),  # 22:00 local: quiet, waits for 08:00
    (D.replace(day=13, hour=6, minute=59), D.replace(day=13, hour=7)),  # 07:59 local: quiet
    (D.replace(day=13, hour=7), D.replace(day=13, hour=7)),  # 08:00 local: sent now
    (D.replace(hour=23, minute=30), D.replace(day=13, hour=7)),  # 00:30 local, next day already
])
def test_quiet_hours_run_from_22_00_to_08_00_local(utc, expected):
    assert after_quiet_hours(utc, PARIS) == expected


@pytest.mark.parametrize("away,expected_extra", [
    ((D - timedelta(days=2), D - timedelta(days=1)), timedelta(0)),  # before the turn
    ((D + timedelta(hours=5), D + timedelta(hours=29)), timedelta(hours=24)),  # inside
    ((D - timedelta(hours=5), D + timedelta(hours=3)), timedelta(hours=3)),  # began before the turn
    ((D + timedelta(hours=80), D + timedelta(hours=90)), timedelta(0)),  # after the deadline
    ((None, None), timedelta(0)),
])
def test_the_clock_stops_while_the_player_is_away(away, expected_extra):
    deadline = D + timedelta(hours=72)
    assert extend_for_absence(deadline, D, *away) == deadline + expected_extra


@pytest.mark.parametrize("text,ladder", [("50,85", [50, 85]), ("85, 50", [50, 85]), ("", []),
                                         ("0,100,30", [30])])
def test_the_ladder_is_sorted_percentages_strictly_inside_the_turn(text, ladder):
    assert parse_ladder(text) == ladder


@pytest.mark.parametrize("seconds,words", [(0, "0 seconds"), (1, "1 second"), (90, "1 minute"),
                                           (3600, "1 hour"), (3 * 3600 + 600, "3 hours 10 minutes"),
                                           (86400 + 3600, "1 day 1 hour"), (2 * 86400, "2 days"),
                                           (-5, "0 seconds")])
def test_the_time_left_in_words(seconds, words):
    assert time_left_text(D + timedelta(seconds=seconds), D) == words
