"""What happens at the deadline, per game: autoplay, pause or bot; and the race with a move."""
from __future__ import annotations

from datetime import timedelta

import engine as korsar
import pytest
from sqlmodel import select

from clockkit import T0, deliver, game_row, mails, make_cfg, mover, other, seat_row, start_game, sweep  # noqa: F401
from pbem.db import make_engine, session_scope
from pbem.games.service import apply_game_move, lock_game_with_seats, seats_of
from pbem.games.bots import bot_move, play_due_bots
from pbem.games.errors import StaleMove
from pbem.store import load_state
from pbem.models import GameStatus, MoveRecord, Notice, utcnow

DEADLINE = T0 + timedelta(hours=10)


@pytest.fixture
def cfg(database_url):
    return make_cfg(database_url, ADMIN_EMAILS=["boss@example.com"])


def hand_codes(engine, game_id, position):
    state = load_state(game_row(engine, game_id))
    return korsar.player_view(state, position)["hand"]


def test_nothing_happens_before_the_deadline(engine, cfg):
    game_id = start_game(engine, cfg)
    assert sweep(engine, cfg, DEADLINE - timedelta(seconds=1))["timeouts"] == 0
    assert game_row(engine, game_id).version == 0


def test_autoplay_plays_the_greedy_move_and_tells_the_player_what_was_played(engine, cfg, smtp_server):
    game_id = start_game(engine, cfg, on_timeout="autoplay")
    ann, bob = mover(engine, game_id), other(engine, game_id)
    bobs_hand = hand_codes(engine, game_id, bob.position)
    played = korsar.describe_move(
        bot_move(game_row(engine, game_id), ann, load_state(game_row(engine, game_id)), cfg=cfg),
        korsar.player_view(load_state(game_row(engine, game_id)), ann.position))
    assert sweep(engine, cfg, DEADLINE)["timeouts"] == 1
    with session_scope(engine) as session:
        (record,) = session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)).all()
    assert record.source == "timeout" and record.seat == ann.position
    deliver(engine, cfg, smtp_server, utcnow() + timedelta(minutes=1))  # written when it is sent
    (told,) = mails(engine, "timeout_autoplay", ann.email)
    assert told.status == "sent"
    assert "a bot played this turn for you" in told.text_body and played in told.text_body
    for code in bobs_hand:  # the email is about Ann's move only, never Bob's hand
        assert f'data-card="{code}"' not in told.html_body
    assert seat_row(engine, game_id, ann.position).timeouts == 1
    game = game_row(engine, game_id)
    assert game.to_move == bob.position and game.deadline_at == DEADLINE + timedelta(hours=10)
    assert mails(engine, "turn", bob.email)  # the next player's turn email


def test_pause_pauses_the_game_and_emails_the_players_and_the_admins(engine, cfg):
    game_id = start_game(engine, cfg, on_timeout="pause")
    ann, bob = mover(engine, game_id), other(engine, game_id)
    sweep(engine, cfg, DEADLINE)
    game = game_row(engine, game_id)
    assert game.status == GameStatus.PAUSED and game.version == 0
    assert mails(engine, "paused", "boss@example.com")
    assert "/admin/games/" in mails(engine, "paused", "boss@example.com")[0].text_body
    assert "did not move before the deadline" in mails(engine, "paused", ann.email)[0].text_body
    assert mails(engine, "paused", bob.email)
    assert sweep(engine, cfg, DEADLINE + timedelta(hours=1))["timeouts"] == 0


def test_bot_hands_the_seat_to_the_bot_which_then_plays_it(engine, cfg):
    game_id = start_game(engine, cfg, on_timeout="bot")
    ann, bob = mover(engine, game_id), other(engine, game_id)
    sweep(engine, cfg, DEADLINE)
    seat = seat_row(engine, game_id, ann.position)
    assert seat.handed_to_bot and seat.email == ann.email
    assert "now plays your seat" in mails(engine, "seat_to_bot", ann.email)[0].text_body
    with session_scope(engine) as session:
        news = session.exec(select(Notice).where(Notice.seat_id == bob.id)).all()
    assert [n.text for n in news] == ["The bot now plays Ann's seat after missing a deadline."]
    sweep(engine, cfg, DEADLINE)  # the table is told
    assert "The bot now plays Ann's seat" in mails(engine, "news", bob.email)[0].text_body
    assert game_row(engine, game_id).deadline_at is None
    assert play_due_bots(engine, cfg, DEADLINE + timedelta(seconds=1)) == 1
    assert game_row(engine, game_id).to_move == bob.position


def test_an_admin_can_hand_the_seat_back(engine, cfg):
    from pbem.games.lifecycle import hand_seat_back

    game_id = start_game(engine, cfg, on_timeout="bot")
    ann = mover(engine, game_id)
    sweep(engine, cfg, DEADLINE)
    with session_scope(engine) as session:
        hand_seat_back(session, cfg, game_id, ann.position, now=DEADLINE, actor="admin@example.com")
    assert not seat_row(engine, game_id, ann.position).handed_to_bot
    game = game_row(engine, game_id)
    assert game.bot_due_at is None and game.deadline_at == DEADLINE + timedelta(hours=10)
    assert len(mails(engine, "turn", ann.email)) == 2  # fresh links


def test_a_player_move_that_wins_the_race_cancels_the_timeout(engine, cfg):
    from pbem.games.clocks.sweep import apply_timeout

    game_id = start_game(engine, cfg)
    seen_version = game_row(engine, game_id).version
    with session_scope(engine) as session:  # the player's click lands first
        game = lock_game_with_seats(session, game_id)[0]
        seat = seats_of(session, game_id)[game.to_move]
        apply_game_move(session, cfg, game_id, seat.position, bot_move(game, seat, load_state(game), cfg=cfg),
                        expected_version=seen_version, now=DEADLINE)
    with session_scope(engine) as session:
        assert apply_timeout(session, cfg, game_id, seen_version, DEADLINE) is None
    assert game_row(engine, game_id).version == 1
    assert mails(engine, "timeout_autoplay") == []


def test_a_late_click_after_the_timeout_is_refused_as_stale(engine, cfg):
    game_id = start_game(engine, cfg)
    ann = mover(engine, game_id)
    state = load_state(game_row(engine, game_id))
    move = korsar.legal_moves(state, ann.position)[0]
    sweep(engine, cfg, DEADLINE)
    with pytest.raises(StaleMove), session_scope(engine) as session:
        apply_game_move(session, cfg, game_id, ann.position, move, expected_version=0, now=DEADLINE)
    assert game_row(engine, game_id).version == 1


def test_a_timeout_that_fails_rolls_back_alone_and_is_applied_once_at_the_next_sweep(database_url,
                                                                                     monkeypatch):
    from pbem.games.clocks import sweep as sweep_module

    engine = make_engine(database_url)
    cfg = make_cfg(database_url)
    games = [start_game(engine, cfg, deadline_hours=1) for _ in range(3)]
    real_bot_move = sweep_module.bot_move

    def bot_move_failing_in_the_middle_game(game, seat, state, view=None, *, cfg):
        if game.id == games[1]:
            raise RuntimeError("a bug in one game")
        return real_bot_move(game, seat, state, view, cfg=cfg)

    with monkeypatch.context() as patch:
        patch.setattr(sweep_module, "bot_move", bot_move_failing_in_the_middle_game)
        assert sweep(engine, cfg, T0 + timedelta(hours=2))["timeouts"] == 2
    assert [game_row(engine, g).version for g in games] == [1, 0, 1]
    assert sweep(engine, cfg, T0 + timedelta(hours=2, minutes=1))["timeouts"] == 1
    assert sweep(engine, cfg, T0 + timedelta(hours=2, minutes=2))["timeouts"] == 0
    assert [game_row(engine, g).version for g in games] == [1, 1, 1]
    engine.dispose()


def test_a_sweep_applies_many_timeouts_of_every_policy_together_each_once(engine, cfg):
    policies = ["autoplay", "pause", "bot", "autoplay", "autoplay"]
    games = [start_game(engine, cfg, on_timeout=policy) for policy in policies]
    movers = [mover(engine, g) for g in games]
    assert sweep(engine, cfg, DEADLINE)["timeouts"] == len(games)
    for game_id, policy, seat in zip(games, policies, movers):
        game = game_row(engine, game_id)
        assert seat_row(engine, game_id, seat.position).timeouts == 1
        if policy == "autoplay":
            assert game.version == 1 and game.to_move != seat.position
            assert [m.game_id for m in mails(engine, "timeout_autoplay", seat.email)].count(game_id) == 1
            assert game.deadline_at == DEADLINE + timedelta(hours=10)
        elif policy == "pause":
            assert game.status == GameStatus.PAUSED and game.version == 0
        else:
            assert seat_row(engine, game_id, seat.position).handed_to_bot
    with session_scope(engine) as session:
        logged = session.exec(select(MoveRecord.game_id)).all()
    assert sorted(logged) == sorted(g for g, p in zip(games, policies) if p == "autoplay")
    assert sweep(engine, cfg, DEADLINE + timedelta(minutes=1))["timeouts"] == 0


def test_a_game_that_moved_after_the_sweep_looked_is_left_to_the_next_sweep(engine, cfg):
    from pbem.games.clocks.sweep import apply_timeouts

    moved, waiting = start_game(engine, cfg), start_game(engine, cfg)
    with session_scope(engine) as session:  # the sweep saw both at version 0; one is played meanwhile
        game = lock_game_with_seats(session, moved)[0]
        seat = seats_of(session, moved)[game.to_move]
        apply_game_move(session, cfg, moved, seat.position, bot_move(game, seat, load_state(game), cfg=cfg),
                        expected_version=0, now=DEADLINE - timedelta(minutes=1))
    with session_scope(engine) as session:
        assert apply_timeouts(session, cfg, [(moved, 0), (waiting, 0)], DEADLINE) == 1
    assert game_row(engine, moved).version == 1 and game_row(engine, waiting).version == 1
    with session_scope(engine) as session:
        assert len(session.exec(select(MoveRecord).where(MoveRecord.game_id == moved)).all()) == 1
