"""Turn emails are queued with the move (subject and a placeholder) and written just before they
are sent, from the game as it stands then; one whose turn is over by then is cancelled with the
reason and never sent."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlmodel import select

from clockkit import deliver, mails, mover, play_the_turn, seat_row, start_game
from pbem.db import session_scope
from pbem.letters import notify
from pbem.games.service import seats_of
from pbem.store import load_state
from pbem.models import Game, GameStatus, Seat, utcnow



def send(engine, cfg, smtp_server, later=timedelta(0)):
    """The worker's pass now (outbox rows are due from the real clock) plus `later`."""
    return deliver(engine, cfg, smtp_server, utcnow() + later)


def pause(engine, cfg, game_id):
    with session_scope(engine) as session:
        game = session.get(Game, game_id)
        game.status = GameStatus.PAUSED
        session.add(game)


def change_address(engine, cfg, game_id):
    with session_scope(engine) as session:
        game = session.get(Game, game_id)
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == game.to_move)).one()
        seat.email = "new-address@example.com"
        session.add(seat)


def test_the_turn_email_is_queued_with_the_move_and_written_when_it_is_sent(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    play_the_turn(engine, cfg, game_id)
    bob = mover(engine, game_id).email
    (queued,) = mails(engine, "turn", bob)
    assert queued.subject == "[Korsar] Ann vs Bob: your turn, Bob"
    assert queued.text_body == notify.DEFERRED_TURN_TEXT and queued.html_body == ""
    assert queued.deferred == "turn" and "X-Korsar" not in queued.headers_json  # typed data, no header
    assert "YOUR HAND" not in queued.text_body
    assert send(engine, cfg, smtp_server)["sent"] >= 1
    (sent,) = mails(engine, "turn", bob)
    assert sent.status == "sent" and "YOUR HAND" in sent.text_body and "data-hand" in sent.html_body
    assert sent.deferred is None and "X-Korsar" not in sent.headers_json
    (received,) = [m for m in smtp_server.to(bob) if "your turn" in m["Subject"]]
    text = received.get_body(("plain",)).get_content()
    assert "http://korsar.test/m/" in text and "Ann " in text  # Ann's move, in the news


def test_the_news_in_a_turn_email_start_after_the_players_previous_turn(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    ann = mover(engine, game_id).email
    send(engine, cfg, smtp_server)
    play_the_turn(engine, cfg, game_id)  # Ann
    play_the_turn(engine, cfg, game_id)  # Bob
    send(engine, cfg, smtp_server)
    first, second = mails(engine, "turn", ann)
    assert first.status == second.status == "sent"
    with session_scope(engine) as session:
        game = session.get(Game, game_id)
        seat = seats_of(session, game_id)[0]
        first_turn = game.version - 2  # Ann's first turn, before her move and Bob's
        expected = notify.seat_context(session, cfg, game, seat, load_state(game), since=first_turn)["since"]
    assert len(expected) >= 2  # Ann's own move and Bob's answer
    assert all(sentence in second.text_body for sentence in expected)


def test_the_since_mark_moves_when_the_turn_email_is_written_not_when_it_is_queued(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    play_the_turn(engine, cfg, game_id)  # Ann: Bob's turn email is queued
    bob = mover(engine, game_id)
    assert bob.last_seen_version == 0
    send(engine, cfg, smtp_server)
    assert seat_row(engine, game_id, bob.position).last_seen_version == 1


def test_a_cancelled_turn_email_leaves_its_news_to_the_next_one(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    play_the_turn(engine, cfg, game_id)  # Ann: Bob's turn email for move 1 is queued...
    bob = mover(engine, game_id)
    play_the_turn(engine, cfg, game_id)  # ...and overtaken: Bob plays from his game page
    send(engine, cfg, smtp_server)
    assert mails(engine, "turn", bob.email)[0].status == "cancelled"
    play_the_turn(engine, cfg, game_id)  # Ann again
    assert json.loads(mails(engine, "turn", bob.email)[-1].params_json) == {"version": 3, "since": 0}


@pytest.mark.parametrize("meanwhile, reason", [
    (play_the_turn, "the turn was over"),
    (pause, "no longer running"),
    (change_address, "email address changed"),
], ids=["moved from the game page", "paused", "address changed"])
def test_a_turn_email_overtaken_before_it_is_sent_is_cancelled_with_the_reason(engine, cfg, smtp_server,
                                                                              meanwhile, reason):
    game_id = start_game(engine, cfg)
    play_the_turn(engine, cfg, game_id)
    bob = mover(engine, game_id).email
    meanwhile(engine, cfg, game_id)
    report = send(engine, cfg, smtp_server)
    (turn,) = mails(engine, "turn", bob)
    assert report["cancelled"] >= 1
    assert turn.status == "cancelled" and reason in (turn.last_error or "")
    assert not [m for m in smtp_server.to(bob) if "your turn" in m["Subject"]]
    assert send(engine, cfg, smtp_server, timedelta(days=1))["claimed"] == 0  # never retried


def test_a_finished_game_sends_no_stale_turn_email(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    for _ in range(500):
        with session_scope(engine) as session:
            if session.get(Game, game_id).status == GameStatus.FINISHED:
                break
        play_the_turn(engine, cfg, game_id)
    send(engine, cfg, smtp_server)
    turns = mails(engine, "turn")
    assert {m.status for m in turns} == {"cancelled"}
    assert not [m for m in smtp_server.messages if "your turn" in m["Subject"]]
    assert [m for m in smtp_server.messages if m["Subject"] and "your turn" not in m["Subject"]]


def test_a_turn_email_is_written_once_and_sent_once(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg)
    play_the_turn(engine, cfg, game_id)
    bob = mover(engine, game_id).email
    send(engine, cfg, smtp_server)
    send(engine, cfg, smtp_server, timedelta(hours=1))
    assert len([m for m in smtp_server.to(bob) if "your turn" in m["Subject"]]) == 1
