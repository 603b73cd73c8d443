"""Daylight-saving changes neither skip nor repeat a reminder, and quiet hours follow the local
clock on both sides of the change (08:00 local is a different UTC hour before and after)."""
from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from clockkit import mails, make_cfg, mover, start_game, sweep
from pbem.schedule import is_quiet
from pbem.db import make_engine

H = datetime  # expected instants are naive UTC


@pytest.mark.parametrize("zone,start,expected", [
    # spring forward 2026-03-29 01:00 UTC: 08:00 CEST on Sunday is 06:00 UTC (07:00 before)
    ("Europe/Paris", H(2026, 3, 28, 5), [H(2026, 3, 28, 17), H(2026, 3, 29, 6), H(2026, 3, 29, 17)]),
    # fall back 2026-10-25 01:00 UTC: 08:00 CET is 07:00 UTC again
    ("Europe/Paris", H(2026, 10, 24, 5), [H(2026, 10, 24, 17), H(2026, 10, 25, 7), H(2026, 10, 25, 17)]),
    # spring forward 2026-03-08 07:00 UTC: 08:00 EDT is 12:00 UTC
    ("America/New_York", H(2026, 3, 7, 11), [H(2026, 3, 7, 23), H(2026, 3, 8, 12), H(2026, 3, 8, 23)]),
    # fall back 2026-11-01 06:00 UTC: 08:00 EST is 13:00 UTC; the repeated 01:00 hour repeats nothing
    ("America/New_York", H(2026, 10, 31, 10), [H(2026, 10, 31, 22), H(2026, 11, 1, 13), H(2026, 11, 1, 22)]),
    # no daylight saving at all (UTC+7): 08:00 is always 01:00 UTC
    ("Asia/Ho_Chi_Minh", H(2026, 3, 28, 5), [H(2026, 3, 29, 1), H(2026, 3, 29, 5), H(2026, 3, 30, 1)]),
])
def test_each_reminder_goes_out_once_at_the_right_instant_across_a_dst_change(database_url, zone,
                                                                             start, expected):
    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    game_id = start_game(engine, cfg, now=start, deadline_hours=48, reminders="25,50,75", tz=zone)
    address = mover(engine, game_id).email
    sent_at: list[datetime] = []
    now = start
    while now < start + timedelta(hours=48):
        before = len(mails(engine, "reminder", address))
        sweep(engine, cfg, now)
        sent_at += [now] * (len(mails(engine, "reminder", address)) - before)
        now += timedelta(minutes=10)
    engine.dispose()
    assert sent_at == expected
    assert not any(is_quiet(t, ZoneInfo(zone)) for t in sent_at)
