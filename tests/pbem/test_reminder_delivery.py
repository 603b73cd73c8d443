"""Reminders are claimed in chunks by the sweep and written just before they are sent: from the
game as it stands then, or cancelled (with the reason, never sent) when that turn is over."""
from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from sqlmodel import select

from clockkit import T0, deliver, game_row, mails, mover, play_the_turn, start_game, sweep
from pbem.games.clocks import reminders
from pbem.letters import deferred
from pbem.db import session_scope
from pbem.models import Seat

DUE = T0 + timedelta(hours=5)  # the 50 % step of a 10 h turn started at T0


def unsubscribe(engine, game_id, position):
    with session_scope(engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()
        seat.unsubscribed = True
        session.add(seat)


def test_the_sweep_queues_the_reminder_with_its_subject_and_the_worker_writes_the_rest(engine, cfg,
                                                                                      smtp_server):
    game_id = start_game(engine, cfg)
    ann = mover(engine, game_id).email
    sweep(engine, cfg, DUE)
    (queued,) = mails(engine, "reminder", ann)
    assert queued.subject == "[Korsar] Ann vs Bob: reminder, your turn (5 hours left)"
    assert queued.text_body == deferred.DEFERRED_TEXT and queued.status == "pending"
    assert deliver(engine, cfg, smtp_server, DUE)["sent"] >= 1
    (sent,) = mails(engine, "reminder", ann)
    assert sent.status == "sent" and "YOUR HAND" in sent.text_body and "data-hand" in sent.html_body
    (received,) = [m for m in smtp_server.to(ann) if "reminder" in m["Subject"]]
    assert "http://korsar.test/m/" in received.get_body(("plain",)).get_content()


def test_the_time_left_is_the_time_left_when_the_reminder_is_sent(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    sweep(engine, cfg, DUE)
    deliver(engine, cfg, smtp_server, DUE + timedelta(hours=1))  # the worker was an hour late
    (reminder,) = mails(engine, "reminder", mover(engine, game_id).email)
    assert "4 hours left" in reminder.subject and "4 hours left" in reminder.text_body


@pytest.mark.parametrize("meanwhile, reason", [
    (lambda engine, cfg, game_id: play_the_turn(engine, cfg, game_id, DUE + timedelta(minutes=1)),
     "the turn was over"),
    (lambda engine, cfg, game_id: unsubscribe(engine, game_id, mover(engine, game_id).position),
     "no longer gets reminders"),
], ids=["turn played", "unsubscribed"])
def test_a_reminder_overtaken_before_it_is_sent_is_cancelled_with_the_reason(engine, cfg, smtp_server,
                                                                            meanwhile, reason):
    game_id = start_game(engine, cfg)
    ann = mover(engine, game_id).email
    sweep(engine, cfg, DUE)
    meanwhile(engine, cfg, game_id)
    report = deliver(engine, cfg, smtp_server, DUE + timedelta(minutes=2))
    (reminder,) = mails(engine, "reminder", ann)
    assert report["cancelled"] == 1
    assert reminder.status == "cancelled" and reason in (reminder.last_error or "")
    assert not [m for m in smtp_server.to(ann) if "reminder" in m["Subject"]]
    assert deliver(engine, cfg, smtp_server, DUE + timedelta(days=1))["claimed"] == 0  # never retried


def test_a_reminder_from_an_earlier_turn_of_the_same_seat_is_cancelled(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    ann = mover(engine, game_id).email
    sweep(engine, cfg, DUE)
    play_the_turn(engine, cfg, game_id, DUE + timedelta(minutes=1))  # Ann
    play_the_turn(engine, cfg, game_id, DUE + timedelta(minutes=2))  # Bob: Ann's turn again
    assert mover(engine, game_id).email == ann
    deliver(engine, cfg, smtp_server, DUE + timedelta(minutes=3))
    (reminder,) = mails(engine, "reminder", ann)
    assert reminder.status == "cancelled"


def test_more_due_games_than_one_chunk_each_get_one_reminder(engine, cfg, monkeypatch):
    monkeypatch.setattr(reminders, "CHUNK", 2)
    games = [start_game(engine, cfg) for _ in range(5)]
    assert sweep(engine, cfg, DUE)["reminders"] == 5
    assert sweep(engine, cfg, DUE + timedelta(minutes=1))["reminders"] == 0
    assert Counter(m.game_id for m in mails(engine, "reminder")) == Counter(games)
    assert {game_row(engine, g).next_reminder_at for g in games} == {T0 + timedelta(hours=8, minutes=30)}
    assert {game_row(engine, g).reminders_sent for g in games} == {1}


def test_a_game_in_a_chunk_whose_deadline_passed_gets_its_timeout_not_a_reminder(engine, cfg):
    late = start_game(engine, cfg, deadline_hours=1)  # 50 % step 10:30, deadline 11:00
    on_time = start_game(engine, cfg)
    report = sweep(engine, cfg, T0 + timedelta(hours=5))
    assert report["timeouts"] == 1 and report["reminders"] == 1
    assert [m.game_id for m in mails(engine, "reminder")] == [on_time]
    assert game_row(engine, late).version == 1


def test_a_chunk_that_fails_claims_nothing_and_its_reminders_go_out_once_at_the_next_sweep(
        engine, cfg, monkeypatch):
    games = [start_game(engine, cfg) for _ in range(3)]

    def broken(*args, **kwargs):
        raise RuntimeError("crash while queueing")

    with monkeypatch.context() as patch:
        patch.setattr(reminders, "queue_reminder", broken)
        assert sweep(engine, cfg, DUE)["reminders"] == 0
    assert mails(engine, "reminder") == []
    assert {game_row(engine, g).next_reminder_at for g in games} == {DUE}  # still due, unclaimed
    assert sweep(engine, cfg, DUE + timedelta(minutes=1))["reminders"] == 3
    assert sweep(engine, cfg, DUE + timedelta(minutes=2))["reminders"] == 0
    assert Counter(m.game_id for m in mails(engine, "reminder")) == Counter(games)
