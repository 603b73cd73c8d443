"""Talk is only what the writer meant to say (issue 22, 3): courtesy, names and our own lines are
never passed on, nothing goes to a bot, a reply without a move is passed on only when it starts
with "say" (or answers a talk email), every answer says what went to whom, and talk ends with
the game. Talk emails say who reads them."""
from __future__ import annotations

import pytest
from game_helpers import cfg_of, db_of, deliver, start_game, text_part
from sqlmodel import select
from inbound_helpers import game_state, latest, new_mail, outbox_ids, receiver, reply_to, send  # noqa: F401

from pbem import links
from pbem.db import session_scope
from pbem.games import service, talk
from pbem.inbound import handler
from pbem.models import Game, GameStatus, TalkMessage, utcnow

ANN, BOB, CID, DAN = "ann@example.com", "bob@example.com", "cid@example.com", "dan@example.com"


def _team_game(app, players=None) -> int:
    """Ann and Cid against Bob and Dan (seats alternate teams), Ann's first turn email delivered."""
    game_id = start_game(app, players or [f"Ann <{ANN}>", f"Bob <{BOB}>", f"Cid <{CID}>", f"Dan <{DAN}>"],
                         teams=True, seed=5)
    deliver(app)
    return game_id


def _table_talk_game(app) -> int:
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>", f"Cid <{CID}>"], seed=11)
    with session_scope(db_of(app)) as session:
        game = session.get(Game, game_id)
        game.table_talk = True
        session.add(game)
    deliver(app)
    return game_id


def _partner(app, game_id: int, position: int = 0):
    with session_scope(db_of(app)) as session:
        seats = service.seats_of(session, game_id)
        return next(s for s in seats if s.team == seats[position].team and s.position != position)


def _talk(app, game_id: int) -> list[str]:
    with session_scope(db_of(app)) as session:
        return [m.text for m in session.exec(select(TalkMessage).where(TalkMessage.game_id == game_id)).all()]


def _answer(app, before: set[int]) -> str:
    [answer] = [r for r in new_mail(app, before) if r.to_addr == ANN and r.kind.startswith("reply")]
    return answer.text_body


@pytest.mark.parametrize("courtesy", ["Merci", "Merci !", "thanks!", "Thank you", "Cảm ơn nhé", "Ann", "-- \nAnn",
                                      "Cheers,\nAnn", "Sent from my iPhone"])
def test_courtesy_a_name_or_a_signature_under_a_move_is_never_passed_on(app, smtp_server, receiver, courtesy):
    game_id = _team_game(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, f"1\n{courtesy}"))
    assert game_state(app, game_id)[1].version >= 1
    assert _talk(app, game_id) == []
    assert "went to" not in _answer(app, before)


def test_a_reply_without_a_move_is_not_passed_on_and_says_how_to_talk(app, smtp_server, receiver):
    game_id = _team_game(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "what a strange hand I have"))
    assert game_state(app, game_id)[1].version == 0
    assert _talk(app, game_id) == []
    text = _answer(app, before)
    assert handler.NO_MOVE in text and 'start your reply with "say"' in text


def test_a_say_reply_is_passed_on_and_the_answer_quotes_the_words_and_names_the_partner(app, smtp_server, receiver):
    game_id = _team_game(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say keep your blue for ship 2"))
    assert _talk(app, game_id) == ["keep your blue for ship 2"]
    assert f"Your words went to {_partner(app, game_id).name}: “keep your blue for ship 2”" in _answer(app, before)


def test_the_other_words_of_a_reply_go_only_with_a_move_that_was_played(app, smtp_server, receiver):
    game_id = _team_game(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "1\nI keep my blue for ship 2\nMerci"))
    assert game_state(app, game_id)[1].version >= 1
    assert _talk(app, game_id) == ["I keep my blue for ship 2"]


def test_the_other_words_of_a_reply_whose_move_is_refused_are_not_passed_on_and_the_answer_says_so(
        app, smtp_server, receiver):
    game_id = _team_game(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "99\nI keep my blue for ship 2"))
    assert game_state(app, game_id)[1].version == 0 and _talk(app, game_id) == []
    assert handler.NOT_PLAYED_NOT_PASSED in _answer(app, before)


def test_nothing_is_passed_to_a_bot_partner_and_the_answer_says_the_partner_is_a_bot(app, smtp_server, receiver):
    game_id = _team_game(app, [f"Ann <{ANN}>", "bot:greedy", f"Cid <{CID}>", f"Dan <{DAN}>"])
    assert _partner(app, game_id).kind == "bot"
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say are you there?"))
    assert _talk(app, game_id) == []
    assert talk.PARTNER_IS_BOT in _answer(app, before)  # a partner, not "bots"


def test_words_in_an_individual_game_without_table_talk_are_not_passed_on(app, smtp_server, receiver):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say good luck Bob"))
    assert _talk(app, game_id) == []
    assert talk.NO_TABLE_TALK in _answer(app, before)


def test_table_talk_emails_say_the_whole_table_reads_them(app, smtp_server, receiver):
    game_id = _table_talk_game(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say good luck everyone"))
    assert _talk(app, game_id) == ["good luck everyone"]
    assert "Your words went to the whole table (Bob and Cid): “good luck everyone”" in _answer(app, before)
    deliver(app)
    for address in (BOB, CID):
        heard = latest(smtp_server, address, "Ann says")
        assert "Everyone at the table reads these words" in text_part(heard)
        assert str(heard["Reply-To"]).startswith("talk+")


def test_partner_talk_emails_say_only_the_partner_reads_them(app, smtp_server, receiver):
    game_id = _team_game(app)
    long_words = "hold your blue " * 30  # long words are emailed at once
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say " + long_words))
    assert _talk(app, game_id)
    deliver(app)
    partner = _partner(app, game_id)
    heard = latest(smtp_server, partner.email, "Ann says")
    assert "your words go to your partner only" in text_part(heard)
    others = [a for a in (BOB, CID, DAN) if a != partner.email]
    assert not [m for a in others for m in smtp_server.to(a) if "hold your blue" in m.as_string()]


def test_a_reply_to_a_talk_email_is_passed_on_and_plays_no_move(app, smtp_server, receiver):
    game_id = _table_talk_game(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say good luck everyone"))
    deliver(app)
    version = game_state(app, game_id)[1].version
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, BOB, "Ann says"), BOB, "watch out for my admiral\n1"))
    assert game_state(app, game_id)[1].version == version
    assert _talk(app, game_id) == ["good luck everyone", "watch out for my admiral"]
    [answer] = [r for r in new_mail(app, before) if r.to_addr == BOB and r.kind.startswith("reply")]
    assert handler.NO_MOVES_BY_TALK in answer.text_body


def test_a_play_token_does_not_verify_as_a_talk_token(app, smtp_server, receiver):
    game_id = _table_talk_game(app)
    turn = latest(smtp_server, ANN, "your turn")
    before = outbox_ids(app)
    msg = reply_to(turn, ANN, "hello all")
    msg.replace_header("To", str(turn["Reply-To"]).replace("play+", "talk+"))
    send(receiver, msg)
    assert _talk(app, game_id) == [] and new_mail(app, before) == []


@pytest.mark.parametrize("end", ["finish", "abort", "leave"])
def test_talk_ends_with_the_game_or_when_the_writer_left(app, smtp_server, end):
    game_id = _table_talk_game(app)
    with session_scope(db_of(app)) as session:
        game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
        if end == "leave":
            seats[0].left_game = True
            session.add(seats[0])
        else:
            game.status = GameStatus.FINISHED if end == "finish" else GameStatus.ABORTED
            session.add(game)
    with session_scope(db_of(app)) as session:
        game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
        said = talk.say(session, cfg_of(app), game, seats, seats[0], "still here?", utcnow())
    assert said.refused == (talk.WRITER_LEFT if end == "leave" else talk.TALK_ENDED)
    assert _talk(app, game_id) == []
    token = links.sign_seat(cfg_of(app), game_id, 0, seats[0].link_nonce)
    client = app.test_client()
    assert client.post(f"/g/{token}/talk", data={"text": "still here?"}).status_code == 403
    if end != "leave":
        assert "data-talk-form" not in client.get(f"/g/{token}").get_data(as_text=True)


def test_table_talk_emails_skip_a_player_who_unsubscribed(app, smtp_server, receiver):
    game_id = _table_talk_game(app)
    with session_scope(db_of(app)) as session:
        seats = service.seats_of(session, game_id)
        seats[1].unsubscribed = True
        session.add(seats[1])
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say good luck everyone"))
    deliver(app)
    assert not [m for m in smtp_server.to(BOB) if "Ann says" in str(m["Subject"])]
    assert [m for m in smtp_server.to(CID) if "Ann says" in str(m["Subject"])]


def test_forged_replies_do_not_use_up_the_senders_hourly_limit(app, smtp_server, receiver, monkeypatch):
    monkeypatch.setattr(handler, "MAX_REPLIES_PER_HOUR", 3)
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    forged = str(turn["Reply-To"]).replace(f"+{game_id}-", "+99999-")
    local, domain = str(turn["Reply-To"]).split("@")
    wrong_code = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    before = outbox_ids(app)
    for address in [forged] * 3 + [wrong_code] * 3:
        msg = reply_to(turn, ANN, "1")
        msg.replace_header("To", address)
        send(receiver, msg)
    assert new_mail(app, before) == []  # no backscatter
    send(receiver, reply_to(turn, ANN, "1"))
    assert game_state(app, game_id)[1].version >= 1
