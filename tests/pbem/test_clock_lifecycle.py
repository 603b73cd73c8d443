"""Admin actions on a game's clock (pbem/games/lifecycle.py): pause keeps the time left, resume
gives it back with fresh links, extend, nudge, abort, change of address. Each writes its change
and its emails in the caller's transaction; refused actions change nothing."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest

from clockkit import T0, deliver, game_row, mails, mover, other, seat_row, start_game, sweep
from pbem.db import session_scope
from pbem.games import lifecycle
from pbem.games.errors import GameError, GameNotRunning
from pbem.models import GameStatus, utcnow


def act(engine, fn, *args, **kwargs):
    with session_scope(engine) as session:
        return fn(session, *args, actor="admin@example.com", **kwargs)


def test_pause_stops_the_clock_and_resume_gives_back_the_time_left(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    act(engine, lifecycle.pause_game, cfg, game_id, now=T0 + timedelta(hours=4))
    game = game_row(engine, game_id)
    assert game.status == GameStatus.PAUSED and game.next_reminder_at is None
    assert sum(sweep(engine, cfg, T0 + timedelta(days=3)).values()) == 0
    turn_emails = len(mails(engine, "turn"))
    act(engine, lifecycle.resume_game, cfg, game_id, now=T0 + timedelta(days=3))
    game = game_row(engine, game_id)
    assert game.status == GameStatus.RUNNING
    assert game.deadline_at == T0 + timedelta(days=3, hours=6)  # the 6 hours that were left
    assert game.next_reminder_at == T0 + timedelta(days=3, hours=1)  # 50 %: 5 h before the deadline
    assert len(mails(engine, "turn")) == turn_emails + 1  # fresh links
    assert len(mails(engine, "paused")) == 2  # both players were told


def test_resuming_a_game_paused_on_its_deadline_starts_a_fresh_turn(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10, on_timeout="pause")
    sweep(engine, cfg, T0 + timedelta(hours=10))
    act(engine, lifecycle.resume_game, cfg, game_id, now=T0 + timedelta(hours=30))
    assert game_row(engine, game_id).deadline_at == T0 + timedelta(hours=40)


def test_extend_deadline_moves_the_deadline_and_the_ladder(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    act(engine, lifecycle.extend_deadline, cfg, game_id, hours=24, now=T0 + timedelta(hours=1))
    game = game_row(engine, game_id)
    assert game.deadline_at == T0 + timedelta(hours=34)
    assert game.next_reminder_at == T0 + timedelta(hours=29)
    assert "more time" in mails(engine, "notice", mover(engine, game_id).email)[0].subject


def test_nudge_sends_a_reminder_now_without_touching_the_ladder(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    before = game_row(engine, game_id).next_reminder_at
    act(engine, lifecycle.send_reminder_now, cfg, game_id, now=T0 + timedelta(hours=1))
    assert len(mails(engine, "reminder", mover(engine, game_id).email)) == 1
    assert game_row(engine, game_id).next_reminder_at == before


def test_a_nudge_is_written_when_it_is_sent_with_the_time_left_then(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg, deadline_hours=10)
    act(engine, lifecycle.send_reminder_now, cfg, game_id, now=T0 + timedelta(hours=1))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=2))
    (nudge,) = mails(engine, "reminder", mover(engine, game_id).email)
    assert nudge.status == "sent" and "8 hours left" in nudge.text_body and "YOUR HAND" in nudge.text_body


def test_nudge_is_refused_for_a_player_on_vacation(engine, cfg):
    from datetime import date

    from pbem.games.clocks.vacation import take_vacation

    game_id = start_game(engine, cfg, deadline_hours=10)
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        take_vacation(session, cfg, game_id, seat.position, date(2026, 1, 12), date(2026, 1, 13), now=T0)
    with pytest.raises(GameError, match="on vacation"):
        act(engine, lifecycle.send_reminder_now, cfg, game_id, now=T0 + timedelta(hours=1))
    assert mails(engine, "reminder") == []


def test_nudge_is_refused_for_a_player_who_switched_reminders_off(engine, cfg):
    from sqlalchemy import update

    from pbem.models import Seat

    game_id = start_game(engine, cfg, deadline_hours=10)
    seat = mover(engine, game_id)
    with session_scope(engine) as session:
        session.execute(update(Seat).where(Seat.id == seat.id).values(unsubscribed=True))
    with pytest.raises(GameError, match="switched reminders off"):
        act(engine, lifecycle.send_reminder_now, cfg, game_id, now=T0 + timedelta(hours=1))
    assert mails(engine, "reminder") == []


@pytest.mark.parametrize("first_delivered", [False, True], ids=["first still queued", "first delivered"])
def test_a_resent_turn_email_keeps_the_news_of_that_turn(engine, cfg, smtp_server, first_delivered):
    from clockkit import play_the_turn
    from pbem.games.admin_actions import resend_turn_email

    game_id = start_game(engine, cfg, deadline_hours=10)
    play_the_turn(engine, cfg, game_id)  # Ann
    play_the_turn(engine, cfg, game_id)  # Bob: Ann's turn email tells both moves
    seat = mover(engine, game_id)
    first = json.loads(mails(engine, "turn", seat.email)[-1].params_json)
    assert first == {"version": 2, "since": 0}
    if first_delivered:  # written and sent: its writer is done
        deliver(engine, cfg, smtp_server, utcnow())
        assert mails(engine, "turn", seat.email)[-1].status == "sent"
    with session_scope(engine) as session:
        resend_turn_email(session, cfg, game_id, now=T0)
    assert json.loads(mails(engine, "turn", seat.email)[-1].params_json) == first


def test_abort_stops_the_game_and_its_clock_and_tells_everyone(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    act(engine, lifecycle.abort_game, cfg, game_id, now=T0, reason="test")
    game = game_row(engine, game_id)
    assert game.status == GameStatus.ABORTED and game.deadline_at is None
    assert len(mails(engine, "notice")) == 2
    assert sweep(engine, cfg, T0 + timedelta(days=9))["timeouts"] == 0


def test_change_of_address_revokes_old_links_and_mails_new_ones(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    seat = mover(engine, game_id)
    act(engine, lifecycle.change_seat_email, cfg, game_id, seat.position, "ann.new@example.com", now=T0)
    changed = seat_row(engine, game_id, seat.position)
    assert changed.email == "ann.new@example.com" and changed.link_nonce != seat.link_nonce
    assert mails(engine, "turn", "ann.new@example.com")


@pytest.mark.parametrize("action,kwargs,error", [
    (lifecycle.resume_game, {}, GameNotRunning),
    (lifecycle.extend_deadline, {"hours": -1}, GameError),
    (lifecycle.change_seat_email, {"position": 0, "new_email": "not an address"}, GameError),
    (lifecycle.hand_seat_back, {"position": 0}, GameError),
])
def test_refused_actions_raise_a_clear_error_and_change_nothing(engine, cfg, action, kwargs, error):
    game_id = start_game(engine, cfg, deadline_hours=10)
    before = game_row(engine, game_id)
    outbox = len(mails(engine))
    position = kwargs.pop("position", None)
    args = (cfg, game_id) if position is None else (cfg, game_id, position)
    if "new_email" in kwargs:
        args = (*args, kwargs.pop("new_email"))
    with pytest.raises(error) as raised:
        act(engine, action, *args, now=T0, **kwargs)
    assert str(raised.value)
    after = game_row(engine, game_id)
    assert (after.status, after.deadline_at, after.version) == (before.status, before.deadline_at, before.version)
    assert len(mails(engine)) == outbox


def test_handing_a_waiting_seat_to_the_bot_does_not_touch_the_current_clock(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=10)
    waiting = other(engine, game_id)
    before = game_row(engine, game_id).deadline_at
    act(engine, lifecycle.hand_seat_to_bot, cfg, game_id, waiting.position, now=T0)
    assert seat_row(engine, game_id, waiting.position).handed_to_bot
    assert game_row(engine, game_id).deadline_at == before
