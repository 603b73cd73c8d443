"""Rematch and leave, from a seat's game page (pbem/web/seat_actions.py): each a confirmation
page (GET changes nothing) whose form POSTs; 409 when the game is not in a state for it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from game_helpers import cfg_of, db_of, deliver, game_row, outbox, seats, start_game
from sqlmodel import Session, select

from pbem import links
from pbem.db import session_scope
from pbem.games import bots, service
from pbem import store
from pbem.models import GameStatus, Invitation, Notice, Proposal, utcnow

ANN, BOB, CAT = "Ann <ann@example.com>", "Bob <bob@example.com>", "Cat <cat@example.com>"


def seat_path(app, game_id: int, position: int) -> str:
    seat = seats(app, game_id)[position]
    return "/g/" + links.sign_seat(cfg_of(app), game_id, position, seat.link_nonce)


def play_to_the_end(app, game_id: int, *, deliver_turns: bool = False) -> None:
    """Every seat plays its bot's move until the game is over (a bot's seat as the worker does);
    `deliver_turns`: each person's turn email delivered first."""
    cfg = cfg_of(app)
    while (game := game_row(app, game_id)).status == GameStatus.RUNNING:
        mover = seats(app, game_id)[game.to_move]
        if service.is_bot_seat(mover):
            bots.play_due_bots(db_of(app), cfg, now=utcnow() + timedelta(days=1), max_moves=1)
            continue
        if deliver_turns:
            deliver(app)  # the turn email, before its turn is over
        move = bots.bot_move(game, mover, store.load_state(game), cfg=cfg)
        with session_scope(db_of(app)) as s:
            service.apply_game_move(s, cfg, game_id, mover.position, move, expected_version=game.version)


@pytest.fixture
def running(app) -> int:
    return start_game(app, [ANN, BOB, CAT], seed=7)


@pytest.fixture
def finished(app) -> int:
    game_id = start_game(app, [ANN, BOB, "bot:greedy"], seed=3)
    play_to_the_end(app, game_id)
    return game_id


def proposals(app) -> list[Proposal]:
    with Session(db_of(app)) as s:
        return list(s.exec(select(Proposal)))


# ---------------------------------------------------------------- leave
def test_the_game_page_links_to_leave_while_the_game_runs(app, client, running):
    path = seat_path(app, running, 1)  # once: a token signed in another second differs
    page = client.get(path).text
    assert f'href="{path}/leave"' in page
    assert "data-rematch-link" not in page


def test_the_leave_page_explains_and_changes_nothing(app, client, running):
    before = (seats(app, running), len(outbox(app)))
    page = client.get(seat_path(app, running, 1) + "/leave")
    assert page.status_code == 200
    assert "A bot plays your seat, Bob, for the rest of the game." in page.text
    assert "You get no more emails about this game." in page.text
    assert page.text.count("<form") == 1 and 'method="post"' in page.text
    assert client.head(seat_path(app, running, 1) + "/leave").status_code == 200
    assert (seats(app, running), len(outbox(app))) == before


def test_leaving_hands_the_seat_to_a_bot_and_stops_its_mail(app, client, running):
    response = client.post(seat_path(app, running, 1) + "/leave")
    assert response.status_code == 200
    assert "You left" in response.text and "data-left" in response.text
    bob = seats(app, running)[1]
    assert bob.left_game and bob.handed_to_bot
    queued = len(outbox(app, to_addr="bob@example.com"))
    play_to_the_end(app, running)  # the bot plays Bob's turns; the game goes on to its end
    assert game_row(app, running).status == GameStatus.FINISHED
    assert len(outbox(app, to_addr="bob@example.com")) == queued  # no more mail for Bob


def test_the_table_is_told_who_left(app, client, running):
    client.post(seat_path(app, running, 1) + "/leave")
    with Session(db_of(app)) as s:
        news = s.exec(select(Notice).where(Notice.game_id == running, Notice.kind == "news")).all()
    told = {seat.position for seat in seats(app, running) if any(n.seat_id == seat.id for n in news)}
    assert told == {0, 2}
    assert all("Bob left the game" in n.text for n in news)


def test_leaving_twice_is_409_and_changes_nothing(app, client, running):
    path = seat_path(app, running, 1)
    assert client.post(path + "/leave").status_code == 200
    rows = len(outbox(app))
    assert client.get(path + "/leave").status_code == 409
    again = client.post(path + "/leave")
    assert again.status_code == 409 and "Nothing was changed." in again.text
    assert len(outbox(app)) == rows


def test_a_finished_game_cannot_be_left(app, client, finished):
    assert client.get(seat_path(app, finished, 0) + "/leave").status_code == 409
    assert client.post(seat_path(app, finished, 0) + "/leave").status_code == 409


@pytest.mark.parametrize("action", ["leave", "rematch"])
def test_a_damaged_seat_link_is_400(client, action):
    assert client.get(f"/g/not-a-token/{action}").status_code == 400
    assert client.post(f"/g/not-a-token/{action}").status_code == 400


def test_the_leave_page_speaks_the_seats_language(app, client, running):
    with session_scope(db_of(app)) as s:
        seat = service.seats_of(s, running)[1]
        seat.language = "fr"
        s.add(seat)
    page = client.get(seat_path(app, running, 1) + "/leave")
    assert '<html lang="fr">' in page.text


# ---------------------------------------------------------------- rematch
def test_the_game_over_page_links_to_play_again(app, client, finished):
    path = seat_path(app, finished, 0)
    page = client.get(path).text
    assert f'href="{path}/rematch"' in page
    assert "data-leave-link" not in page


def test_the_rematch_page_names_the_players_and_changes_nothing(app, client, finished):
    page = client.get(seat_path(app, finished, 0) + "/rematch")
    assert page.status_code == 200
    assert "Play again with the same players?" in page.text
    assert all(name in page.text for name in ("Ann", "Bob"))
    assert client.head(seat_path(app, finished, 0) + "/rematch").status_code == 200
    assert proposals(app) == []


def test_a_rematch_invites_the_other_humans_again_and_opens_the_creators_page(app, client, finished):
    before = {m.id for m in outbox(app)}
    response = client.post(seat_path(app, finished, 0) + "/rematch")
    assert response.status_code == 303
    assert response.headers["Location"].startswith("http://korsar.test/p/")
    [proposal] = proposals(app)
    assert proposal.rematch_of == finished and proposal.creator_email == "ann@example.com"
    with Session(db_of(app)) as s:
        rows = {i.position: i for i in s.exec(select(Invitation).where(Invitation.proposal_id == proposal.id))}
    assert rows[0].status == "accepted"  # the asker: their seat link proved the address
    assert rows[1].status == "invited" and rows[1].email == "bob@example.com"
    assert rows[2].kind == "bot"
    new = [m for m in outbox(app) if m.id not in before]
    assert [m.to_addr for m in new] == ["bob@example.com"]  # one invitation, nothing else


def test_a_rematchs_page_does_not_send_you_to_a_confirmation_email_it_never_had(app, client, finished):
    response = client.post(seat_path(app, finished, 0) + "/rematch")
    page = client.get(response.headers["Location"].removeprefix("http://korsar.test")).get_data(as_text=True)
    assert "confirmation email" in page and "a rematch sends no confirmation email" in page
    assert "it is the one from your confirmation email" not in page


def test_a_rematch_of_a_game_under_way_is_409(app, client, running):
    assert client.get(seat_path(app, running, 0) + "/rematch").status_code == 409
    response = client.post(seat_path(app, running, 0) + "/rematch")
    assert response.status_code == 409 and "Nothing was changed." in response.text
    assert proposals(app) == []
