"""The game service: creating games (and refusing bad setups), applying moves with the version
check, bots played by the worker, and the stored log replaying to the stored state."""
from __future__ import annotations

import re
import dataclasses
import json
import random
from datetime import datetime, timedelta

import engine
import engine.bots
import pytest
from game_helpers import cfg_of, db_of, deck_with_hands, game_row, move_count, outbox, seats, start_game
from sqlmodel import func, select

from pbem import links
from pbem.db import session_scope
from pbem.games import bots, errors, lifecycle, records, service, setup
from pbem import store
from pbem.letters import notify
from pbem.models import Game, GameStatus, MoveRecord, OutboxMessage, Seat

NOW = datetime(2026, 1, 5, 12, 0, 0)
ANN, BOB, CID = "Ann <ann@example.com>", "Bob <bob@example.com>", "Cid <cid@example.com>"


def _counts(app) -> tuple[int, int, int]:
    with session_scope(db_of(app)) as s:
        return tuple(s.exec(select(func.count()).select_from(t)).one()  # type: ignore[return-value]
                     for t in (Game, Seat, OutboxMessage))


def _apply(app, game_id, position, move, **kwargs):
    with session_scope(db_of(app)) as s:
        return service.apply_game_move(s, cfg_of(app), game_id, position, move, **kwargs)


def _legal(app, game_id) -> list[dict]:
    return engine.legal_moves(store.load_state(game_row(app, game_id)))


# ---------------------------------------------------------------- parsing players
@pytest.mark.parametrize("text,name,email", [
    ("Ann <ann@example.com>", "Ann", "ann@example.com"),
    ("  Ann Bonny   <ann.bonny@mail.example.org> ", "Ann Bonny", "ann.bonny@mail.example.org"),
    ("ann@example.com", "ann", "ann@example.com"),
    ("Zoë <zoe@example.com>", "Zoë", "zoe@example.com"),
])
def test_parse_player_reads_a_name_and_an_address(text, name, email):
    spec = setup.parse_player(text)
    assert (spec.name, spec.email, spec.kind) == (name, email, "human")


@pytest.mark.parametrize("text", ["bot:greedy", "bot:random", "BOT:Greedy"])
def test_parse_player_reads_a_bot(text):
    spec = setup.parse_player(text)
    assert spec.kind == "bot" and spec.bot == text[4:].lower() and spec.email is None


@pytest.mark.parametrize("text,reason", [
    ("Ann <ann>", "not an email address"),
    ("Ann <ann@@example.com>", "not an email address"),
    ("Ann <ann@example>", "not an email address"),
    ("Ann <ann example.com>", "not an email address"),
    ('Ann <"a b"@example.com>', "without quotation marks"),
    ('Ann <"bob@evil.test"@example.com>', "without quotation marks"),
    ('Ann <"x\\"y"@example.com>', "without quotation marks"),
    ("Ann ann@example.com", "not a player"),
    ("<ann@example.com>", "needs a name"),
    ("A" * 41 + " <a@example.com>", "at most 40 characters"),
    ("Ann\rBcc: x@evil.test <ann@example.com>", "control characters"),
    ("Ann\x00 <ann@example.com>", "control characters"),
    ("bot:clever", "Unknown bot"),
    ("", "not a player"),
])
def test_parse_player_refuses_with_a_reason(text, reason):
    with pytest.raises(errors.GameError, match=reason):
        setup.parse_player(text)


# ---------------------------------------------------------------- creating games
def test_create_game_deals_stores_and_queues_welcome_and_first_turn(app):
    game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=7, now=NOW)
    game = game_row(app, game_id)
    assert game.status == GameStatus.RUNNING and game.version == 0 and game.to_move == 0
    assert game.seed == 7 and len(json.loads(game.deck_json)) == 78
    assert game.turn_started_at == NOW and game.deadline_at == NOW + timedelta(hours=72)
    assert game.bot_due_at is None
    assert [(s.name, s.kind) for s in seats(app, game_id)] == [
        ("Ann", "human"), ("Bob", "human"), ("Greedy bot", "bot")]
    assert len({s.link_nonce for s in seats(app, game_id)}) == 3
    assert [(m.kind, m.to_addr) for m in outbox(app)] == [
        ("welcome", "ann@example.com"), ("welcome", "bob@example.com"), ("turn", "ann@example.com")]
    first = outbox(app)[0]
    assert first.message_id == game.thread_id and first.in_reply_to is None


def test_a_live_deal_is_not_a_function_of_a_31_bit_seed(app):
    """No seed to brute-force from seat 0's hand: seed None, a deck of its own for each game."""
    a, b = start_game(app, [ANN, BOB]), start_game(app, [ANN, BOB])
    rows = game_row(app, a), game_row(app, b)
    assert [row.seed for row in rows] == [None, None]
    decks = [json.loads(row.deck_json) for row in rows]
    assert decks[0] != decks[1] and all(engine.validate_deck(deck) == deck for deck in decks)
    assert store.load_state(rows[0]).deck == decks[0]  # the stored deck is the one dealt


def test_create_game_without_seed_or_deck_deals_from_system_random(app, monkeypatch):
    made = []

    class SpySystemRandom(random.Random):  # stands in for the OS source, with a shuffle we can see
        def __init__(self) -> None:
            super().__init__(0)
            made.append(self)

        def shuffle(self, x) -> None:  # type: ignore[override]
            x.reverse()

    monkeypatch.setattr(random, "SystemRandom", SpySystemRandom)
    game = game_row(app, start_game(app, [ANN, BOB]))
    assert len(made) == 1 and game.seed is None
    assert json.loads(game.deck_json) == list(reversed(engine.FULL_DECK))
    with session_scope(db_of(app)) as s:  # dealt from that deck: its log replays to the stored state
        replayed = records.replay_record(records.export_record(s, game.id, live=True))  # type: ignore[arg-type]
    assert engine.state_to_json(replayed) == engine.state_to_json(store.load_state(game))


def test_create_game_with_a_deck_deals_it_in_order(app):
    deck = deck_with_hands(["M8", "AD", "BC", "GC", "RC", "KC"], ["B1"] * 2 + ["B2"] * 4)
    game_id = start_game(app, [ANN, BOB], deck=deck)
    state = store.load_state(game_row(app, game_id))
    assert engine.player_view(state, 0)["hand"] == sorted(["M8", "AD", "BC", "GC", "RC", "KC"])
    assert game_row(app, game_id).seed is None


@pytest.mark.parametrize("players,kwargs,reason", [
    ([ANN], {}, "player"),
    ([ANN, BOB, CID, "D <d@example.com>", "E <e@example.com>", "F <f@example.com>"], {}, "player"),
    ([ANN, BOB, CID], {"teams": True}, "(?i)team"),
    ([ANN, "Bob <bob@nowhere>"], {}, "not an email address"),
    ([ANN, "Ann <ann2@example.com>"], {}, "Two players are called 'Ann'"),
    ([ANN, BOB], {"deck": ["M2"] * 78}, "deck"),
    ([ANN, BOB], {"deck": list(engine.FULL_DECK)[:77]}, "deck"),
    ([ANN, BOB], {"deck": list(engine.FULL_DECK)[:77] + ["X9"]}, "X9"),
    ([ANN, BOB], {"seed": 1, "deck": list(engine.FULL_DECK)}, "not both"),
    ([ANN, BOB], {"options": {"fast": "on"}}, "Unknown option 'fast'"),
    ([ANN, BOB], {"options": {"end_settlement": "maybe"}}, "end_settlement"),
    ([ANN, BOB], {"options": {"waiting_time": "perhaps"}}, "waiting_time"),
    ([ANN, BOB], {"deadline_hours": float("inf")}, "deadline"),
    ([ANN, BOB, CID, "D <d@example.com>"], {"options": {"waiting_time": "on"}}, "."),
    ([ANN, BOB], {"on_timeout": "explode"}, "on_timeout"),
    ([ANN, BOB], {"reminders": "50,lots"}, "Reminders"),
    ([ANN, BOB], {"deadline_hours": 0}, "deadline"),
    ([ANN, BOB], {"name": "x" * 81}, "A game name may have at most 80"),
])
def test_create_game_refuses_a_bad_setup_and_creates_nothing(app, players, kwargs, reason):
    with pytest.raises(errors.GameError, match=reason) as info:
        start_game(app, players, **kwargs)
    assert "\n" not in info.value.message and info.value.status == 400
    assert _counts(app) == (0, 0, 0)


# ---------------------------------------------------------------- moves
def test_a_move_is_stored_with_its_events_and_the_next_turn_starts(app):
    game_id = start_game(app, [ANN, BOB], seed=7, now=NOW)
    later = NOW + timedelta(hours=5)
    outcome = _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=later)
    assert (outcome.number, outcome.seat, outcome.to_move, outcome.finished) == (1, 0, 1, False)
    game = game_row(app, game_id)
    assert game.version == 1 and game.to_move == 1 and game.turn_started_at == later
    assert game.deadline_at == later + timedelta(hours=72)
    with session_scope(db_of(app)) as s:
        record = s.exec(select(MoveRecord)).one()
    assert json.loads(record.move_json) == {"action": "draw"}
    assert json.loads(record.events_json) == [{"kind": "draw", "seat": 0}]
    assert [(m.kind, m.to_addr) for m in outbox(app)][-1] == ("turn", "bob@example.com")


def test_a_move_from_an_older_version_is_stale_and_changes_nothing(app):
    game_id = start_game(app, [ANN, BOB], seed=7)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0)
    before = (game_row(app, game_id).state_json, len(outbox(app)))
    with pytest.raises(errors.StaleMove, match="older email") as info:
        _apply(app, game_id, 1, {"action": "draw"}, expected_version=0)
    assert info.value.status == 409
    assert (game_row(app, game_id).state_json, len(outbox(app))) == before


def test_the_same_move_twice_is_applied_once_and_then_called_already_played(app):
    game_id = start_game(app, [ANN, BOB], seed=7)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0)
    with pytest.raises(errors.StaleMove, match="already played"):
        _apply(app, game_id, 0, {"action": "draw"}, expected_version=0)
    assert move_count(app, game_id) == 1


@pytest.mark.parametrize("position,move,reason", [
    (1, {"action": "draw"}, "turn"),
    (0, {"action": "fly"}, "."),
    (0, {"action": "play", "card": "Z9"}, "."),
    (0, {"action": "play", "card": "B1", "target": 9}, "."),
])
def test_an_illegal_move_gets_the_engines_reason_and_changes_nothing(app, position, move, reason):
    game_id = start_game(app, [ANN, BOB], seed=7)
    with pytest.raises(errors.IllegalMoveError, match=reason) as info:
        _apply(app, game_id, position, move, expected_version=0)
    assert info.value.status == 422
    assert game_row(app, game_id).version == 0 and move_count(app, game_id) == 0


@pytest.mark.parametrize("status,code", [(GameStatus.PAUSED, 409), (GameStatus.FINISHED, 410),
                                         (GameStatus.ABORTED, 410)])
def test_no_move_is_applied_to_a_game_that_is_not_running(app, status, code):
    game_id = start_game(app, [ANN, BOB], seed=7)
    with session_scope(db_of(app)) as s:
        s.get(Game, game_id).status = status
    with pytest.raises(errors.GameNotRunning) as info:
        _apply(app, game_id, 0, {"action": "draw"}, expected_version=0)
    assert info.value.status == code and move_count(app, game_id) == 0


def test_an_unknown_game_is_not_found(app):
    with pytest.raises(errors.NotFound):
        _apply(app, 999, 0, {"action": "draw"})


# ---------------------------------------------------------------- bots
def test_a_bot_moves_when_its_delay_is_over_and_only_once(app):
    cfg_of(app).BOT_DELAY_SECONDS = 30
    game_id = start_game(app, [ANN, "bot:greedy"], seed=7, now=NOW)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    assert game_row(app, game_id).bot_due_at == NOW + timedelta(seconds=30)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(seconds=29)) == 0
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(seconds=30)) == 1
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW + timedelta(seconds=31)) == 0
    game = game_row(app, game_id)
    assert game.version == 2 and game.to_move == 0 and game.bot_due_at is None
    with session_scope(db_of(app)) as s:
        assert s.exec(select(MoveRecord.source).where(MoveRecord.number == 2)).one() == "bot"
    assert [m.kind for m in outbox(app, to_addr="ann@example.com")][-1] == "turn"
    assert all(m.to_addr == "ann@example.com" for m in outbox(app))  # the bot gets no email


def test_a_seat_handed_to_a_bot_is_played_by_the_worker_and_gets_no_turn_email(app):
    game_id = start_game(app, [ANN, BOB], seed=7, now=NOW)
    with session_scope(db_of(app)) as s:
        bob = s.exec(select(Seat).where(Seat.position == 1)).one()
        bob.handed_to_bot, bob.bot = True, "random"
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW) == 1
    assert [m.to_addr for m in outbox(app, kind="turn")] == ["ann@example.com"] * 2


def test_a_game_of_bots_is_played_to_the_end_and_its_log_replays_to_the_stored_state(app):
    game_id = start_game(app, ["bot:greedy", "bot:random", "bot:greedy"], seed=4, now=NOW)
    played = bots.play_due_bots(db_of(app), cfg_of(app), NOW)
    game = game_row(app, game_id)
    assert game.status == GameStatus.FINISHED and played == game.version == move_count(app, game_id)
    assert outbox(app) == []  # nobody to write to
    with session_scope(db_of(app)) as s:
        record = records.export_record(s, game_id)
    assert record["players"] == ["Greedy bot", "Random bot", "Greedy bot 2"]
    assert engine.state_to_json(records.replay_record(record)) == json.loads(game.state_json)


def test_the_record_of_a_game_still_being_played_is_refused_and_of_a_game_over_exported(app):
    running, paused, aborted = (start_game(app, [ANN, BOB], now=NOW) for _ in range(3))
    with session_scope(db_of(app)) as s:
        lifecycle.pause_game(s, cfg_of(app), paused, now=NOW, actor="admin")
        lifecycle.abort_game(s, cfg_of(app), aborted, now=NOW, actor="admin")
    with session_scope(db_of(app)) as s:
        for game_id in (running, paused):
            with pytest.raises(errors.GameNotOver, match="still being played") as info:
                records.export_record(s, game_id)
            assert info.value.status == 409 and "\n" not in info.value.message
        # The server's own consistency checks may read it (nobody is shown that record).
        assert records.export_record(s, running, live=True)["deck"] == json.loads(s.get(Game, running).deck_json)
        record = records.export_record(s, aborted)
        assert record["deck"] == json.loads(s.get(Game, aborted).deck_json)
        assert len(record["moves"]) == s.get(Game, aborted).version  # forced first turns, if any


def test_the_bot_rng_is_keyed_with_the_secret_not_the_public_game_id_and_version(app):
    game_id = start_game(app, [ANN, "bot:random"], seed=9, now=NOW)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    game, bot, cfg = game_row(app, game_id), seats(app, game_id)[1], cfg_of(app)

    def draws(rng: random.Random) -> list[float]:
        return [rng.random() for _ in range(8)]

    keyed = draws(bots.bot_rng(cfg, game, bot))
    assert keyed == draws(bots.bot_rng(cfg, game, bot))  # planned and applied moves agree
    # What a player could compute from the game id, the version and the seat:
    assert keyed != draws(random.Random(f"{game.id}:{game.version}:{bot.position}"))
    assert keyed != draws(bots.bot_rng(dataclasses.replace(cfg, SECRET_KEY="another secret"), game, bot))
    game.version += 1
    assert keyed != draws(bots.bot_rng(cfg, game, bot))
    game.version -= 1
    state = store.load_state(game)
    expected = engine.bots.get_bot("random").choose(engine.player_view(state, 1), bots.bot_rng(cfg, game, bot))
    assert bots.bot_move(game, bot, state, cfg=cfg) == expected


def test_two_workers_playing_the_same_due_bot_apply_one_move(app):
    game_id = start_game(app, [ANN, "bot:random"], seed=9, now=NOW)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    with session_scope(db_of(app)) as s:
        stale_game = s.get(Game, game_id)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW) == 1
    # A second worker that read the game before the first one moved finds the version gone.
    bot = seats(app, game_id)[1]
    move = bots.bot_move(stale_game, bot, store.load_state(stale_game), cfg=cfg_of(app))
    with pytest.raises(errors.GameError):
        _apply(app, game_id, 1, move, expected_version=stale_game.version, source="bot")
    assert move_count(app, game_id) == 2


def test_play_due_bots_also_works_inside_the_callers_transaction(app):
    game_id = start_game(app, [ANN, "bot:greedy"], seed=7, now=NOW)
    _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    with session_scope(db_of(app)) as s:
        assert bots.play_due_bots(s, cfg_of(app), NOW) == 1
    assert game_row(app, game_id).version == 2 and move_count(app, game_id) == 2


@pytest.mark.parametrize("players,teams,seed", [
    ([ANN, BOB], False, 11),
    ([ANN, BOB, CID, "Dan <dan@example.com>"], True, 14),
])
def test_random_games_to_the_end_render_every_email_and_page_and_replay(app, players, teams, seed):
    """Every position of whole random games goes through the turn email (and, every few moves,
    the game pages); the stored log then replays to the stored state."""
    rng = random.Random(seed)
    game_id = start_game(app, players, teams=teams, seed=seed,
                         options={"waiting_time": "on"} if len(players) <= 3 else None)
    client = app.test_client()
    for step in range(400):
        with session_scope(db_of(app)) as s:
            game = s.get(Game, game_id)
            if game.status != GameStatus.RUNNING:
                break
            move = rng.choice(engine.legal_moves(store.load_state(game)))
            service.apply_game_move(s, cfg_of(app), game_id, game.to_move, move,
                                    expected_version=game.version)
        if step % 25 == 0:
            for seat in seats(app, game_id):
                token = links.sign_seat(cfg_of(app), game_id, seat.position, seat.link_nonce)
                assert client.get(f"/g/{token}").status_code == 200
    game = game_row(app, game_id)
    assert game.status == GameStatus.FINISHED
    kinds = [m.kind for m in outbox(app)]
    assert kinds.count("game_over") == len(players)
    # Every turn (the first, then one after each move but the last) has its turn email, but
    # the forced ones, played for their seat at once.
    with session_scope(db_of(app)) as s:
        forced = sum(m.source == "forced" for m in records.moves_of(s, game_id))
    assert kinds.count("turn") + forced == game.version
    state = store.load_state(game)
    names = [s.name for s in seats(app, game_id)]
    for row in outbox(app, kind="game_over"):
        assert row.text_body == notify.DEFERRED_GAME_OVER_TEXT  # written when the worker sends it
        with session_scope(db_of(app)) as s:
            text = notify.game_over_email(s, cfg_of(app), s.get(Game, game_id), s.get(Seat, row.seat_id)).text_body
        me = names.index(next(n for n in names if f"<{n.lower()}@" in f"<{row.to_addr}"))
        # the one score block: the final breakdown, one score per side (a team's in team play)
        sides = engine.team_scores(state) if teams else engine.scores(state)
        assert [int(n) for n in re.findall(r"^ +score: (-?\d+)$", text, re.M)] == sorted(sides, reverse=True)
        assert "You" in text and all(n in text for n in names if n != names[me])
        winners = engine.winners(state)
        assert ((f"{'Winners' if teams else 'Winner'}: ") if len(winners) == 1 else "Shared win: ") in text
    with session_scope(db_of(app)) as s:
        record = records.export_record(s, game_id)
    assert record["teams"] is teams and len(record["moves"]) == game.version
    assert engine.state_to_json(records.replay_record(record)) == json.loads(game.state_json)


def test_a_bot_failing_in_one_game_does_not_stop_the_bots_of_other_games(app, monkeypatch):
    broken = start_game(app, [ANN, "bot:greedy"], seed=1, now=NOW)
    healthy = start_game(app, [ANN, "bot:random"], seed=2, now=NOW)
    for game_id in (broken, healthy):
        _apply(app, game_id, 0, {"action": "draw"}, expected_version=0, now=NOW)
    real = bots.bot_move

    def bot_move(game, seat, state, *, cfg):
        if game.id == broken:
            raise RuntimeError("bug")
        return real(game, seat, state, cfg=cfg)

    monkeypatch.setattr(bots, "bot_move", bot_move)
    assert bots.play_due_bots(db_of(app), cfg_of(app), NOW) == 1
    assert game_row(app, healthy).version == 2 and game_row(app, broken).version == 1
    assert game_row(app, broken).bot_due_at == NOW + bots.BOT_RETRY_DELAY


@pytest.mark.parametrize("address, reason", [
    ("ann@example.com", None),
    ("ANN@example.com", None),
    ("ann.new@example.com", "the player's email address changed"),
])
def test_a_game_over_email_goes_to_the_address_it_was_queued_for_only(address, reason):
    seat = Seat(game_id=1, position=0, name="Ann", email=address, link_nonce="n")
    row = OutboxMessage(kind="game_over", to_addr="ann@example.com", subject="s",
                        text_body=notify.DEFERRED_GAME_OVER_TEXT, html_body="", message_id="<m@x>")
    assert notify.address_stale_reason(seat, row) == reason
    assert notify.address_stale_reason(None, row) == "the seat no longer exists"
