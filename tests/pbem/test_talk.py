"""Partners talk: in a team game the words of a reply beside its move (or after "say") reach the partner
only (in the next email they get, or at once when long) and the partner's game page; in an
individual game table talk is off unless the game turns it on. The game page's form too."""
from __future__ import annotations

import engine
import pytest
from sqlmodel import select
from game_helpers import cfg_of, db_of, deliver, start_game
from inbound_helpers import game_state, latest, new_mail, outbox_ids, receiver, reply_to, send  # noqa: F401

from pbem import links
from pbem.db import session_scope
from pbem.games import service, talk
from pbem.models import Game, TalkMessage

# The pages' links are compared with links the test signs: one timestamp for all of them.
pytestmark = pytest.mark.usefixtures("links_signed_at_one_instant")

ANN, BOB, CID, DAN = "ann@example.com", "bob@example.com", "cid@example.com", "dan@example.com"


@pytest.fixture
def team_game(app, smtp_server):
    """Ann and Cid against Bob and Dan (seats alternate teams), Ann's first turn email delivered."""
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>", f"Cid <{CID}>", f"Dan <{DAN}>"],
                         teams=True, seed=5)
    deliver(app)
    return game_id


def _seats(app, game_id):
    with session_scope(db_of(app)) as session:
        game = session.get(Game, game_id)
        return game, service.seats_of(session, game_id)


def _readable(app, game_id, position):
    with session_scope(db_of(app)) as session:
        game, seats = session.get(Game, game_id), service.seats_of(session, game_id)
        return [(line.who, line.text) for line in talk.visible(session, game, seats, seats[position])]


def test_the_words_of_a_reply_beside_its_move_reach_the_partner_only(app, smtp_server, receiver, team_game):
    _, seats = _seats(app, team_game)
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw\nI keep my blue for ship 2"))
    assert game_state(app, team_game)[1].version >= 1
    assert _readable(app, team_game, partner.position) == [("Ann", "I keep my blue for ship 2")]
    for other in (s for s in seats if s.team != seats[0].team):
        assert _readable(app, team_game, other.position) == []
    deliver(app)
    answer = latest(smtp_server, ANN, "played")
    assert "Your words went to " + partner.name in answer.get_body(("plain",)).get_content()


def test_a_short_message_waits_for_the_next_email_the_partner_gets_from_a_reply(app, smtp_server, receiver, team_game):
    _, seats = _seats(app, team_game)
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "say hold on"))
    deliver(app)
    assert not [m for m in smtp_server.to(partner.email) if "says" in str(m["Subject"])]
    # The partner replies (a line of words only): their answer carries Ann's words.
    first = smtp_server.to(partner.email)[0]
    msg = reply_to(first, partner.email, "say ok")
    msg.replace_header("To", links.reply_address(cfg_of(app), team_game, partner.position, partner.link_nonce,
                                                 game_state(app, team_game)[1].version))
    before = outbox_ids(app)
    send(receiver, msg)
    [answer] = [r for r in new_mail(app, before) if r.to_addr == partner.email]
    assert "YOUR PARTNER SAYS" in answer.text_body and "Ann: hold on" in answer.text_body


def test_a_long_message_is_emailed_to_the_partner_at_once(app, smtp_server, receiver, team_game):
    _, seats = _seats(app, team_game)
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    words = "say Let us plan: " + "watch the red pirates on ship two and keep the admiral. " * 6
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, words))
    heard = [r for r in new_mail(app, before) if r.kind == "talk_heard"]
    assert [r.to_addr for r in heard] == [partner.email]
    assert "keep the admiral" in heard[0].text_body


def test_talk_is_stripped_of_html_and_cut_to_its_size_limit(app, smtp_server, receiver, team_game):
    _, seats = _seats(app, team_game)
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN,
                            "say <b>bold</b> <script>x()</script>" + " word" * 400))
    [(who, text)] = _readable(app, team_game, partner.position)
    assert "<" not in text and text.startswith("bold") and len(text) <= talk.MAX_TALK_CHARS


def test_talk_is_rate_limited_per_seat(app, smtp_server, team_game, monkeypatch):
    monkeypatch.setattr(talk, "MAX_TALK_PER_HOUR", 2)
    cfg = cfg_of(app)
    results = []
    for i in range(3):
        with session_scope(db_of(app)) as session:
            game, seats = service.lock_game_with_seats(session, team_game)
            results.append(talk.say(session, cfg, game, seats, seats[0], f"message {i}", game.updated_at).refused)
    assert results[:2] == [None, None] and results[2] is not None


def test_table_talk_is_off_by_default_in_an_individual_game(app, smtp_server, receiver):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    before = outbox_ids(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw\ngood luck Bob"))
    assert _readable(app, game_id, 1) == []
    [answer] = [r for r in new_mail(app, before) if r.to_addr == ANN and r.kind.startswith("reply")]
    assert talk.NO_TABLE_TALK in answer.text_body


def test_table_talk_reaches_every_player_when_the_game_turns_it_on(app, smtp_server, receiver):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    with session_scope(db_of(app)) as session:
        game = session.get(Game, game_id)
        game.table_talk = True
        session.add(game)
    deliver(app)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw\ngood luck Bob"))
    assert _readable(app, game_id, 1) == [("Ann", "good luck Bob")]
    deliver(app)  # short table talk is emailed at once: it has no "next email" of one reader
    assert any("good luck Bob" in m.get_body(("plain",)).get_content() for m in smtp_server.to(BOB))


@pytest.fixture
def talk_client(app):
    return app.test_client()


def test_the_game_page_talk_form_sends_to_the_partner(app, smtp_server, talk_client, team_game):
    game, seats = _seats(app, team_game)
    token = links.sign_seat(cfg_of(app), team_game, 0, seats[0].link_nonce)
    response = talk_client.post(f"/g/{token}/talk", data={"text": "from the page <i>now</i>"})
    assert response.status_code == 303 and response.headers["Location"].endswith(f"/g/{token}#talk")
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    assert _readable(app, team_game, partner.position) == [("Ann", "from the page now")]


def test_the_talk_form_with_a_forged_token_changes_nothing(app, smtp_server, talk_client, team_game):
    token = links.sign_seat(cfg_of(app), team_game, 0, "x" * 16)[:-2] + "zz"
    response = talk_client.post(f"/g/{token}/talk", data={"text": "hi"})
    assert response.status_code in (400, 403)
    with session_scope(db_of(app)) as session:
        assert session.exec(select(TalkMessage)).all() == []


def test_the_talk_box_shows_a_seat_its_teams_talk_only(app, smtp_server, talk_client, team_game):
    game, seats = _seats(app, team_game)
    token = links.sign_seat(cfg_of(app), team_game, 0, seats[0].link_nonce)
    talk_client.post(f"/g/{token}/talk", data={"text": "secret plan"})
    other = next(s for s in seats if s.team != seats[0].team)
    other_token = links.sign_seat(cfg_of(app), team_game, other.position, other.link_nonce)
    mine = talk_client.get(f"/g/{token}").get_data(as_text=True)
    theirs = talk_client.get(f"/g/{other_token}").get_data(as_text=True)
    assert "secret plan" in mine and "secret plan" not in theirs
    assert f'action="/g/{token}/talk"' in mine and "data-talk-form" in theirs


def test_a_short_message_reaches_the_partner_in_their_next_turn_email(app, smtp_server, receiver, team_game):
    _, seats = _seats(app, team_game)
    partner = next(s for s in seats if s.team == seats[0].team and s.position != 0)
    send(receiver, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw\nsay keep your admiral"))
    for _ in range(8):  # the others play on until the partner is to move
        game, state = game_state(app, team_game)
        if state.to_move == partner.position:
            break
        with session_scope(db_of(app)) as session:
            service.apply_game_move(session, cfg_of(app), team_game, state.to_move,
                                    engine.legal_moves(state)[0], expected_version=state.version)
    assert state.to_move == partner.position
    deliver(app)
    turn = latest(smtp_server, partner.email, "your turn")
    assert "YOUR PARTNER SAYS" in turn.get_body(("plain",)).get_content()
    assert "Ann: keep your admiral" in turn.get_body(("plain",)).get_content()
    assert "keep your admiral" in turn.get_body(("html",)).get_content()
    for other in (s for s in seats if s.team != seats[0].team):
        assert not [m for m in smtp_server.to(other.email) if "keep your admiral" in m.as_string()]


def test_words_in_a_reply_to_a_paused_game_are_not_passed_on_and_the_answer_says_so(app, smtp_server, receiver,
                                                                                  team_game):
    from pbem.games import lifecycle
    from pbem.models import utcnow

    turn_email = latest(smtp_server, ANN, "your turn")
    with session_scope(db_of(app)) as session:
        lifecycle.pause_game(session, cfg_of(app), team_game, now=utcnow(), actor="admin")
    send(receiver, reply_to(turn_email, ANN, "say hold your blue"))
    deliver(app)
    answer = latest(smtp_server, ANN, "not played").get_body(("plain",)).get_content()
    assert "the words in your reply were not passed on" in answer
    with session_scope(db_of(app)) as session:
        assert session.exec(select(TalkMessage)).all() == []
