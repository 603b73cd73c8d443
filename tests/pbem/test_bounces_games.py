"""An address our mail bounces from is handled like an absent player (issue 26): it gets no
more email, the others are told once, its clock policy plays out at the deadline, the creator
of a waiting game may replace it, and the person (or an admin) clears it."""
from __future__ import annotations

from datetime import timedelta

import pytest
from bounce_helpers import bounce, is_undeliverable
from clockkit import T0, deliver, game_row, mails, make_cfg, play_the_turn, seat_row, start_game, sweep
from smtp_fakes import ScriptedSmtp, mail_config, queue_emails
from sqlmodel import select

from pbem import links
from pbem.db import session_scope
from pbem.mail import undeliverable
from pbem.mail.delivery import deliver_due
from pbem.models import GameStatus, Invitation, MoveRecord, Notice, OutboxMessage, OutboxStatus, Proposal, Seat, utcnow
from pbem.worker import run_job

ANN, BOB = "ann@example.com", "bob@example.com"
DEADLINE = T0 + timedelta(hours=10)


@pytest.fixture
def cfg(database_url):
    return make_cfg(database_url)


def news_for(engine, address: str) -> list[str]:
    with session_scope(engine) as session:
        return list(session.exec(select(Notice.text).join(Seat, Seat.id == Notice.seat_id)
                                 .where(Notice.kind == "news", Seat.email == address)).all())


def test_a_bouncing_seat_gets_no_more_email(engine, cfg):
    game_id = start_game(engine, cfg)
    bounce(engine, cfg, ANN)
    before = len(mails(engine, to=ANN))
    play_the_turn(engine, cfg, game_id)  # Ann (by her page), then Bob: Ann's turn again
    play_the_turn(engine, cfg, game_id)
    assert game_row(engine, game_id).to_move == 0
    assert len(mails(engine, to=ANN)) == before
    assert mails(engine, "turn", BOB)


def test_an_email_queued_before_the_bounce_is_cancelled_by_the_worker(engine, cfg, smtp_server):
    start_game(engine, cfg)
    waiting = [m for m in mails(engine, to=ANN) if m.status == OutboxStatus.PENDING]
    assert waiting
    bounce(engine, cfg, ANN)
    report = deliver(engine, cfg, smtp_server, utcnow() + timedelta(minutes=1))
    assert report["cancelled"] == len(waiting) and report["sent"] >= 1
    assert smtp_server.to(ANN) == [] and smtp_server.to(BOB)
    for row in mails(engine, to=ANN):
        assert (row.status, row.last_error) == (OutboxStatus.CANCELLED, undeliverable.UNDELIVERABLE)


def test_the_other_players_are_told_once_by_the_worker(engine, cfg):
    start_game(engine, cfg)
    bounce(engine, cfg, ANN)
    assert run_job("clocks", engine, cfg, now=T0)["bounces_announced"] == 1
    assert "bounces_announced" not in run_job("clocks", engine, cfg, now=T0 + timedelta(minutes=1))
    [told] = news_for(engine, BOB)
    assert "Our emails to Ann bounce" in told and "clock" in told
    assert news_for(engine, ANN) == []
    sweep(engine, cfg, T0 + timedelta(minutes=2))  # the news goes out as Bob's next email
    [email] = mails(engine, "news", BOB)
    assert "Our emails to Ann bounce" in email.text_body


@pytest.mark.parametrize("policy", ["autoplay", "pause", "bot"])
def test_the_clock_policy_plays_the_bouncing_seat_at_its_deadline(engine, cfg, policy):
    game_id = start_game(engine, cfg, on_timeout=policy)
    bounce(engine, cfg, ANN)
    assert sweep(engine, cfg, DEADLINE)["timeouts"] == 1
    game = game_row(engine, game_id)
    with session_scope(engine) as session:
        records = session.exec(select(MoveRecord.source).where(MoveRecord.game_id == game_id)).all()
    if policy == "autoplay":
        assert records == ["timeout"] and game.to_move == 1
    elif policy == "pause":
        assert game.status == GameStatus.PAUSED
    else:
        assert seat_row(engine, game_id, 0).handed_to_bot
    assert mails(engine, "timeout_autoplay", ANN) == [] and mails(engine, "seat_to_bot", ANN) == []


def test_a_relay_refusal_at_send_time_marks_the_address_undeliverable(engine, database_url):
    relay = ScriptedSmtp(rcpt_reply={"gone@example.test": "550 5.1.1 No such user"}).start()
    try:
        queue_emails(engine, 1, to="gone@example.test", created_at=T0)
        report = deliver_due(engine, mail_config(database_url, relay.port), now=T0)
    finally:
        relay.stop()
    assert report.failed == 1
    assert is_undeliverable(engine, "gone@example.test")
    with session_scope(engine) as session:
        [mark] = undeliverable.marks(session)
    assert mark.kind == "relay" and "550" in mark.reason


def test_a_temporary_relay_refusal_marks_nothing(engine, database_url):
    relay = ScriptedSmtp(rcpt_reply={"busy@example.test": "452 4.2.2 Mailbox full"}).start()
    try:
        queue_emails(engine, 1, to="busy@example.test", created_at=T0)
        assert deliver_due(engine, mail_config(database_url, relay.port), now=T0).retried == 1
    finally:
        relay.stop()
    assert not is_undeliverable(engine, "busy@example.test")


def test_the_creator_of_a_waiting_game_is_told_its_invitation_bounced_and_may_replace_the_seat(app, client):
    from game_helpers import cfg_of, db_of
    from pbem.games import proposals
    engine, cfg = db_of(app), cfg_of(app)
    with session_scope(engine) as session:
        view = proposals.propose_game(session, cfg, your_name="Ann", your_email=ANN, players=f"Bob <{BOB}>")
        proposal = session.exec(select(Proposal)).one()
        proposals.confirm_proposal(session, cfg, links.confirm_url(cfg, proposal.id, proposal.nonce).split("/p/")[1]
                                   .removesuffix("/confirm"))
    del view
    bounce(engine, cfg, BOB)
    run_job("clocks", engine, cfg)
    with session_scope(engine) as session:
        bob = session.exec(select(Invitation).where(Invitation.email == BOB)).one()
        assert bob.status == "expired"
        proposal = session.exec(select(Proposal)).one()
        [told] = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "invitation_bounced")).all()
        assert told.to_addr == ANN
        token = links.proposal_url(cfg, proposal.id, proposal.nonce).split("/p/")[1]
        proposals.replace_invitee(session, cfg, token, bob.position, "Cid <cid@example.com>")
        assert session.exec(select(Invitation).where(Invitation.position == bob.position)).one().email == \
            "cid@example.com"


def test_saying_i_can_read_mail_again_on_my_games_page_clears_it(app, client):
    from game_helpers import cfg_of, db_of, outbox
    from game_helpers import start_game as start_app_game
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_app_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    bounce(engine, cfg, ANN)
    token = links.my_games_url(cfg, ANN).split("/me/")[1]
    page = client.get(f"/me/{token}")
    assert b"data-bounces" in page.data
    assert client.post(f"/me/{token}/mail-works").status_code == 303
    assert not is_undeliverable(engine, ANN)
    assert b"data-mail-works" in client.get(f"/me/{token}?mail=1").data
    before = len(outbox(app, game_id, to_addr=ANN))
    play_the_turn(engine, cfg, game_id, at=game_row(engine, game_id).updated_at)
    play_the_turn(engine, cfg, game_id, at=game_row(engine, game_id).updated_at)
    assert len(outbox(app, game_id, to_addr=ANN)) > before  # her turn email goes out again


def test_the_game_page_says_mail_to_a_player_bounces(app, client):
    from game_helpers import cfg_of, db_of, game_page_path, text_part  # noqa: F401
    from game_helpers import seats as seats_of_game
    from game_helpers import start_game as start_app_game
    engine, cfg = db_of(app), cfg_of(app)
    game_id = start_app_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    bounce(engine, cfg, ANN)
    ann, bob = seats_of_game(app, game_id)
    bobs_page = client.get("/g/" + links.sign_seat(cfg, game_id, bob.position, bob.link_nonce))
    assert b"data-bounces" in bobs_page.data and b"Our emails to Ann bounce" in bobs_page.data
    anns_page = client.get("/g/" + links.sign_seat(cfg, game_id, ann.position, ann.link_nonce))
    assert b"data-you-bounce" in anns_page.data and b"data-bounces" not in anns_page.data


def test_the_admin_sees_the_address_on_the_game_and_in_the_list_and_may_clear_it(admin_app, admin_client):
    from game_helpers import cfg_of, db_of
    from game_helpers import start_game as start_app_game
    engine, cfg = db_of(admin_app), cfg_of(admin_app)
    game_id = start_app_game(admin_app, [f"Ann <{ANN}>", f"Bob <{BOB}>"])
    bounce(engine, cfg, ANN)
    assert b"mail bounces" in admin_client.get(f"/admin/games/{game_id}").data
    listing = admin_client.get("/admin/bounces")
    assert ANN.encode() in listing.data and b"permanent" in listing.data
    with session_scope(engine) as session:
        [mark] = undeliverable.marks(session)
    csrf = _csrf(admin_client.get("/admin/bounces").data)
    assert admin_client.post(f"/admin/bounces/{mark.bounce_id}/clear", data={"csrf_token": csrf}).status_code == 303
    assert not is_undeliverable(engine, ANN)
    assert b"data-bounce=" not in admin_client.get("/admin/bounces").data


def _csrf(page: bytes) -> str:
    import re
    match = re.search(rb'name="csrf_token" value="([^"]+)"', page)
    assert match
    return match[1].decode()
