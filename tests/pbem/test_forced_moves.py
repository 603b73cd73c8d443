"""Forced moves: a seat's preference "play my forced moves for me" (on by default). A turn whose
only legal move is a draw (or whose only legal move at all) is played at once by the service,
through the move path (version check, move log with source "forced"), without a turn email; the
chain goes on until a real choice or the end of the game; the seat's next email says what was
played for it. A choice of two is never played."""
from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

import engine
from game_helpers import cfg_of, db_of, deck_with_hands, game_row, outbox, seats, start_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from pbem import links
from pbem.db import session_scope
from pbem.games import errors, lifecycle, records, service
from pbem import store
from pbem.games.clocks import preferences
from pbem.games.seated import lock_seated
from pbem.letters import notify
from pbem.mail.render import environment
from pbem.models import MoveRecord, Seat

NOW = datetime(2026, 1, 5, 12, 0)
ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"
PIRATES_0 = ["G1", "G2", "B1", "B2", "R1", "R2"]
PIRATES_1 = ["G3", "G4", "B3", "B4", "R3", "R4"]


def _moves(app, game_id) -> list[MoveRecord]:
    with session_scope(db_of(app)) as s:
        return list(s.exec(select(MoveRecord).where(MoveRecord.game_id == game_id)
                           .order_by(col(MoveRecord.number))))


def _turn_emails(app, game_id) -> list[tuple[str, int]]:
    return [(m.to_addr, json.loads(m.params_json or "{}")["version"])
            for m in outbox(app, game_id, kind="turn")]



def _chain_game(app) -> int:
    """Nobody holds a merchant ship: Ann draws G1, Bob B1, Ann M3, Bob K1; then Ann may play M3."""
    deck = deck_with_hands(PIRATES_0, PIRATES_1, draw=["G1", "B1", "M3", "K1"])
    return start_game(app, [ANN, BOB], deck=deck, now=NOW)


def test_a_forced_draw_is_played_at_once_and_the_chain_stops_at_a_real_choice(app):
    game_id = _chain_game(app)
    moves = _moves(app, game_id)
    assert [(m.number, m.seat, json.loads(m.move_json), m.source) for m in moves] == [
        (1, 0, {"action": "draw"}, "forced"), (2, 1, {"action": "draw"}, "forced"),
        (3, 0, {"action": "draw"}, "forced"), (4, 1, {"action": "draw"}, "forced")]
    game = game_row(app, game_id)
    assert game.version == 4 and game.to_move == 0
    assert len(engine.legal_moves(store.load_state(game))) >= 2  # Ann holds M3: a real choice


def test_forced_turns_send_no_turn_email_only_the_real_choice_does(app):
    game_id = _chain_game(app)
    assert _turn_emails(app, game_id) == [("ann@example.com", 4)]


def test_a_forced_turn_restarts_the_clock_of_the_next_real_turn(app):
    game_id = _chain_game(app)
    game = game_row(app, game_id)
    assert game.deadline_at == NOW + timedelta(hours=game.deadline_hours)


def test_a_choice_of_two_is_never_played_for_you(app):
    deck = deck_with_hands(["M3", *PIRATES_0[:5]], PIRATES_1)  # Ann: play M3 or draw
    game_id = start_game(app, [ANN, BOB], deck=deck, now=NOW)
    assert _moves(app, game_id) == []
    assert _turn_emails(app, game_id) == [("ann@example.com", 0)]


def _bobs_forced_turn_waiting(app) -> int:
    """Ann draws, and Bob, who switched "play my forced moves" off, has one move: a draw."""
    deck = deck_with_hands(["M3", *PIRATES_0[:5]], PIRATES_1, draw=["K1", "G1"])
    game_id = start_game(app, [ANN, BOB], deck=deck, now=NOW)
    with session_scope(db_of(app)) as s:
        preferences.set_play_forced(s, cfg_of(app), lock_seated(s, game_id, 1), False, now=NOW)
    with session_scope(db_of(app)) as s:
        service.apply_game_move(s, cfg_of(app), game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    return game_id


def test_after_a_real_move_the_next_forced_turn_is_played(app):
    deck = deck_with_hands(["M3", *PIRATES_0[:5]], PIRATES_1, draw=["K1", "G1"])
    game_id = start_game(app, [ANN, BOB], deck=deck, now=NOW)
    with session_scope(db_of(app)) as s:  # Ann draws rather than play M3: Bob has no target
        service.apply_game_move(s, cfg_of(app), game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    assert [(m.seat, m.source) for m in _moves(app, game_id)] == [(0, "player"), (1, "forced")]
    assert _turn_emails(app, game_id) == [("ann@example.com", 0), ("ann@example.com", 2)]


def test_a_seat_that_switched_it_off_is_asked_even_for_a_forced_move(app):
    game_id = _bobs_forced_turn_waiting(app)
    assert [m.source for m in _moves(app, game_id)] == ["player"]
    assert _turn_emails(app, game_id)[-1] == ("bob@example.com", 1)


def test_switching_it_on_during_a_forced_turn_plays_that_turn_at_once(app):
    game_id = _bobs_forced_turn_waiting(app)
    with session_scope(db_of(app)) as s:
        preferences.set_play_forced(s, cfg_of(app), lock_seated(s, game_id, 1), True, now=NOW)
    assert [m.source for m in _moves(app, game_id)] == ["player", "forced"]
    assert game_row(app, game_id).to_move == 0


def test_resuming_a_paused_game_plays_a_forced_turn_waiting_in_it(app):
    game_id = _bobs_forced_turn_waiting(app)
    with session_scope(db_of(app)) as s:
        lifecycle.pause_game(s, cfg_of(app), game_id, now=NOW, actor="admin")
    with session_scope(db_of(app)) as s:  # switched on while paused: nothing is played yet
        preferences.set_play_forced(s, cfg_of(app), lock_seated(s, game_id, 1), True, now=NOW)
    assert [m.source for m in _moves(app, game_id)] == ["player"]
    with session_scope(db_of(app)) as s:
        lifecycle.resume_game(s, cfg_of(app), game_id, now=NOW, actor="admin")
    assert [m.source for m in _moves(app, game_id)] == ["player", "forced"]
    assert game_row(app, game_id).to_move == 0


def test_the_next_email_says_what_was_played_for_you(app):
    game_id = _chain_game(app)
    with session_scope(db_of(app)) as s:
        game = service.lock_game_with_seats(s, game_id)[0]
        ann = service.seats_of(s, game_id)[0]
        context = notify.seat_context(s, cfg_of(app), game, ann, store.load_state(game))
    assert context["played_for_you"] == [{"number": 1, "text": "Draw a card"},
                                         {"number": 3, "text": "Draw a card"}]
    text = environment().get_template("partials/played_for_you.txt").render(context)
    assert "PLAYED FOR YOU" in text and "Move 1: Draw a card (your only move)" in text
    assert context["prefs_url"] in text
    html = environment().get_template("partials/played_for_you.html").render(context)
    assert html.count("<li>") == 2 and "data-played-for-you" in html


def test_what_was_played_for_you_is_told_once(app):
    game_id = _chain_game(app)
    with session_scope(db_of(app)) as s:  # Ann's turn email is written: her mark moves to move 4
        game = service.lock_game_with_seats(s, game_id)[0]
        ann = service.seats_of(s, game_id)[0]
        notify.deferred_turn_email(s, cfg_of(app), game, ann, {"version": 4, "since": 0})
    with session_scope(db_of(app)) as s:
        game = service.lock_game_with_seats(s, game_id)[0]
        ann = service.seats_of(s, game_id)[0]
        assert notify.seat_context(s, cfg_of(app), game, ann, store.load_state(game))["played_for_you"] == []


def test_an_email_without_forced_moves_shows_no_played_for_you_section(app):
    deck = deck_with_hands(["M3", *PIRATES_0[:5]], PIRATES_1)
    game_id = start_game(app, [ANN, BOB], deck=deck, now=NOW)
    with session_scope(db_of(app)) as s:
        game = service.lock_game_with_seats(s, game_id)[0]
        ann = service.seats_of(s, game_id)[0]
        context = notify.seat_context(s, cfg_of(app), game, ann, store.load_state(game))
    assert context["played_for_you"] == []
    assert environment().get_template("partials/played_for_you.txt").render(context).strip() == ""


def test_the_prefs_page_switches_forced_moves_off_and_on(app, client):
    game_id = _chain_game(app)
    seat = seats(app, game_id)[1]
    token = links.sign_seat(cfg_of(app), game_id, 1, seat.link_nonce)
    page = client.get(f"/g/{token}/prefs").get_data(as_text=True)
    assert "Ask me even when I have only one move" in page
    assert client.post(f"/g/{token}/forced", data={"forced": "off"}).status_code == 303
    assert seats(app, game_id)[1].play_forced is False
    page = client.get(f"/g/{token}/prefs").get_data(as_text=True)
    assert "Play my forced moves for me" in page
    client.post(f"/g/{token}/forced", data={"forced": "on"})
    assert seats(app, game_id)[1].play_forced is True


def test_a_forced_move_of_an_old_link_is_refused_as_stale(app):
    """The move path's version check holds for moves played for you: a link from before them is old."""
    game_id = _chain_game(app)
    with session_scope(db_of(app)) as s:
        try:
            service.apply_game_move(s, cfg_of(app), game_id, 0, {"action": "draw"}, expected_version=2, now=NOW)
        except errors.StaleMove:
            pass
        else:
            raise AssertionError("a move issued at version 2 was stored at version 4")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1))
def test_after_every_stored_move_the_seat_to_move_has_a_real_choice(app, seed):
    """Whatever the deal: the chain never leaves a forced turn waiting, and the game still ends."""
    rng = random.Random(seed)
    game_id = start_game(app, [ANN, BOB, "Cid <cid@example.com>"], seed=seed, now=NOW)
    for _ in range(400):
        game = game_row(app, game_id)
        state = store.load_state(game)
        if state.finished:
            break
        legal = engine.legal_moves(state)
        assert len(legal) >= 2
        with session_scope(db_of(app)) as s:
            service.apply_game_move(s, cfg_of(app), game_id, state.to_move, rng.choice(legal),
                                    expected_version=game.version, now=NOW)
    assert game_row(app, game_id).status == "finished"
    with session_scope(db_of(app)) as s:  # the log replays to the stored state
        record = records.export_record(s, game_id)
    assert engine.state_to_json(records.replay_record(record)) == engine.state_to_json(
        store.load_state(game_row(app, game_id)))


def test_a_bot_seat_is_never_played_as_forced(app):
    deck = deck_with_hands(PIRATES_0, PIRATES_1, draw=["G1", "B1", "M3", "K1"])
    game_id = start_game(app, [ANN, "bot:greedy"], deck=deck, now=NOW)
    assert [(m.seat, m.source) for m in _moves(app, game_id)] == [(0, "forced")]
    with session_scope(db_of(app)) as s:
        bot = s.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 1)).one()
        assert bot.play_forced  # the default, yet the bot plays its own turn (after its delay)


def test_each_seat_is_told_only_of_its_own_forced_moves(app):
    game_id = _chain_game(app)
    with session_scope(db_of(app)) as s:
        game = service.lock_game_with_seats(s, game_id)[0]
        bob = service.seats_of(s, game_id)[1]
        context = notify.seat_context(s, cfg_of(app), game, bob, store.load_state(game), with_moves=False)
    assert [p["number"] for p in context["played_for_you"]] == [2, 4]


def test_the_resume_email_names_who_moves_after_the_forced_turn(app):
    game_id = _bobs_forced_turn_waiting(app)
    with session_scope(db_of(app)) as s:
        lifecycle.pause_game(s, cfg_of(app), game_id, now=NOW, actor="admin")
    with session_scope(db_of(app)) as s:
        preferences.set_play_forced(s, cfg_of(app), lock_seated(s, game_id, 1), True, now=NOW)
    with session_scope(db_of(app)) as s:
        lifecycle.resume_game(s, cfg_of(app), game_id, now=NOW, actor="admin")
    resumed = {m.to_addr: m.text_body for m in outbox(app, game_id, kind="resumed")}
    assert "It is your turn" in resumed["ann@example.com"]
    assert "Ann is to move" in resumed["bob@example.com"]
