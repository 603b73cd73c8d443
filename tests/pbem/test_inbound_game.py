"""A whole game played only by replying to the emails, through the real SMTP receiver and the
real SMTP server the answers go to; in English and in French."""
from __future__ import annotations

import engine
import pytest
from game_helpers import deliver, start_game, text_part
from inbound_helpers import game_state, latest, move_words, receiver, reply_to, send  # noqa: F401

from pbem.models import GameStatus

ANN, BOB = "ann@example.com", "bob@example.com"


def _turn_mail(smtp_server, address: str, version: int):
    """The email that gave `address` its move at `version` (a turn email or an answer)."""
    for msg in reversed(smtp_server.to(address)):
        token = str(msg["Reply-To"] or "")
        if f"-{version}-" in token:
            return msg
    raise AssertionError(f"no email with a reply address for version {version} to {address}")


def test_a_whole_two_player_game_is_played_only_by_replies_in_english_and_in_french(app, smtp_server, receiver):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}> [fr]"], seed=13)  # a short game
    deliver(app)
    addresses, languages = [ANN, BOB], ["en", "fr"]  # Ann writes English, Bob (a French seat) French
    for turn in range(400):
        game, state = game_state(app, game_id)
        if state.finished:
            break
        mover, lang = addresses[state.to_move], languages[state.to_move]
        original = _turn_mail(smtp_server, mover, state.version)
        legal = engine.legal_moves(state)
        move = next((m for m in legal if m["action"] != "draw"), legal[0])  # cards first: a short game
        # Every third reply gives the move's number (its place in the list), the others words.
        body = str(legal.index(move) + 1) if turn % 3 == 2 else move_words(move, lang)
        send(receiver, reply_to(original, mover, body, lang=lang))
        deliver(app)
        answer = latest(smtp_server, mover, {"en": ": played: ", "fr": " : coup joué ("}[lang])
        assert game_state(app, game_id)[1].version > state.version, (body, text_part(answer)[:300])
        assert str(answer["To"]) == mover and answer["Reply-To"] != original["Reply-To"]
    else:
        pytest.fail("the game did not end")
    game, state = game_state(app, game_id)
    assert game.status == GameStatus.FINISHED
    for address, over in zip(addresses, ["game over", "partie terminée"]):  # with the last move's answer
        assert any(over in str(m["Subject"]) for m in smtp_server.to(address)[-2:])
