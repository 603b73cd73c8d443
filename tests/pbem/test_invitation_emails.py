"""The emails of games players set up themselves (pbem/letters/invitations.py): each goes to its
reader in the reader's language, carries the address's "never email me again" link in both
bodies and as its one-click List-Unsubscribe, shows no address but the reader's own, and none is
queued for an address on the suppression list (the two anyone can ask for are queued for the
worker to write, which cancels them: tests/pbem/test_self_service_abuse.py). Proposals and
invitations are rows made here."""
from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlmodel import Session, select

from pbem.mail.mime import FROM_NAME
from pbem import i18n, links
from pbem.db import session_scope
from pbem.letters import invitations as letters
from pbem.letters import notify
from pbem.mail import suppression
from pbem.mail.outbox import enqueue
from pbem.models import Invitation, OutboxMessage, Proposal, SeatKind

NOW = datetime(2026, 3, 2, 10, 0)
CREATOR, BOB, CID = "ann@example.com", "bob@example.com", "cid@example.com"
LANGUAGES = list(i18n.LANGUAGES)


def make_proposal(session: Session, *, creator_language: str = "en",
                  invitee_language: str = "en") -> tuple[Proposal, list[Invitation]]:
    """A team game set up by Ann: Bob invited (he declined), a greedy bot, Cid invited."""
    proposal = Proposal(creator_email=CREATOR, nonce="proposal-nonce", language=creator_language,
                        name="Tortuga", teams=True, deadline_hours=48, reminders="50,85",
                        on_timeout="autoplay", created_at=NOW, confirm_by=NOW + timedelta(hours=24))
    session.add(proposal)
    session.flush()
    week = NOW + timedelta(days=7)
    rows = [
        Invitation(proposal_id=proposal.id, position=0, name="Ann", email=CREATOR, status="accepted",
                   nonce="n0", language=creator_language),
        Invitation(proposal_id=proposal.id, position=1, name="Bob", email=BOB, status="declined",
                   nonce="n1", language=invitee_language, invited_at=NOW, expires_at=week),
        Invitation(proposal_id=proposal.id, position=2, name="Greedy bot", kind=SeatKind.BOT,
                   bot="greedy", status="accepted", nonce="n2"),
        Invitation(proposal_id=proposal.id, position=3, name="Cid", email=CID, status="invited",
                   nonce="n3", language=invitee_language, invited_at=NOW, expires_at=week),
    ]
    session.add_all(rows)
    session.flush()
    return proposal, rows


# Every link is signed with one timestamp: a link the test makes is the one an email holds.
pytestmark = pytest.mark.usefixtures("links_signed_at_one_instant")


Queue = Callable[[Session, Any, Proposal, list[Invitation]], dict | None]
# Every kind: how the domain queues it (the two anyone can ask for: as the worker writes them),
# and who reads it.
KINDS: dict[str, tuple[Queue, str]] = {
    "confirm_game": (lambda s, cfg, p, rows: enqueue(s, cfg, letters.confirmation_email(cfg, p, rows)), CREATOR),
    "invitation": (lambda s, cfg, p, rows: letters.queue_invitation(s, cfg, p, rows[3], rows), CID),
    "invitation_declined": (lambda s, cfg, p, rows: letters.queue_declined(s, cfg, p, rows[1], rows), CREATOR),
    "invitations_expired": (lambda s, cfg, p, rows: letters.queue_expired(s, cfg, p, [rows[3]], rows), CREATOR),
    "proposal_cancelled": (lambda s, cfg, p, rows: letters.queue_proposal_cancelled(s, cfg, p, rows[3], rows), CID),
    "my_games_link": (lambda s, cfg, p, rows: enqueue(s, cfg, letters.my_games_link_email(cfg, CID, rows[3].language)),
                      CID),
}
WRITTEN_AT_DELIVERY = {"confirm_game", "my_games_link"}


def queue(app, kind: str, *, creator_language: str = "en", invitee_language: str = "en") -> dict | None:
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    with session_scope(engine) as session:
        proposal, rows = make_proposal(session, creator_language=creator_language,
                                       invitee_language=invitee_language)
        return KINDS[kind][0](session, cfg, proposal, rows)


def outbox(app) -> list[OutboxMessage]:
    with session_scope(app.extensions["korsar_db"]) as session:
        return list(session.exec(select(OutboxMessage)))


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_is_written_in_its_readers_language(app, kind, language):
    row = queue(app, kind, creator_language=language, invitee_language=language)
    assert row is not None and row["kind"] == kind
    assert row["subject"].startswith("[Korsar] ") and "\n" not in row["subject"]
    assert f'<html lang="{language}" dir="ltr">' in row["html_body"]
    assert row["text_body"].strip()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_creator_and_the_invitee_each_read_their_own_language(app, kind):
    row = queue(app, kind, creator_language="fr", invitee_language="vi")
    reader_language = "fr" if KINDS[kind][1] == CREATOR else "vi"
    assert f'<html lang="{reader_language}" dir="ltr">' in row["html_body"]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_goes_to_its_reader_with_the_never_email_link_and_list_unsubscribe(app, kind):
    row = queue(app, kind)
    reader = KINDS[kind][1]
    cfg = app.config["KORSAR"]
    assert row["to_addr"] == reader
    never = links.never_url(cfg, reader)
    assert never in row["text_body"] and f'href="{never}"' in row["html_body"]
    headers = json.loads(row["headers_json"])
    assert headers.pop(FROM_NAME) == "Korsar by mail"  # not a header: the From display name
    assert headers == {**links.never_headers(cfg, reader), "Content-Language": "en"}
    assert f'href="{links.rules_url(cfg)}"' in row["html_body"]
    assert [m.kind for m in outbox(app)] == [kind]


@pytest.mark.parametrize("kind", sorted(set(KINDS) - WRITTEN_AT_DELIVERY))
def test_nothing_is_queued_for_a_suppressed_address(app, kind):
    with session_scope(app.extensions["korsar_db"]) as session:
        suppression.add(session, KINDS[kind][1])
    assert queue(app, kind) is None
    assert outbox(app) == []


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_no_email_shows_an_invitees_address(app, kind):
    row = queue(app, kind)
    others = {BOB, CID} - {row["to_addr"]}
    for body in (row["text_body"], row["html_body"]):
        assert not [address for address in others if address in body]


def test_the_confirmation_carries_a_working_single_use_link_valid_24_hours(app, client):
    row = queue(app, "confirm_game")
    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as session:
        proposal = session.exec(select(Proposal)).one()
    url = links.confirm_url(cfg, proposal.id, proposal.nonce)
    assert url in row["text_body"] and f'href="{url}"' in row["html_body"]
    token = url.removeprefix(f"{cfg.BASE_URL}/p/").removesuffix("/confirm")
    assert links.read_record(cfg, links.CONFIRM_SALT, token, links.CONFIRM_MAX_AGE) == \
        links.RecordToken(proposal.id, proposal.nonce)
    response = client.get(url.removeprefix(cfg.BASE_URL))
    assert response.status_code == 200 and '<form method="post"' in response.get_data(as_text=True)
    assert "24 hours" in row["text_body"] and "works once" in row["text_body"]


def test_the_confirmation_lists_the_players_with_bots_named_as_bots_and_the_clock(app):
    text = queue(app, "confirm_game")["text_body"]
    assert "Ann (you)" in text and "  - Greedy bot\n" in text  # its name says it is a bot
    assert "Time for each move: 2 days." in text and "50% and 85%" in text
    assert "Teams of two: Ann and Bob · Greedy bot and Cid." in text
    assert "If you did not ask for this, ignore this email: nobody else is emailed" in text


def test_the_invitation_says_who_invites_by_name_only(app):
    row = queue(app, "invitation")
    for body in (row["text_body"], row["html_body"]):
        assert "Ann invites you" in body and CREATOR not in body
    assert "Ann invites you" in row["subject"]


def test_the_invitation_has_accept_and_decline_buttons_to_its_answer_page(app):
    row = queue(app, "invitation")
    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as session:
        cid = session.exec(select(Invitation).where(Invitation.email == CID)).one()
    page = links.invitation_url(cfg, cid.id, cid.nonce)
    assert row["html_body"].count(f'href="{page}"') == 2  # Accept and Decline: the page confirms
    assert ">Accept</a>" in row["html_body"] and ">Decline</a>" in row["html_body"]
    assert page in row["text_body"]


def test_the_invitation_says_when_it_expires_in_utc_and_that_nothing_else_comes(app):
    text = queue(app, "invitation")["text_body"].replace("\u202f", " ")  # Babel: 10:00\u202fAM
    assert "This invitation expires on March 9, 2026, 10:00 AM (UTC)." in text
    assert "Until you accept, we send you nothing else about this game." in text
    assert "stops all mail from Korsar by mail to this address, for good" in text


@pytest.mark.parametrize("kind, says", [
    ("invitation_declined", "Bob declined your invitation."),
    ("invitations_expired", "Cid did not answer your invitation in time."),
])
def test_the_creator_is_told_who_will_not_play_and_gets_their_page(app, kind, says):
    row = queue(app, kind)
    cfg = app.config["KORSAR"]
    with session_scope(app.extensions["korsar_db"]) as session:
        proposal = session.exec(select(Proposal)).one()
    manage = links.proposal_url(cfg, proposal.id, proposal.nonce)
    assert says in row["text_body"] and says in row["html_body"]
    assert manage in row["text_body"] and f'href="{manage}"' in row["html_body"]
    assert "put a bot or another friend in their place, or cancel" in row["text_body"]


def test_the_cancelled_game_says_nothing_more_will_come(app):
    text = queue(app, "proposal_cancelled")["text_body"]
    assert "Ann cancelled the game" in text and "no more emails about this game" in text


def test_the_my_games_link_works_for_7_days(app):
    row = queue(app, "my_games_link")
    url = links.my_games_url(app.config["KORSAR"], CID)
    assert url in row["text_body"] and f'href="{url}"' in row["html_body"]
    assert "7 days" in row["text_body"] and "If you did not ask for it, ignore this email" in row["text_body"]


def test_no_expired_invitation_means_no_email(app):
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    with session_scope(engine) as session:
        proposal, rows = make_proposal(session)
        assert letters.queue_expired(session, cfg, proposal, [], rows) is None
    assert outbox(app) == []


def test_the_game_over_email_offers_a_rematch_from_the_seat_page(app):
    from pbem.games import bots, service
    from pbem import store
    from pbem.models import Game, Seat

    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    with session_scope(engine) as session:
        game = service.create_game(session, cfg, ["Ann <ann@example.com>", "bot:greedy"], seed=1, now=NOW)
        game_id = game.id
    while True:  # the bot and Ann's greedy choice play it out
        with session_scope(engine) as session:
            game = session.get(Game, game_id)
            if game.to_move is None:
                break
            seat = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == game.to_move)).one()
            state = store.load_state(game)
            service.apply_game_move(session, cfg, game_id, seat.position,
                                    bots.bot_move(game, seat, state, cfg=cfg), now=NOW)
    with session_scope(engine) as session:
        game = session.get(Game, game_id)
        ann = session.exec(select(Seat).where(Seat.game_id == game_id, Seat.position == 0)).one()
        email = notify.game_over_email(session, cfg, game, ann)
    rematch = f"{notify.seat_page_url(cfg, ann)}/rematch"
    assert f"Play again with the same players: {rematch}" in email.text_body
    assert f'href="{rematch}"' in email.html_body and "Play again with the same players" in email.html_body
