"""Unsubscribe: a page with a button (GET changes nothing) and the RFC 8058 one-click POST.
Reminders and event emails stop; turn emails still come. Every email to a player carries the
one-click headers, raw on one line on the wire."""
from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import pytest

from clockkit import T0, deliver, game_row, headers, mails, mover, seat_row, start_game, sweep
from pbem.letters import analysis as analysis_letters
from pbem.letters.unsubscribe import sign_unsubscribe, unsubscribe_url
from pbem.links import NEVER_SALT, read_address
from pbem.db import session_scope
from pbem.models import utcnow


@pytest.fixture
def setup(app):
    engine = app.extensions["korsar_db"]
    cfg = app.config["KORSAR"]
    game_id = start_game(engine, cfg, deadline_hours=10)
    return engine, cfg, game_id


def path_of(row) -> str:
    return headers(row)["List-Unsubscribe"].strip("<>").removeprefix("http://korsar.test")


def test_get_shows_a_button_and_changes_nothing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    for method in (client.get, client.head):
        response = method(f"/u/{sign_unsubscribe(cfg, seat)}")
        assert response.status_code == 200
    page = client.get(f"/u/{sign_unsubscribe(cfg, seat)}").get_data(as_text=True)
    assert '<form method="post"' in page and "Stop reminders and event emails" in page
    assert not seat_row(engine, game_id, seat.position).unsubscribed


def test_one_click_post_from_the_reminder_header_unsubscribes(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    (reminder,) = mails(engine, "reminder", seat.email)
    response = client.post(path_of(reminder), data={"List-Unsubscribe": "One-Click"})
    assert response.status_code == 200
    assert "no more reminders" in response.get_data(as_text=True)
    assert seat_row(engine, game_id, seat.position).unsubscribed
    assert game_row(engine, game_id).next_reminder_at is None
    sweep(engine, cfg, T0 + timedelta(hours=9))
    assert len(mails(engine, "reminder", seat.email)) == 1


def test_turn_emails_still_come_after_unsubscribing(client, setup):
    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    client.post(f"/u/{sign_unsubscribe(cfg, seat)}")
    before = len(mails(engine, "turn", seat.email))
    from pbem.db import session_scope
    from pbem.games.lifecycle import pause_game, resume_game

    with session_scope(engine) as session:
        pause_game(session, cfg, game_id, now=T0, actor="admin")
    with session_scope(engine) as session:
        resume_game(session, cfg, game_id, now=T0, actor="admin")
    assert len(mails(engine, "turn", seat.email)) == before + 1


@pytest.mark.parametrize("token", ["nonsense", "WzEsMV0.forged-signature"])
def test_a_damaged_link_gets_a_clear_400_and_changes_nothing(client, setup, token):
    engine, cfg, game_id = setup
    for method in (client.get, client.post):
        response = method(f"/u/{token}")
        assert response.status_code == 400
        assert "damaged" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, mover(engine, game_id).position).unsubscribed


def test_reminders_and_turn_emails_carry_the_one_click_headers(client, setup, smtp_server):
    engine, cfg, game_id = setup
    sweep(engine, cfg, T0 + timedelta(hours=5))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))  # a reminder is rendered when sent
    deliver(engine, cfg, smtp_server, utcnow())  # the turn email (queued at the clock's real now)
    assert mails(engine, "reminder") and mails(engine, "turn")
    for row in mails(engine, "reminder") + mails(engine, "turn"):
        # A turn email's link stops reminders and event emails, not the game (the page says so).
        assert headers(row)["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert headers(row)["List-Unsubscribe"].startswith("<http://korsar.test/u/")
        assert "/u/" in row.text_body and "/u/" in row.html_body


def test_the_unsubscribe_page_says_the_player_stays_in_the_game(client, setup):
    engine, cfg, game_id = setup
    link = f"/u/{sign_unsubscribe(cfg, mover(engine, game_id))}"
    before, after = (" ".join(page.get_data(as_text=True).split()) for page in (client.get(link), client.post(link)))
    assert "This does not take you out of the game" in before
    assert "You are still in the game" in after
    assert "your turn still come" in before and "your turn still come" in after


# ---------------------------------------------------------------- the raw header on the wire
LONG_BASE_URL = "https://korsar.example.org"


def _raw_by_message_id(smtp_server) -> dict[str, bytes]:  # type: ignore[no-untyped-def]
    found = {}
    for data in smtp_server.raw:
        head = data.split(b"\r\n\r\n", 1)[0]
        match = re.search(rb"^Message-ID: (<[^>\r\n]+>)\r$", head, re.M | re.I)
        assert match, head
        found[match.group(1).decode()] = head
    return found


def _assert_raw_one_click(head: bytes, cfg, seat) -> None:  # type: ignore[no-untyped-def]
    """The header block carries both headers verbatim, each on one line (no fold, no RFC 2047)."""
    line = b"List-Unsubscribe: <" + unsubscribe_url(cfg, seat).encode() + b">\r\n"
    assert len(line) - 2 > 78  # a realistic https link with its token: longer than 78 columns
    assert line in head + b"\r\n"
    after = (head + b"\r\n").split(line, 1)[1]
    assert not after[:1].isspace()  # nothing folded onto a continuation line
    assert re.search(rb"^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$", head, re.M)
    list_lines = [line for line in head.split(b"\r\n") if line.lower().startswith(b"list-")]
    assert len(list_lines) == 2 and not [line for line in list_lines if b"=?" in line]  # no RFC 2047


def test_list_unsubscribe_reaches_the_smtp_server_raw_on_one_line(app, smtp_server):
    engine = app.extensions["korsar_db"]
    cfg = replace(app.config["KORSAR"], BASE_URL=LONG_BASE_URL)
    game_id = start_game(engine, cfg, deadline_hours=10)
    sweep(engine, cfg, T0 + timedelta(hours=5))
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))
    raw = _raw_by_message_id(smtp_server)
    seat = mover(engine, game_id)
    (reminder,) = mails(engine, "reminder", seat.email)
    _assert_raw_one_click(raw[reminder.message_id], cfg, seat)
    # What a receiver's parser sees: the URL itself, which the one-click POST then reaches.
    (received,) = [m for m in smtp_server.to(seat.email) if m["Message-ID"] == reminder.message_id]
    assert received["List-Unsubscribe"] == f"<{unsubscribe_url(cfg, seat)}>"


# The emails about a game being set up (pbem/letters/invitations.py): no seat yet, so their
# one-click link is the address's "never email me again".
SETUP_KINDS = {"confirm_game", "invitation", "invitation_declined", "invitations_expired",
               "proposal_cancelled", "my_games_link", "invitation_bounced"}


def _queue_every_setup_email(session, cfg) -> None:  # type: ignore[no-untyped-def]
    """One email of each kind about a game being set up, for rows made here."""
    from pbem.letters import invitations as letters
    from pbem.mail.outbox import enqueue
    from pbem.models import Invitation, Proposal

    proposal = Proposal(creator_email="ann@example.com", nonce="p", name="Tortuga",
                        confirm_by=T0 + timedelta(days=1))
    session.add(proposal)
    session.flush()
    rows = [Invitation(proposal_id=proposal.id, position=0, name="Ann", email="ann@example.com",
                       status="accepted", nonce="a"),
            Invitation(proposal_id=proposal.id, position=1, name="Bob", email="bob@example.com",
                       status="invited", nonce="b", expires_at=T0 + timedelta(days=7))]
    session.add_all(rows)
    session.flush()
    letters.queue_confirmation(session, cfg, proposal)  # written at delivery
    letters.queue_invitation(session, cfg, proposal, rows[1], rows)
    letters.queue_declined(session, cfg, proposal, rows[1], rows)
    letters.queue_expired(session, cfg, proposal, [rows[1]], rows)
    letters.queue_bounced(session, cfg, proposal, rows[1], rows)
    letters.queue_proposal_cancelled(session, cfg, proposal, rows[1], rows)
    enqueue(session, cfg, letters.my_games_link_email(cfg, "bob@example.com", "en"))  # as the worker writes it


NEVER_LINK = re.compile(re.escape(LONG_BASE_URL) + r"/never/([\w.-]+)")


def _never_addresses(cfg, text: str) -> set[str]:  # type: ignore[no-untyped-def]
    """The addresses the "never email me again" links in `text` were signed for."""
    return {read_address(cfg, NEVER_SALT, token) for token in NEVER_LINK.findall(text)}


def _assert_raw_never(head: bytes, cfg, address: str) -> None:  # type: ignore[no-untyped-def]
    """The "never email me again" one-click headers, raw, each on one line (no fold)."""
    match = re.search(rb"^List-Unsubscribe: <([^>\r\n]+)>\r?$", head, re.M)
    assert match, head
    assert _never_addresses(cfg, match.group(1).decode()) == {address}
    assert re.search(rb"^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$", head, re.M)


def test_every_email_kind_to_a_player_carries_the_raw_one_click_headers(app, smtp_server):
    """Walks every email kind (every template in email_templates/): each one to a player has
    both headers raw on the wire and says in both bodies how to stop it; the admins' copy of
    a pause has no unsubscribe link and says how to stop it too."""
    from pbem.letters import emails
    from pbem.games.clocks.vacation import take_vacation
    from pbem.games import lifecycle
    from pbem.letters import notify, replies
    from pbem.games.service import seats_of
    from pbem.store import load_state
    from pbem.mail.render import email_names
    from pbem.models import Game

    engine = app.extensions["korsar_db"]
    cfg = replace(app.config["KORSAR"], BASE_URL=LONG_BASE_URL, ADMIN_EMAILS=["boss@example.com"])
    # Rows queued by the game service and lifecycle are stamped with the real clock: they are
    # delivered at utcnow(); reminders at the sweep's instant (after the deadline they are void).
    game_id = start_game(engine, cfg, deadline_hours=10)  # welcome x2, turn
    deliver(engine, cfg, smtp_server, utcnow())
    sweep(engine, cfg, T0 + timedelta(hours=5))  # reminder (written at delivery)
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=5))
    with session_scope(engine) as session:  # the admin's nudge: a reminder outside the ladder
        lifecycle.send_reminder_now(session, cfg, game_id, now=T0 + timedelta(hours=6), actor="admin")
    deliver(engine, cfg, smtp_server, T0 + timedelta(hours=6))
    sweep(engine, cfg, T0 + timedelta(hours=11))  # timeout: timeout_autoplay and the next turn
    deliver(engine, cfg, smtp_server, utcnow())
    later = T0 + timedelta(hours=12)
    with session_scope(engine) as session:
        seats = seats_of(session, game_id)
        take_vacation(session, cfg, game_id, 0, (T0 + timedelta(days=2)).date(),
                      (T0 + timedelta(days=3)).date(), now=later)  # vacation
    with session_scope(engine) as session:
        game, seats = session.get(Game, game_id), seats_of(session, game_id)
        emails.queue_deadline_moved(session, cfg, game, seats[game.to_move], now=later)  # notice
        emails.queue_seat_to_bot(session, cfg, game, seats[0], reason="admin", now=later)
        for kind in ("attacked", "news", "digest"):
            emails.queue_events(session, cfg, game, seats[1], kind, ["Ann drew a card."], now=later)
        emails.queue_paused(session, cfg, game, seats, reason="timeout", now=later)  # + the admin
        emails.queue_resumed(session, cfg, game, seats, now=later)
        state = load_state(game)  # the answers to replies by email, and a partner's long words
        replies.queue_answer(session, cfg, game, seats[0], state, played="Ann drew a card.")
        replies.queue_answer(session, cfg, game, seats[1], state, reason="It is not your turn.")
        replies.queue_heard(session, cfg, game, seats[1], "Ann", "Keep your blue pirates.")
        notify.queue_game_over(session, cfg, game, seats, load_state(game))  # written at delivery
        analysis_letters.queue_ready(session, cfg, game, seats[0])  # to an address that chose it
    with session_scope(engine) as session:  # the emails about no seat: a game being set up
        _queue_every_setup_email(session, cfg)
    deliver(engine, cfg, smtp_server, utcnow())

    raw = _raw_by_message_id(smtp_server)
    with session_scope(engine) as session:
        seats = {s.id: s for s in seats_of(session, game_id)}
    sent = [row for row in mails(engine) if row.status == "sent"]
    assert {row.kind for row in sent} == set(email_names())  # a new kind must be walked here too
    assert not [row for row in mails(engine) if row.status not in ("sent", "cancelled")]
    for row in sent:
        head = raw[row.message_id]
        if row.kind in SETUP_KINDS:  # about no seat: "never email me again" stops all our mail
            _assert_raw_never(head, cfg, row.to_addr)
            for body in (row.text_body, row.html_body):  # its link, for this address
                assert _never_addresses(cfg, body) == {row.to_addr}, row.kind
            assert "Never email me again" in row.text_body, row.kind
            continue
        if row.seat_id is None:  # the admins' copy of the pause
            assert row.to_addr == "boss@example.com" and b"list-unsubscribe" not in head.lower()
            assert "To stop these emails" in row.text_body and "To stop these emails" in row.html_body
            continue
        seat = seats[row.seat_id]
        _assert_raw_one_click(head, cfg, seat)
        url = unsubscribe_url(cfg, seat)
        assert url in row.text_body and url in row.html_body, row.kind  # it says how to stop it
        assert "Stop reminders and event emails" in row.text_body, row.kind


def test_the_prefs_page_turns_reminders_back_on_and_switches_to_the_daily_digest(client, setup,
                                                                                 monkeypatch):
    import pbem.web.prefs as prefs
    from pbem.links import sign_seat

    monkeypatch.setattr(prefs, "utcnow", lambda: T0)

    engine, cfg, game_id = setup
    seat = mover(engine, game_id)
    page = f"/g/{sign_seat(cfg, game_id, seat.position, seat.link_nonce)}"
    client.post(f"/u/{sign_unsubscribe(cfg, seat)}")
    assert game_row(engine, game_id).next_reminder_at is None
    assert client.post(page + "/reminders", data={"reminders": "on"}).status_code == 303
    assert not seat_row(engine, game_id, seat.position).unsubscribed
    assert game_row(engine, game_id).next_reminder_at is not None
    assert client.post(page + "/digest", data={"digest": "on"}).status_code == 303
    assert seat_row(engine, game_id, seat.position).digest
    assert "one digest a day" in client.get(page + "/prefs").get_data(as_text=True)


@pytest.mark.parametrize("path", ["/g/garbage/prefs", "/g/garbage/digest", "/g/garbage/reminders",
                                  "/g/garbage/vacation"])
def test_a_damaged_prefs_link_is_refused_and_changes_nothing(client, setup, path):
    engine, cfg, game_id = setup
    response = client.post(path, data={"digest": "on"}) if not path.endswith("prefs") else client.get(path)
    assert response.status_code == 400
    assert "Nothing was changed" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, mover(engine, game_id).position).digest


def test_unsubscribe_tokens_never_reach_a_log_line(setup):
    from pbem.logging import redact

    engine, cfg, game_id = setup
    token = sign_unsubscribe(cfg, mover(engine, game_id))
    assert token not in redact(f"POST /u/{token} 200")


def test_a_change_of_address_revokes_the_old_owners_unsubscribe_link(app, client):
    from pbem.games import lifecycle

    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    game_id = start_game(engine, cfg)
    seat = mover(engine, game_id)
    old_link = "/u/" + sign_unsubscribe(cfg, seat)
    with session_scope(engine) as session:
        lifecycle.change_seat_email(session, cfg, game_id, seat.position, "new@example.com",
                                    now=T0, actor="admin@example.com")
    for method in (client.get, client.post):
        response = method(old_link)
        assert response.status_code == 403 and "older address" in response.get_data(as_text=True)
    assert not seat_row(engine, game_id, seat.position).unsubscribed


def test_the_unsubscribe_link_of_a_deleted_game_says_the_game_is_gone(client, setup):
    from sqlalchemy import delete

    from pbem.models import Game, Notice, OutboxMessage, Seat

    engine, cfg, game_id = setup
    link = "/u/" + sign_unsubscribe(cfg, mover(engine, game_id))
    with session_scope(engine) as session:
        for table in (Notice, OutboxMessage, Seat):
            session.execute(delete(table).where(table.game_id == game_id))
        session.execute(delete(Game).where(Game.id == game_id))
    for method in (client.get, client.post):
        response = method(link)
        assert response.status_code == 404 and "does not exist any more" in response.get_data(as_text=True)
