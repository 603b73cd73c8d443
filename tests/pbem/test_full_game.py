"""A whole game played only by reading the emails and following their links, from the
welcome email to the game-over email, through the real SMTP server and the web app."""
from __future__ import annotations

import json

import engine
import pytest
from game_helpers import (db_of, deliver, game_page_path, game_row, hand_sections,
                          move_links, start_game, text_part)

from pbem.db import session_scope
from pbem.games import records
from pbem import store
from pbem.models import GameStatus

PLAYERS = {"ann@example.com": "Ann", "bob@example.com": "Bob", "cid@example.com": "Cid"}


def _play_by_email(app, client, smtp_server, addresses: list[str], seed: int) -> int:
    game_id = start_game(app, [f"{PLAYERS[a]} <{a}>" for a in addresses], seed=seed)
    deliver(app)
    for addr in addresses:
        assert [m["Subject"] for m in smtp_server.to(addr)][0].endswith(f"welcome, {PLAYERS[addr]}")
    handled = 0
    for _ in range(400):
        if all(smtp_server.to(a)[-1]["Subject"].endswith("game over") for a in addresses):
            break
        turn_mails = [(a, m) for a in addresses for m in smtp_server.to(a)
                      if "your turn" in m["Subject"]]
        assert len(turn_mails) == handled + 1, "exactly one new turn email per move"
        addr, msg = turn_mails[-1] if len(turn_mails) == 1 else max(
            turn_mails, key=lambda am: smtp_server.messages.index(am[1]))
        links = move_links(text_part(msg))
        assert links, "a turn email has one link per legal move"
        # Prefer playing cards over drawing so the game ends in fewer moves.
        sentence, path = next((lk for lk in links if lk[0] != "Draw a card"), links[0])
        page = client.get(path)
        assert page.status_code == 200, page.text
        forms = hand_sections(page.text).move_forms
        assert len(forms) == 1
        done = client.post(forms[0]["action"])
        assert done.status_code == 303, done.text
        assert done.headers["Location"].startswith("/g/")
        handled += 1
        deliver(app)
    else:
        pytest.fail("the game did not end")
    return game_id


def test_a_whole_game_is_played_by_following_the_email_links(app, client, smtp_server):
    addresses = ["ann@example.com", "bob@example.com"]
    game_id = _play_by_email(app, client, smtp_server, addresses, seed=11)
    game = game_row(app, game_id)
    assert game.status == GameStatus.FINISHED and game.to_move is None
    state = store.load_state(game)
    for addr in addresses:
        final = smtp_server.to(addr)[-1]
        body = text_part(final)
        assert "FINAL SCORES" in body
        for points in engine.scores(state):  # the one score block: the final breakdown
            assert f"score: {points}" in body
        assert ("Winner: " in body) or ("Shared win: " in body)
        page = app.test_client().get(game_page_path(body))
        assert page.status_code == 200 and "The game is over." in page.text
        won = addresses.index(addr) in engine.winners(state)
        assert ("You won!" in page.text) == won  # the winner reads their win, not their own name
        assert 'action="/m/' not in page.text  # no moves left to offer
    with session_scope(db_of(app)) as session:
        replayed = records.replay_record(json.loads(json.dumps(records.export_record(session, game_id))))
    assert engine.state_to_json(replayed) == json.loads(game.state_json)


def test_every_email_of_a_game_is_in_one_thread_with_one_recipient(app, client, smtp_server):
    game_id = start_game(app, ["Ann <ann@example.com>", "Bob <bob@example.com>"], seed=3)
    deliver(app)
    path = move_links(text_part(smtp_server.to("ann@example.com")[-1]))[0][1]
    client.post(path)
    deliver(app)
    thread = game_row(app, game_id).thread_id
    first, *rest = smtp_server.messages
    assert first["Message-ID"] == thread and first["In-Reply-To"] is None
    assert rest and all(m["In-Reply-To"] == thread and thread in m["References"] for m in rest)
    assert len({m["Message-ID"] for m in smtp_server.messages}) == len(smtp_server.messages)
    for msg, (_, rcpts) in zip(smtp_server.messages, smtp_server.envelopes):
        assert len(rcpts) == 1 and msg["To"].addresses[0].addr_spec == rcpts[0]
        assert msg["Cc"] is None and msg["Bcc"] is None
