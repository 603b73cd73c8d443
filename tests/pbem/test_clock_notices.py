"""Attack notices ("your ship was attacked": at most one email per player per hour, batched),
the daily digest for players who prefer it, and table news."""
from __future__ import annotations

import json
from datetime import datetime, timedelta

import engine as korsar
import pytest
from sqlmodel import select

from clockkit import T0, game_row, mails, start_game, sweep
from pbem.games.notices import next_digest_time, record_attacks
from pbem.db import session_scope
from pbem.games.service import apply_game_move, lock_game_with_seats, seats_of
from pbem.games.bots import bot_move
from pbem.store import load_state
from pbem.models import Seat


def attack(engine, cfg, game_id, *, attacker, owner, at, ship=1):
    event = {"kind": "pirate", "seat": attacker, "card": "B3", "ship": ship, "owner": owner, "value": 5,
             "attack": True}  # the engine's flag: another side's ship
    with session_scope(engine) as session:
        game = lock_game_with_seats(session, game_id)[0]
        return record_attacks(session, cfg, game, seats_of(session, game_id), [event], at)


def set_seat(engine, game_id, position, **values):
    with session_scope(engine) as session:
        seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == position)).one()
        for key, value in values.items():
            setattr(seat, key, value)
        session.add(seat)


def test_an_attack_is_emailed_to_the_ships_owner_at_once(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72)
    attack(engine, cfg, game_id, attacker=1, owner=0, at=T0)
    sweep(engine, cfg, T0)
    (email,) = mails(engine, "attacked", "ann@example.com")
    assert "Bob played Blue 3 on your ship 1 (5 gold)." in email.text_body
    assert mails(engine, "attacked", "bob@example.com") == []
    assert "List-Unsubscribe" in json.loads(email.headers_json)


def test_at_most_one_attack_email_per_hour_the_rest_batched(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72)
    attack(engine, cfg, game_id, attacker=1, owner=0, at=T0)
    sweep(engine, cfg, T0)
    for minutes, ship in [(10, 2), (40, 3), (59, 4)]:
        attack(engine, cfg, game_id, attacker=1, owner=0, at=T0 + timedelta(minutes=minutes), ship=ship)
        sweep(engine, cfg, T0 + timedelta(minutes=minutes))
    assert len(mails(engine, "attacked", "ann@example.com")) == 1
    sweep(engine, cfg, T0 + timedelta(hours=1))
    first, batch = mails(engine, "attacked", "ann@example.com")
    assert [line for line in batch.text_body.splitlines() if "your ship" in line] == [
        "  - Bob played Blue 3 on your ship 2 (5 gold).",
        "  - Bob played Blue 3 on your ship 3 (5 gold).",
        "  - Bob played Blue 3 on your ship 4 (5 gold).",
    ]


def test_a_digest_player_gets_one_email_a_day_at_08_00_their_time(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72, tz="Europe/Paris")
    set_seat(engine, game_id, 0, digest=True)
    for hour in (0, 3, 7):
        attack(engine, cfg, game_id, attacker=1, owner=0, at=T0 + timedelta(hours=hour), ship=hour + 1)
        sweep(engine, cfg, T0 + timedelta(hours=hour))
    assert mails(engine, "attacked", "ann@example.com") == []
    morning = datetime(2026, 1, 13, 7, 0)  # 08:00 in Paris (UTC+1 in January)
    sweep(engine, cfg, morning - timedelta(seconds=1))
    assert mails(engine, "digest", "ann@example.com") == []
    sweep(engine, cfg, morning)
    (digest,) = mails(engine, "digest", "ann@example.com")
    assert digest.text_body.count("Bob played Blue 3 on your ship") == 3


def test_an_unsubscribed_player_gets_no_event_emails(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72)
    set_seat(engine, game_id, 0, unsubscribed=True)
    assert attack(engine, cfg, game_id, attacker=1, owner=0, at=T0) == 0
    sweep(engine, cfg, T0 + timedelta(hours=2))
    assert mails(engine, "attacked") == []


def test_a_real_pirate_move_notifies_the_owner_without_any_hand(engine, cfg):
    game_id = start_game(engine, cfg, deadline_hours=72, seed=3)
    now = T0
    for _ in range(80):  # greedy play until someone attacks another player's ship
        now += timedelta(minutes=1)
        with session_scope(engine) as session:
            game = lock_game_with_seats(session, game_id)[0]
            if game.to_move is None:
                break
            seat = seats_of(session, game_id)[game.to_move]
            apply_game_move(session, cfg, game_id, seat.position, bot_move(game, seat, load_state(game), cfg=cfg),
                            expected_version=game.version, now=now)
        if mails_after := sweep(engine, cfg, now)["notice_emails"]:
            break
    else:
        pytest.skip("no attack in this deal")
    assert mails_after == 1
    (email,) = mails(engine, "attacked")
    owner = 0 if email.to_addr == "ann@example.com" else 1
    state = load_state(game_row(engine, game_id))
    other_hand = korsar.player_view(state, 1 - owner)["hand"]
    for code in other_hand:
        assert f'data-card="{code}"' not in email.html_body


def test_the_digest_time_is_the_next_08_00_local():
    seat = Seat(game_id=1, position=0, name="Ann", timezone="America/New_York")
    assert next_digest_time(seat, datetime(2026, 1, 12, 12, 0)) == datetime(2026, 1, 12, 13, 0)
    assert next_digest_time(seat, datetime(2026, 1, 12, 13, 0)) == datetime(2026, 1, 13, 13, 0)
