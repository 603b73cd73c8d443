"""Notices keep their promises and read right: the resume email the pause email promised, no
"your ship was attacked" email beside a turn email with the same news, one plural rule, the
"[Korsar] " prefix on every subject, vacation dates in each reader's zone and the turn email's
format, long subjects folded without an empty first line, the demo game in the audit log."""
from __future__ import annotations

import html
import os
from datetime import timedelta
from email import message_from_bytes, policy

import pytest
from clockkit import T0, mails, seat_row, start_game, sweep
from game_helpers import deck_with_hands
from sqlmodel import select

from pbem import links
from pbem.db import session_scope
from pbem.games import errors, lifecycle, service
from pbem import store
from pbem.games.clocks import vacation
from pbem.games.notices import record_attacks
from pbem.letters import notify
from pbem.mail.mime import build_message
from pbem.mail.render import email_names, render_email, render_subject
from pbem.models import Notice, OutboxMessage
from pbem.words import number, plural

ANN, BOB, CID = "Ann <ann@example.com>", "Bob <bob@example.com>", "Cid <cid@example.com>"


# ---------------------------------------------------------------- the resume email
def test_every_player_is_emailed_when_the_game_resumes(engine, cfg):
    game_id = start_game(engine, cfg, players=[ANN, BOB, CID])
    with session_scope(engine) as s:
        lifecycle.pause_game(s, cfg, game_id, now=T0, actor="admin")
    assert "you will get an email then" in mails(engine, "paused", "bob@example.com")[0].text_body
    with session_scope(engine) as s:
        lifecycle.resume_game(s, cfg, game_id, now=T0 + timedelta(hours=1), actor="admin")
    resumed = {m.to_addr: m for m in mails(engine, "resumed")}
    assert set(resumed) == {"ann@example.com", "bob@example.com", "cid@example.com"}
    assert resumed["bob@example.com"].subject.startswith("[Korsar] ")
    assert "Ann is to move" in resumed["bob@example.com"].text_body
    assert "It is your turn" in resumed["ann@example.com"].text_body


# ---------------------------------------------------------------- attacks told by a turn email
def _attack_game(engine, cfg, players):
    """Ann plays M5 (ship 1); Bob attacks it with Blue 3."""
    deck = deck_with_hands(["M5", "G1", "G2", "R1", "R2", "K1"], ["B3", "B1", "M2", "M3", "B2", "K2"],
                           ["M4", "G3", "G4", "R3", "R4", "K3"])
    with session_scope(engine) as s:
        game_id = service.create_game(s, cfg, players, deck=deck, now=T0).id
    with session_scope(engine) as s:
        service.apply_game_move(s, cfg, game_id, 0, {"action": "play", "card": "M5"}, now=T0)
    with session_scope(engine) as s:
        service.apply_game_move(s, cfg, game_id, 1, {"action": "play", "card": "B3", "target": 1}, now=T0)
    return game_id


def test_no_attack_email_when_the_owners_turn_email_tells_the_attack(engine, cfg):
    _attack_game(engine, cfg, [ANN, BOB])  # Ann moves next: her turn email says it
    sweep(engine, cfg, T0 + timedelta(minutes=5))
    assert mails(engine, "attacked") == []


def test_an_attack_email_goes_when_no_turn_email_tells_the_owner(engine, cfg):
    _attack_game(engine, cfg, [ANN, BOB, CID])  # Cid moves next, not Ann
    sweep(engine, cfg, T0 + timedelta(minutes=5))
    (email,) = mails(engine, "attacked", "ann@example.com")
    assert "Bob played Blue 3 on your ship 1 (5 gold)." in email.text_body


@pytest.mark.parametrize("after,emailed", [(timedelta(seconds=40), False), (timedelta(minutes=3), True)])
def test_an_attack_notice_is_dropped_for_a_turn_email_queued_within_the_minute(engine, cfg, after, emailed):
    game_id = start_game(engine, cfg, players=[ANN, BOB, CID])
    event = {"kind": "pirate", "seat": 1, "card": "B3", "ship": 1, "owner": 2, "value": 5, "attack": True}
    with session_scope(engine) as s:
        game = service.lock_game_with_seats(s, game_id)[0]
        record_attacks(s, cfg, game, service.seats_of(s, game_id), [event], T0)
    with session_scope(engine) as s:  # a turn email to Cid soon after (a bot's move in between)
        game = service.lock_game_with_seats(s, game_id)[0]
        cid = service.seats_of(s, game_id)[2]
        notify.queue_turn_email(s, cfg, game, cid, store.load_state(game), now=T0 + after)
    sweep(engine, cfg, T0 + timedelta(minutes=5))
    assert bool(mails(engine, "attacked", "cid@example.com")) is emailed
    with session_scope(engine) as s:
        (notice,) = s.exec(select(Notice).where(Notice.kind == "attacked")).all()
    assert notice.status == ("sent" if emailed else "dropped")


# ---------------------------------------------------------------- one plural rule
@pytest.mark.parametrize("n,word,text", [(1, "card", "1 card"), (0, "card", "0 cards"), (2, "card", "2 cards"),
                                         (14.0, "vacation day", "14 vacation days"), (1.0, "day", "1 day"),
                                         (2.5, "day", "2.5 days"), (1, "try", "1 try"), (3, "try", "3 tries")])
def test_one_plural_rule(n, word, text):
    assert plural(n, word) == text


def test_a_whole_number_of_days_has_no_decimal_point():
    assert number(14.0) == "14" and number(0.5) == "0.5" and number(3) == "3"


def test_the_prefs_page_reads_14_vacation_days_not_14_point_0(engine, cfg, client, app):
    db = app.extensions["korsar_db"]
    game_id = start_game(db, app.config["KORSAR"])
    seat = seat_row(db, game_id, 0)
    token = links.sign_seat(app.config["KORSAR"], game_id, 0, seat.link_nonce)
    page = client.get(f"/g/{token}/prefs").get_data(as_text=True)
    assert "14 vacation days" in page and "14.0" not in page


def test_a_refused_vacation_counts_its_days_in_words(engine, cfg):
    game_id = start_game(engine, cfg)
    with session_scope(engine) as s, pytest.raises(errors.GameError) as info:
        vacation.take_vacation(s, cfg, game_id, 0, (T0 + timedelta(days=1)).date(),
                               (T0 + timedelta(days=20)).date(), now=T0)
    assert info.value.message == "That is 20 days, but you have only 14 vacation days left in this game."


# ---------------------------------------------------------------- subjects
def test_every_email_subject_starts_with_the_korsar_prefix():
    context = {"game": {"name": "Friday"}, "board": {"you": "Ann"}, "subject": "Friday: the game was stopped",
               "creator": {"name": "Ann", "email": "ann@example.com"}, "missing": "Bob"}
    for name in email_names():
        assert render_subject(name, context).startswith("[Korsar] "), name


def test_the_abort_email_has_the_prefix(engine, cfg):
    game_id = start_game(engine, cfg)
    with session_scope(engine) as s:
        lifecycle.abort_game(s, cfg, game_id, now=T0, actor="admin", reason="testing")
    subjects = [m.subject for m in mails(engine, "notice")]
    assert len(subjects) == 2 and all(s.startswith("[Korsar] ") and s.endswith(": the game was stopped")
                                      for s in subjects)


@pytest.mark.parametrize("subject", [
    "[Korsar] Friday-night-table-with-a-name-that-never-stops-anywhere-at-all-zoë: your turn, Zoë",
    "Zoë-and-the-pirates-of-the-very-long-name-that-does-not-break-at-any-space-at-all 🏴\u200d☠️ turn",
    "x" * 90 + " Zoë",
])
def test_a_long_subject_is_folded_without_an_empty_first_line(engine, cfg, subject):
    row = OutboxMessage(kind="notice", to_addr="ann@example.com", subject=subject, text_body="x",
                        html_body="", message_id="<1@korsar.test>", created_at=T0)
    message, _ = build_message(row, cfg)
    raw = message.as_bytes()
    head = raw.split(b"\r\n\r\n", 1)[0]
    (first,) = [line for line in head.split(b"\r\n") if line.startswith(b"Subject:")]
    assert first.strip() != b"Subject:"
    assert all(len(line) <= 998 for line in head.split(b"\r\n"))
    assert message_from_bytes(raw, policy=policy.default)["Subject"] == subject


# ---------------------------------------------------------------- vacation dates
def test_the_tables_vacation_news_is_in_each_readers_zone_and_the_turn_emails_format(engine, cfg):
    game_id = start_game(engine, cfg, players=[ANN, BOB, CID])
    with session_scope(engine) as s:
        seats = service.seats_of(s, game_id)
        seats[1].timezone, seats[2].timezone = "Asia/Tokyo", "America/New_York"
        for seat in seats:
            s.add(seat)
    with session_scope(engine) as s:
        vacation.take_vacation(s, cfg, game_id, 0, (T0 + timedelta(days=2)).date(),
                               (T0 + timedelta(days=3)).date(), now=T0)
    with session_scope(engine) as s:
        ann = service.seats_of(s, game_id)[0]
        notices = {n.seat_id: n.text for n in s.exec(select(Notice).where(Notice.kind == "news"))}
        for reader in service.seats_of(s, game_id)[1:]:
            text = notices[reader.id]
            # the days away as Ann typed them, first and last inclusive (finding 17 of the review)
            assert "from Wednesday, January 14 to Thursday, January 15, 2026 inclusive" in text
        assert ann.id not in notices


# ---------------------------------------------------------------- admin and pages
def test_the_new_game_form_and_the_seat_actions_read_right(admin_client, admin_app):
    from game_helpers import start_game as start

    game_id = start(admin_app, [ANN, BOB], seed=3)
    page = html.unescape(admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True))
    assert "data-confirm=\"Hand Ann's seat to the bot?" in page
    assert page.count("Change email, hand to bot") == 2
    admin_client.post(f"/admin/games/{game_id}/seats/0/bot", data={"bot": "greedy"})
    page = html.unescape(admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True))
    assert page.count("Change email, give the seat back") == 1 and page.count("Change email, hand to bot") == 1


def test_player_pages_have_a_favicon_to_serve(client):
    response = client.get("/static/favicon.svg")
    assert response.status_code == 200 and b"<svg" in response.data


def test_the_demo_games_creation_is_in_the_audit_log_once(tmp_path, database_url, monkeypatch):
    from pbem.db import make_engine
    from pbem.devserver import DevSettings, apply_environment, ensure_demo
    from pbem.models import AuditLog

    monkeypatch.setattr(os, "environ", {**os.environ, "DATABASE_URL": database_url})
    settings = DevSettings(var_dir=tmp_path, web_port=5999, catcher_port=8999, reload=False)
    apply_environment(settings)
    first, _second = ensure_demo(settings), ensure_demo(settings)
    db = make_engine(database_url)
    try:
        with session_scope(db) as s:
            rows = [(a.actor, a.action, a.game_id) for a in s.exec(select(AuditLog))
                    if a.action == "create_game"]
    finally:
        db.dispose()
    assert rows == [("devserver", "create_game", first["game_id"])]


def test_one_attack_reads_your_ship_was_attacked_and_several_your_ships(app):
    context = {"game": {"id": 1, "name": "G"}, "game_url": "http://korsar.test/g/x",
               "unsubscribe_url": "http://korsar.test/u/x"}
    one = render_email("attacked", "ann@example.com", {**context, "lines": ["Bob played Blue 3 on your ship 1."]})
    two = render_email("attacked", "ann@example.com", {**context, "lines": ["a.", "b."]})
    assert "Your ship was attacked:" in one.text_body and "Your ship was attacked:" in one.html_body
    assert "Your ships were attacked:" in two.text_body and "Your ships were attacked:" in two.html_body


def test_the_admin_pages_count_with_the_plural_rule(admin_client, admin_app):
    from game_helpers import start_game as start

    game_id = start(admin_app, [ANN, BOB], seed=3)
    with session_scope(admin_app.extensions["korsar_db"]) as s:
        ann = service.seats_of(s, game_id)[0]
        ann.timeouts = 1
        s.add(ann)
    page = html.unescape(admin_client.get(f"/admin/games/{game_id}").get_data(as_text=True))
    assert "1 timeout" in page and "1 timeouts" not in page
