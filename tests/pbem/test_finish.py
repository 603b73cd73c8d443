"""Every end of a game goes through `pbem.games.finish.finish_game`, the one hook for what
follows a game (a rating, statistics, a rematch offer): the last move, an abort, and a game
whose players all left (its bots play it to the end)."""
from __future__ import annotations

from datetime import timedelta

import pytest
from game_helpers import cfg_of, db_of, game_row, seats, start_game
from test_seat_actions import play_to_the_end
from sqlmodel import Session

from pbem import store
from pbem.db import session_scope
from pbem.games import bots, finish, lifecycle, service
from pbem.games.seated import lock_seated
from pbem.models import GameStatus, utcnow

ANN, BOB = "Ann <ann@example.com>", "Bob <bob@example.com>"


@pytest.fixture
def ends(monkeypatch) -> list[tuple[int, str, str, bool]]:
    """(game id, how, status, final state given) of each call of the finisher's hooks."""
    seen: list[tuple[int, str, str, bool]] = []

    def hook(session: Session, cfg, game, seats, state, how) -> None:  # type: ignore[no-untyped-def]
        seen.append((game.id, how, game.status, state is not None and state.finished))

    monkeypatch.setattr(finish, "HOOKS", [hook])
    return seen


def test_the_last_move_ends_the_game_through_the_finisher(app, ends):
    game_id = start_game(app, [ANN, BOB], seed=3)
    play_to_the_end(app, game_id)
    assert ends == [(game_id, "played", GameStatus.FINISHED, True)]
    game = game_row(app, game_id)
    assert finish.is_over(game) and game.finished_at is not None


def test_a_bots_only_game_ends_through_the_finisher(app, ends):
    game_id = start_game(app, ["bot:random", "bot:random"], seed=5)
    play_to_the_end(app, game_id)
    assert ends == [(game_id, "played", GameStatus.FINISHED, True)]


def test_an_abort_ends_the_game_through_the_finisher(app, ends):
    game_id = start_game(app, [ANN, BOB], seed=3)
    with session_scope(db_of(app)) as s:
        lifecycle.abort_game(s, cfg_of(app), game_id, now=utcnow(), actor="admin@example.com")
    assert ends == [(game_id, "aborted", GameStatus.ABORTED, False)]
    game = game_row(app, game_id)
    assert finish.is_over(game) and game.finished_at is not None and game.deadline_at is None


def test_a_game_everyone_left_ends_through_the_finisher(app, ends):
    game_id = start_game(app, [ANN, BOB], seed=3)
    cfg = cfg_of(app)
    for seat in seats(app, game_id):
        with session_scope(db_of(app)) as s:
            lifecycle.leave_game(s, cfg, lock_seated(s, game_id, seat.position), now=utcnow())
    assert ends == []  # the bots play on
    play_to_the_end(app, game_id)
    assert ends == [(game_id, "played", GameStatus.FINISHED, True)]


def test_a_last_move_played_at_its_deadline_ends_the_game_through_the_finisher(engine, cfg, ends):
    import engine as korsar
    from clockkit import T0, game_row as clock_game_row, start_game as start_clock_game, sweep

    game_id = start_clock_game(engine, cfg, deadline_hours=1)
    while True:  # the players play up to the last move, which the clock plays (on_timeout "autoplay")
        game = clock_game_row(engine, game_id)
        mover = seats(engine, game_id)[game.to_move]
        state = store.load_state(game)
        move = bots.bot_move(game, mover, state, cfg=cfg)  # the move a timeout plays for the seat
        if korsar.apply_move(state, mover.position, move)[0].finished:
            break
        with session_scope(engine) as s:
            service.apply_game_move(s, cfg, game_id, mover.position, move, expected_version=game.version, now=T0)
    assert ends == []
    sweep(engine, cfg, game.deadline_at + timedelta(seconds=1))
    assert clock_game_row(engine, game_id).status == GameStatus.FINISHED
    assert ends == [(game_id, "played", GameStatus.FINISHED, True)]
