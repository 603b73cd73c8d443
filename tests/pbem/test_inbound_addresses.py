"""Reply addresses: every turn, reminder and answer email carries a signed Reply-To for that
seat and that turn; the token survives a mail system's lower-casing, not a changed byte, nonce
or version; a rotated key's tokens still work; the header is one address or no email."""
from __future__ import annotations

import json

import pytest
from game_helpers import cfg_of, db_of, deliver, make_cfg, start_game
from inbound_helpers import latest

from pbem import links
from pbem.db import session_scope
from pbem.games import service
from pbem.letters.deferred import reminder_email
from pbem.mail.mime import MessageError, build_message
from pbem.models import Game, OutboxMessage, utcnow

CFG = make_cfg("sqlite://")
ANN, BOB = "ann@example.com", "bob@example.com"


def _token(cfg=CFG, version=3):
    return links.parse_reply_address(cfg, links.reply_address(cfg, 7, 1, "nonce-1", version))


def test_a_reply_address_names_game_seat_and_version_and_is_signed_for_the_seats_nonce():
    address = links.reply_address(CFG, 7, 1, "nonce-1", 3)
    assert address.startswith("play+7-1-3-") and address.endswith("@korsar.test")
    assert len(address.split("@")[0]) <= 64  # RFC 5321's limit of a local part
    token = links.parse_reply_address(CFG, address.upper())  # some systems upper- or lower-case it
    assert token is not None and (token.game_id, token.position, token.version) == (7, 1, 3)
    assert links.reply_signed(CFG, token, "nonce-1")
    assert not links.reply_signed(CFG, token, "nonce-2")  # a new address revokes it


@pytest.mark.parametrize("change", ["version", "game", "byte"])
def test_a_changed_token_is_not_ours(change):
    address = links.reply_address(CFG, 7, 1, "nonce-1", 3)
    local, domain = address.split("@")
    if change == "version":
        local = local.replace("7-1-3-", "7-1-4-")
    elif change == "game":
        local = local.replace("7-1-3-", "8-1-3-")
    else:
        local = local[:-1] + ("a" if local[-1] != "a" else "b")
    token = links.parse_reply_address(CFG, f"{local}@{domain}")
    assert token is not None and not links.reply_signed(CFG, token, "nonce-1")


def test_an_address_of_another_domain_or_without_the_prefix_is_no_reply_address():
    address = links.reply_address(CFG, 7, 1, "nonce-1", 3)
    assert links.parse_reply_address(CFG, address.replace("@korsar.test", "@evil.example")) is None
    assert links.parse_reply_address(CFG, address.replace("play+", "")) is None


def test_a_token_signed_with_a_rotated_key_still_works():
    old = make_cfg("sqlite://", SECRET_KEY="old-key")
    token = _token(old)
    new = make_cfg("sqlite://", SECRET_KEY="new-key", SECRET_KEY_FALLBACKS=["old-key"])
    assert links.reply_signed(new, token, "nonce-1")
    assert not links.reply_signed(make_cfg("sqlite://", SECRET_KEY="new-key"), token, "nonce-1")


def test_the_turn_email_carries_the_reply_address_of_its_seat_and_turn(app, smtp_server):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    with session_scope(db_of(app)) as session:
        game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
        expected = links.reply_address(cfg_of(app), game_id, 0, seats[0].link_nonce, game.version)
    assert str(latest(smtp_server, ANN, "your turn")["Reply-To"]) == expected


def test_the_reminder_carries_the_reply_address_of_its_seat_and_turn(app, smtp_server):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    with session_scope(db_of(app)) as session:
        game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
        email = reminder_email(session, cfg_of(app), game, seats[0], utcnow())
        assert email.headers["Reply-To"] == links.reply_address(cfg_of(app), game_id, 0, seats[0].link_nonce,
                                                                game.version)


def test_a_reply_to_header_must_be_exactly_one_address():
    row = OutboxMessage(id=1, kind="turn", to_addr=ANN, subject="s", text_body="t", html_body="",
                        message_id="<m@korsar.test>", created_at=utcnow(),
                        headers_json=json.dumps({"Reply-To": "a@korsar.test, b@korsar.test"}))
    with pytest.raises(MessageError):
        build_message(row, CFG)
    row.headers_json = json.dumps({"Reply-To": "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test"})
    assert build_message(row, CFG)[0]["Reply-To"] == "play+1-0-0-aaaaaaaaaaaaaaaa@korsar.test"
