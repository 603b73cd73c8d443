"""Hostile and broken replies: each changes nothing, and its answer (when it gets one) says why.
Forged senders, machines and floods get no answer at all: no backscatter, no mail loops."""
from __future__ import annotations

import smtplib
from email.message import EmailMessage

import engine
import pytest
from game_helpers import db_of, deliver, start_game
from inbound_helpers import game_state, latest, new_mail, outbox_ids, receiver, reply_to, send  # noqa: F401

from pbem.db import session_scope
from pbem.games import lifecycle, service
from pbem.inbound import handler
from pbem.models import Game, GameStatus, utcnow

ANN, BOB, EVE = "ann@example.com", "bob@example.com", "eve@evil.example"


@pytest.fixture
def game(app, smtp_server):
    """A 2-player game whose first turn email (Ann's) has been delivered."""
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    return game_id


def _unchanged(app, game_id: int, version: int = 0) -> None:
    assert game_state(app, game_id)[1].version == version


def _turn(smtp_server):
    return latest(smtp_server, ANN, "your turn")


def test_a_forged_from_plays_nothing_and_gets_no_answer(app, smtp_server, receiver, game):
    before = outbox_ids(app)
    send(receiver, reply_to(_turn(smtp_server), EVE, "draw"))
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_the_reply_address_of_another_seat_plays_nothing_and_gets_no_answer(app, smtp_server, receiver, game):
    turn = _turn(smtp_server)
    bobs = str(turn["Reply-To"]).replace(f"+{game}-0-", f"+{game}-1-")
    before = outbox_ids(app)
    msg = reply_to(turn, ANN, "draw")
    msg.replace_header("To", bobs)
    send(receiver, msg)
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_the_reply_address_of_another_game_plays_nothing_and_gets_no_answer(app, smtp_server, receiver, game):
    other = start_game(app, ["Cid <cid@example.com>", "Dan <dan@example.com>"], seed=12)
    turn = _turn(smtp_server)
    before = outbox_ids(app)
    msg = reply_to(turn, ANN, "draw")
    msg.replace_header("To", str(turn["Reply-To"]).replace(f"+{game}-", f"+{other}-"))
    send(receiver, msg)
    _unchanged(app, game)
    _unchanged(app, other)
    assert new_mail(app, before) == []


def test_a_flipped_byte_in_the_token_plays_nothing_and_gets_no_answer(app, smtp_server, receiver, game):
    turn = _turn(smtp_server)
    address = str(turn["Reply-To"])
    local, domain = address.split("@")
    flipped = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    msg = reply_to(turn, ANN, "draw")
    msg.replace_header("To", flipped)
    before = outbox_ids(app)
    send(receiver, msg)
    _unchanged(app, game)
    assert new_mail(app, before) == []  # a forged From with a guessed code must not mail the seat its board


def test_a_token_reused_after_its_move_plays_nothing_and_hears_the_game_moved_on(app, smtp_server, receiver, game):
    turn = _turn(smtp_server)
    send(receiver, reply_to(turn, ANN, "draw"))
    version = game_state(app, game)[1].version
    before = outbox_ids(app)
    send(receiver, reply_to(turn, ANN, "draw"))  # a new message to the old address
    _unchanged(app, game, version)
    [answer] = new_mail(app, before)
    assert answer.kind == "reply_refused" and "moved on" in answer.text_body


def test_the_same_message_delivered_twice_acts_once(app, smtp_server, receiver, game):
    msg = reply_to(_turn(smtp_server), ANN, "draw")
    before = outbox_ids(app)
    send(receiver, msg)
    send(receiver, msg)
    assert game_state(app, game)[1].version == 1
    assert [r.kind for r in new_mail(app, before) if r.to_addr == ANN] == ["reply_played"]


def test_a_20_mb_message_is_refused_by_the_receiver_and_changes_nothing(app, smtp_server, receiver, game):
    msg = reply_to(_turn(smtp_server), ANN, "draw\n" + "x" * 76 + "\n")
    msg.add_attachment(b"\0" * (20 * 1024 * 1024), maintype="application", subtype="octet-stream",
                       filename="big.bin")
    before = outbox_ids(app)
    with pytest.raises(smtplib.SMTPException) as refused:
        send(receiver, msg)
    assert "552" in str(refused.value) or "too" in str(refused.value).lower()
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_a_message_with_no_text_part_plays_nothing_and_the_answer_says_no_move_was_found(
        app, smtp_server, receiver, game):
    turn = _turn(smtp_server)
    msg = EmailMessage()
    for name in ("From", "To", "Subject"):
        msg[name] = {"From": ANN, "To": str(turn["Reply-To"]), "Subject": "Re: turn"}[name]
    msg.add_attachment(b"\x89PNG...", maintype="image", subtype="png", filename="move.png")
    before = outbox_ids(app)
    send(receiver, msg)
    _unchanged(app, game)
    [answer] = new_mail(app, before)
    assert answer.kind == "reply_refused" and "no move" in answer.text_body


@pytest.mark.parametrize("headers, envelope_from", [
    ({"Auto-Submitted": "auto-replied"}, ANN),
    ({"Precedence": "bulk"}, ANN),
    ({"Return-Path": "<>"}, ANN),
    ({}, ""),  # a bounce: the empty envelope sender
], ids=["auto-submitted", "precedence", "return-path", "null-sender"])
def test_an_auto_reply_or_a_bounce_is_never_answered(app, smtp_server, receiver, game, headers, envelope_from):
    msg = reply_to(_turn(smtp_server), ANN, "draw", headers=headers)
    before = outbox_ids(app)
    send(receiver, msg, sender=envelope_from, rcpts=[str(msg["To"])])
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_a_flood_from_one_address_is_answered_once_then_not_read(app, smtp_server, receiver, game, monkeypatch):
    monkeypatch.setattr(handler, "MAX_REPLIES_PER_HOUR", 3)
    turn = _turn(smtp_server)
    before = outbox_ids(app)
    for _ in range(6):
        send(receiver, reply_to(turn, ANN, "hello?"))  # no move: each would be answered
    _unchanged(app, game)
    answers = [r for r in new_mail(app, before) if r.to_addr == ANN]
    assert len(answers) == 4  # three read, then one "too many", then silence
    assert "more than 3 replies" in answers[-1].text_body


def test_a_dmarc_failure_at_our_own_server_is_not_answered(app, smtp_server, receiver, game):
    msg = reply_to(_turn(smtp_server), ANN, "draw", headers={
        "Authentication-Results": "korsar.test; spf=fail smtp.mailfrom=example.com; "
                                  "dmarc=fail header.from=example.com"})
    before = outbox_ids(app)
    send(receiver, msg)
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_another_servers_authentication_results_are_not_believed(app, smtp_server, receiver, game):
    msg = reply_to(_turn(smtp_server), ANN, "draw", headers={
        "Authentication-Results": "mx.evil.example; dmarc=fail header.from=example.com"})
    send(receiver, msg)
    assert game_state(app, game)[1].version == 1


def test_a_reply_to_a_paused_game_is_answered_that_it_is_paused(app, smtp_server, receiver, game):
    with session_scope(db_of(app)) as session:
        lifecycle.pause_game(session, app.config["KORSAR"], game, now=utcnow(), actor="test")
    before = outbox_ids(app)
    send(receiver, reply_to(_turn(smtp_server), ANN, "draw"))
    _unchanged(app, game)
    answer = next(r for r in new_mail(app, before) if r.to_addr == ANN and r.kind == "reply_refused")
    assert "paused" in answer.text_body


def test_a_reply_from_a_seat_a_bot_plays_is_answered_with_the_domains_refusal(app, smtp_server, receiver, game):
    with session_scope(db_of(app)) as session:
        ann = service.seats_of(session, game)[0]
        ann.handed_to_bot, ann.bot = True, "random"
        session.add(ann)
    before = outbox_ids(app)
    send(receiver, reply_to(_turn(smtp_server), ANN, "draw"))
    _unchanged(app, game)
    answer = next(r for r in new_mail(app, before) if r.to_addr == ANN and r.kind == "reply_refused")
    assert "A bot plays your seat now; ask the game's admin to hand it back to you." in answer.text_body


def test_a_reply_to_a_finished_game_is_answered_that_it_is_over(app, smtp_server, receiver, game):
    with session_scope(db_of(app)) as session:
        row = session.get(Game, game)
        row.status = GameStatus.FINISHED
        session.add(row)
    before = outbox_ids(app)
    send(receiver, reply_to(_turn(smtp_server), ANN, "draw"))
    [answer] = new_mail(app, before)
    assert "over" in answer.text_body and "YOUR MOVES" not in answer.text_body


def test_an_ambiguous_move_is_refused_with_the_numbers_of_its_choices(app, smtp_server, receiver, game):
    cfg = app.config["KORSAR"]
    for _ in range(60):  # cards played (by the service) until a card in hand fits two ships
        _, state = game_state(app, game)
        legal = engine.legal_moves(state)
        cards = [m["card"] for m in legal if m["action"] == "play" and "target" in m]
        twice = next((c for c in cards if cards.count(c) > 1), None)
        if twice:
            break
        with session_scope(db_of(app)) as session:
            service.apply_game_move(session, cfg, game, state.to_move, legal[-1])
    else:
        pytest.fail("no card ever fitted two ships")
    deliver(app)
    mover = [ANN, BOB][state.to_move]
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, mover, "your turn"), mover, twice))
    _unchanged(app, game, state.version)
    [answer] = [r for r in new_mail(app, before) if r.to_addr == mover]
    numbers = [str(i) for i, m in enumerate(legal, 1) if m.get("card") == twice]
    assert "could be more than one move" in answer.text_body
    assert f"reply with {', '.join(numbers[:-1])} or {numbers[-1]}" in answer.text_body


@pytest.mark.parametrize("from_lines", [
    [f"{ANN} <{EVE}>"],  # the seat's address as the display name of another
    [f'"{ANN}" <{EVE}>'],
    [f"{ANN}, {EVE}"],  # two addresses
    [f"friends: {ANN}, {EVE};"],  # group syntax
    [f"<@relay.example:{ANN}>"],  # a source route
    [ANN, EVE],  # two From headers
    [ANN, ANN],
], ids=["address-in-name", "quoted-address-in-name", "two-addresses", "group", "route", "two-headers",
        "same-header-twice"])
def test_a_from_that_is_not_exactly_one_plain_address_is_dropped_unanswered(app, smtp_server, receiver, game,
                                                                            from_lines):
    msg = reply_to(_turn(smtp_server), ANN, "draw")
    raw = msg.as_bytes(policy=msg.policy.clone(linesep="\r\n")).replace(
        f"From: {ANN}\r\n".encode(), "".join(f"From: {line}\r\n" for line in from_lines).encode(), 1)
    assert raw.count(b"From: ") >= len(from_lines)
    before = outbox_ids(app)
    send(receiver, raw, sender=ANN, rcpts=[str(msg["To"])])
    _unchanged(app, game)
    assert new_mail(app, before) == []


@pytest.mark.parametrize("game_id", [2**31, 2**31 - 1, 10**12 - 1])
def test_a_reply_to_a_game_id_beyond_the_database_integers_is_dropped(app, smtp_server, game, game_id):
    msg = reply_to(_turn(smtp_server), ANN, "draw")
    msg.replace_header("To", str(msg["To"]).replace(f"+{game}-", f"+{game_id}-"))
    before = outbox_ids(app)
    handled = handler.handle_message(db_of(app), app.config["KORSAR"], msg.as_bytes())
    assert handled.outcome == "ignored" and not handled.answered
    _unchanged(app, game)
    assert new_mail(app, before) == []


def test_a_nul_in_the_message_id_is_read_and_acted_on_once(app, smtp_server, game):
    msg = reply_to(_turn(smtp_server), ANN, "draw")
    raw = msg.as_bytes().replace(b"Message-ID: <", b"Message-ID: <a\x00b", 1)
    assert handler.handle_message(db_of(app), app.config["KORSAR"], raw).outcome == "played"
    assert handler.handle_message(db_of(app), app.config["KORSAR"], raw).outcome == "ignored"
    assert game_state(app, game)[1].version == 1
