"""Reminders: the ladder (50% / 85% of the deadline by default), their content, quiet hours,
catch-up after downtime and unsubscribed players."""
from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import select

from clockkit import T0, deliver, game_row, headers, mails, mover, other, play_the_turn, start_game, sweep
from pbem.db import session_scope
from pbem.models import Seat


def reminders_to(engine, address):
    return mails(engine, "reminder", address)


def test_reminders_go_out_at_50_and_85_percent_of_the_deadline(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)  # 10:00 -> 20:00 UTC
    ann = mover(engine, game_id).email
    for minute, expected in [(T0 + timedelta(hours=4, minutes=59), 0), (T0 + timedelta(hours=5), 1),
                             (T0 + timedelta(hours=6), 1), (T0 + timedelta(hours=8, minutes=29), 1),
                             (T0 + timedelta(hours=8, minutes=30), 2), (T0 + timedelta(hours=9), 2)]:
        sweep(engine, cfg, minute)
        assert len(reminders_to(engine, ann)) == expected, minute


def test_a_reminder_is_the_turn_email_with_fresh_links_and_the_time_left(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg, deadline_hours=10)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))
    (reminder,) = reminders_to(engine, mover(engine, game_id).email)
    assert reminder.status == "sent"
    assert "reminder" in reminder.subject.lower()
    assert "5 hours left" in reminder.text_body
    assert "Monday 12 January 2026, 20:00 (UTC)" in reminder.text_body
    assert "http://korsar.test/m/" in reminder.text_body  # one link per legal move
    assert "YOUR HAND" in reminder.text_body
    assert headers(reminder)["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert headers(reminder)["List-Unsubscribe"].startswith("<http://korsar.test/u/")


def test_the_time_left_is_told_in_the_players_own_time_zone(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg, deadline_hours=10, tz="America/New_York")
    sweep(engine, cfg, T0 + timedelta(hours=5))  # 10:00 EST: not quiet
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))
    (reminder,) = reminders_to(engine, mover(engine, game_id).email)
    assert "Monday 12 January 2026, 15:00 (America/New_York)" in reminder.text_body


def test_nobody_else_gets_the_reminder(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    sweep(engine, cfg, T0 + timedelta(hours=9))
    assert reminders_to(engine, other(engine, game_id).email) == []


def test_a_reminder_in_quiet_hours_waits_for_08_00_local(engine, cfg):
    # 24 h from 10:00 UTC; 50% = 22:00 UTC = 05:00 in Ho Chi Minh City (UTC+7) -> 08:00 local = 01:00 UTC
    game_id = start_game(engine, cfg, deadline_hours=24, tz="Asia/Ho_Chi_Minh")
    assert game_row(engine, game_id).next_reminder_at == datetime(2026, 1, 13, 1, 0)
    ann = mover(engine, game_id).email
    sweep(engine, cfg, datetime(2026, 1, 12, 22, 0))
    assert reminders_to(engine, ann) == []
    sweep(engine, cfg, datetime(2026, 1, 13, 1, 0))
    assert len(reminders_to(engine, ann)) == 1
    assert game_row(engine, game_id).deadline_at == datetime(2026, 1, 13, 10, 0)  # unmoved


def test_a_reminder_whose_morning_comes_after_the_deadline_is_skipped(engine, cfg):
    # 20:00 -> 00:00 UTC: both steps fall in quiet hours and 08:00 is after the deadline.
    game_id = start_game(engine, cfg, now=datetime(2026, 1, 12, 20, 0), deadline_hours=4)
    assert game_row(engine, game_id).next_reminder_at is None
    sweep(engine, cfg, datetime(2026, 1, 12, 23, 59))
    assert reminders_to(engine, mover(engine, game_id).email) == []


def test_a_worker_down_for_days_sends_one_reminder_not_the_whole_ladder(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72, reminders="25,50,75,90")
    ann = mover(engine, game_id).email
    sweep(engine, cfg, T0 + timedelta(hours=66))  # down past 25/50/75/90 %, before the deadline
    assert len(reminders_to(engine, ann)) == 1
    sweep(engine, cfg, T0 + timedelta(hours=67))
    sweep(engine, cfg, T0 + timedelta(hours=71, minutes=59))
    assert len(reminders_to(engine, ann)) == 1
    assert game_row(engine, game_id).next_reminder_at is None


def test_a_worker_down_past_the_deadline_applies_the_timeout_once_and_sends_no_reminder(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72)
    ann = mover(engine, game_id).email
    first = sweep(engine, cfg, T0 + timedelta(days=5))
    again = sweep(engine, cfg, T0 + timedelta(days=5, minutes=1))
    assert first["timeouts"] == 1 and again["timeouts"] == 0
    assert reminders_to(engine, ann) == []
    assert len(mails(engine, "timeout_autoplay", ann)) == 1
    assert game_row(engine, game_id).version == 1


def test_an_unsubscribed_player_gets_no_reminders(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    with session_scope(engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id,
                                               Seat.position == game_row(engine, game_id).to_move)).one()
        seat.unsubscribed = True
        session.add(seat)
    sweep(engine, cfg, T0 + timedelta(hours=9))
    assert reminders_to(engine, mover(engine, game_id).email) == []


def test_a_move_restarts_the_ladder_for_the_next_player(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    play_the_turn(engine, cfg, game_id, T0 + timedelta(hours=6))
    game = game_row(engine, game_id)
    assert game.deadline_at == T0 + timedelta(hours=16)
    assert game.next_reminder_at == T0 + timedelta(hours=11)
    assert game.reminders_sent == 0


def test_a_reminder_shows_only_the_recipients_own_hand(engine, cfg, smtp_server):
    import re

    import engine as korsar

    from pbem.store import load_state

    game_id = start_game(engine, cfg, deadline_hours=10)
    seat = mover(engine, game_id)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))
    (reminder,) = reminders_to(engine, seat.email)
    # the inliner (css-inline) may write the attributes in another order
    hands = re.findall(r'<div (?=[^>]*data-hand="(\w+)")(?=[^>]*data-seat="(\d+)")[^>]*>(.*?)</div>',
                       reminder.html_body, re.S)
    assert [(kind, int(position)) for kind, position, _ in hands] == [("own", seat.position)]
    shown = sorted(re.findall(r'data-card="([^"]+)"', hands[0][2]))
    own = korsar.player_view(load_state(game_row(engine, game_id)), seat.position)["hand"]
    assert shown == sorted(own)
