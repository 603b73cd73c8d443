"""'Erase me' (/me/<token>/erase, pbem/games/privacy.py erase_address): after erasure no text
column of any table holds the address in any case or form; its seats keep "Former player N" in
its language, its running seat is a bot and the game goes on, the other games replay to the
same result, and the never-list still refuses it (as a keyed hash) when it asked."""
from __future__ import annotations

import pytest
from game_helpers import cfg_of, db_of, game_row, seats, start_game
from privacy_world import OTHERS, ZED, ZED_PLAIN, build_world, forms_of_zed, scores_of, where_found
from sqlmodel import Session, col, select
from test_seat_actions import play_to_the_end

from pbem import links
from pbem.db import session_scope
from pbem.games import privacy, records
from pbem.games.errors import GameError
from pbem.mail import suppression
from pbem.models import AuditLog, GameStatus, Notice, Suppression


def me_path(app, email: str) -> str:
    return "/me/" + links.sign_address(cfg_of(app), links.MY_GAMES_SALT, email)


def replayed(app, game_id: int) -> tuple:
    with session_scope(db_of(app)) as s:
        state = records.replay_record(records.export_record(s, game_id, live=True))
    import engine
    return tuple(engine.winners(state)), tuple(engine.player_view(state, 0)["scores"]), state.version


@pytest.mark.parametrize("never", [True, False])
def test_after_erasure_the_address_is_nowhere_in_the_database(app, smtp_server, client, never):
    world = build_world(app, smtp_server, client)
    assert where_found(app, forms_of_zed())  # the world does hold it everywhere first
    page = client.get(me_path(app, ZED) + "/erase")
    assert page.status_code == 200 and 'name="never"' in page.text
    done = client.post(me_path(app, ZED) + "/erase", data={"never": "on"} if never else {})
    assert done.status_code == 200 and "data-erased" in done.text
    assert where_found(app, forms_of_zed()) == []
    with Session(db_of(app)) as s:
        assert suppression.is_suppressed(s, ZED) is never
        assert suppression.is_suppressed(s, "zebulon.quixote+other@example.com") is never
        assert all(row.email.startswith(suppression.HASHED_PREFIX) for row in s.exec(select(Suppression)))
    for other in OTHERS:  # the other players are still there
        assert where_found(app, [other])
    assert seats(app, world.others_game)[0].email == OTHERS[0]


def test_the_never_list_still_refuses_an_erased_address_that_was_on_it(app, smtp_server, client):
    build_world(app, smtp_server, client)
    with session_scope(db_of(app)) as s:
        suppression.add(s, ZED.lower())
    client.post(me_path(app, ZED) + "/erase", data={})  # not ticked: it was on the list, it stays
    with Session(db_of(app)) as s:
        assert suppression.is_suppressed(s, ZED_PLAIN)
        assert s.exec(select(Suppression.key)).all() == [suppression.hashed_key(ZED_PLAIN)]
    with pytest.raises(GameError):
        start_game(app, [f"Bob <{OTHERS[0]}>", ZED_PLAIN], seed=1)
    assert where_found(app, forms_of_zed()) == []


def test_its_seats_keep_a_neutral_name_in_its_language_and_the_running_seat_is_a_bot(app, smtp_server, client):
    world = build_world(app, smtp_server, client)  # Zed reads French (its preferences)
    before = replayed(app, world.finished), replayed(app, world.others_game)
    client.post(me_path(app, ZED) + "/erase", data={})
    zed = seats(app, world.running)[0]
    assert (zed.name, zed.email, zed.handed_to_bot, zed.left_game) == ("Ancien joueur 1", None, True, True)
    assert seats(app, world.finished)[1].name == "Ancien joueur 2"
    assert (replayed(app, world.finished), replayed(app, world.others_game)) == before
    with Session(db_of(app)) as s:  # the table is told, as when a player leaves
        news = s.exec(select(Notice).where(Notice.game_id == world.running)).all()
    assert {n.seat_id for n in news} == {s.id for s in seats(app, world.running)[1:]}
    assert all("Zed" in n.text for n in news)
    play_to_the_end(app, world.running)  # the game goes on, the bot playing Zed's seat
    assert game_row(app, world.running).status == GameStatus.FINISHED
    assert replayed(app, world.running)[0] == scores_of(app, world.running)[0]


def test_erasure_is_audited_without_the_address(app, smtp_server, client):
    build_world(app, smtp_server, client)
    client.post(me_path(app, ZED) + "/erase", data={})
    with Session(db_of(app)) as s:
        row = s.exec(select(AuditLog).where(col(AuditLog.action) == "erase_address")).one()
    assert row.detail == f"erased address {privacy.address_tag(cfg_of(app), ZED_PLAIN)}"
    assert "zebulon" not in row.detail


def test_the_confirmation_page_changes_nothing(app, smtp_server, client):
    build_world(app, smtp_server, client)
    client.get(me_path(app, ZED) + "/erase")
    client.head(me_path(app, ZED) + "/erase")
    assert where_found(app, [ZED.lower()])


@pytest.mark.parametrize("spelling", ["zebulon.quixote@example.com", "ZEBULON.QUIXOTE+other@EXAMPLE.COM"])
def test_any_spelling_of_the_mailbox_erases_it(app, smtp_server, client, spelling):
    build_world(app, smtp_server, client)
    client.post(me_path(app, spelling) + "/erase", data={})
    assert where_found(app, forms_of_zed()) == []


def test_the_other_players_pages_and_rematch_still_work_after_erasure(app, smtp_server, client):
    world = build_world(app, smtp_server, client)
    client.post(me_path(app, ZED) + "/erase", data={})
    bob = seats(app, world.finished)[0]
    page = "/g/" + links.sign_seat(cfg_of(app), world.finished, 0, bob.link_nonce)
    assert client.get(page).status_code == 200
    assert "Ancien joueur 2" in client.get(page).text
    assert client.get(page + "/rematch").status_code == 200
    assert client.post(page + "/rematch").status_code < 500
    running = seats(app, world.running)[1]
    assert client.get("/g/" + links.sign_seat(cfg_of(app), world.running, 1, running.link_nonce)).status_code == 200
    assert client.get(me_path(app, OTHERS[0])).status_code == 200
    assert where_found(app, forms_of_zed()) == []
