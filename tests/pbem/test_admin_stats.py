"""Admin stats page (counts, time per move, timeouts, an SVG chart of emails per day) and the
audit log page."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest
from sqlmodel import Session, select
from admin_helpers import bot_game, cfg_of, db_of, new_game, outbox, text_of

import engine
from pbem.db import session_scope
from pbem.games.service import apply_game_move
from pbem.store import load_state
from pbem.models import Game, OutboxMessage, OutboxStatus, Seat, utcnow
from pbem.web.admin.charts import daily_bar_chart, nice_max
from pbem.web.admin.queries import emails_sent_per_day, player_move_times


def play_first_moves(app, game_id: int, times: list[datetime]) -> None:
    """Each seat to move plays its first legal move at the given instants (source player)."""
    for at in times:
        with session_scope(db_of(app)) as s:
            g = s.get(Game, game_id)
            move = engine.legal_moves(load_state(g))[0]
            apply_game_move(s, cfg_of(app), game_id, g.to_move, move, now=at)


def test_average_time_per_player_move_counts_from_the_previous_move(admin_app):
    t0 = utcnow() - timedelta(days=1)
    game_id = new_game(admin_app, now=t0)
    play_first_moves(admin_app, game_id, [t0 + timedelta(hours=1), t0 + timedelta(hours=3),
                                          t0 + timedelta(hours=6)])
    with Session(db_of(admin_app)) as s:
        times = player_move_times(s, since=t0 - timedelta(days=1))
    # The first move has no previous move: 2 h and 3 h between the others.
    assert times.moves == 2 and times.average == timedelta(hours=2, minutes=30)


@pytest.mark.parametrize("sent_days_ago,expected", [([0, 0, 1], {0: 2, 1: 1}), ([], {}), ([40], {})])
def test_emails_sent_per_day_buckets_by_utc_day_with_zeros(admin_app, sent_days_ago, expected):
    new_game(admin_app)
    today = date(2026, 3, 10)
    rows = outbox(admin_app)
    with session_scope(db_of(admin_app)) as s:
        for row, ago in zip(rows, sent_days_ago):
            r = s.get(OutboxMessage, row.id)
            r.status, r.sent_at = OutboxStatus.SENT, datetime(2026, 3, 10, 12) - timedelta(days=ago)
    with Session(db_of(admin_app)) as s:
        series = emails_sent_per_day(s, today, days=30)
    assert len(series) == 30 and series[-1][0] == today and series[0][0] == today - timedelta(days=29)
    assert {29 - i: n for i, (_, n) in enumerate(series) if n} == expected


@pytest.mark.parametrize("value,top", [(0, 1), (1, 1), (3, 5), (7, 10), (12, 20), (480, 500), (1001, 2000)])
def test_chart_axis_tops_are_round_numbers(value, top):
    assert nice_max(value) == top


def test_chart_bars_grow_with_their_value_and_fit_the_plot():
    series = [(date(2026, 3, 1) + timedelta(days=i), n) for i, n in enumerate([0, 5, 10, 2])]
    chart = daily_bar_chart(series)
    heights = [b.height for b in chart.bars]
    assert heights[0] == 0 and heights[2] == chart.plot_bottom - chart.plot_top
    assert heights[1] == pytest.approx(heights[2] / 2)
    assert all(chart.plot_top <= b.y <= chart.plot_bottom for b in chart.bars)
    assert chart.summary == "17 emails sent in the last 4 days"


def test_stats_page_shows_counts_timeouts_and_an_svg_chart(admin_client, admin_app, smtp_server):
    game_id = new_game(admin_app)
    bot_game(admin_app)
    with session_scope(db_of(admin_app)) as s:
        seat = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 1)).one()
        seat.timeouts = 3
        for row in s.exec(select(OutboxMessage)):
            row.status, row.sent_at = OutboxStatus.SENT, utcnow()
    page = text_of(admin_client.get("/admin/stats"))
    assert re.search(r'<span class="big">2</span> running', page)
    assert "bob@example.com" in page and "<td>3</td>" in page
    assert "<svg" in page and page.count('class="bar"') == 30
    assert f"{len(outbox(admin_app))} emails sent in the last 30 days" in page
    assert "<script" not in page.split("</head>")[1]


def test_stats_page_works_on_an_empty_database(admin_client):
    page = text_of(admin_client.get("/admin/stats"))
    assert "Nobody has run out of time yet." in page and "0 emails sent" in page


def test_audit_log_page_lists_admin_actions_newest_first(admin_client, admin_app):
    game_id = new_game(admin_app)
    admin_client.post(f"/admin/games/{game_id}/pause")
    admin_client.post(f"/admin/games/{game_id}/resume")
    page = text_of(admin_client.get("/admin/audit"))
    actions = re.findall(r'data-label="Action">([^<]+)<', page)
    assert actions == ["resume", "pause", "login", "create admin"]
    assert "boss@korsar.test" in page
