"""Bounces and complaints, received by SMTP at the signed bounce address of the email that
failed (issue 26): the real bounce samples flufl.bounce ships, each marking the address it names
with the kind it names; tokens that do not verify change nothing; complaints put the address on
the never-list."""
from __future__ import annotations

import smtplib

import pytest
from bounce_helpers import bounces_of, complaint, is_undeliverable, sample, samples, sent_email
from game_helpers import cfg_of, db_of, seats, start_game
from inbound_helpers import receiver, send  # noqa: F401  (receiver: a fixture)

from pbem import links
from pbem.db import session_scope
from pbem.mail import suppression
from pbem.mail.verp import bounce_address

SAMPLES = samples()


@pytest.mark.parametrize("name, address, kind", SAMPLES, ids=[s[0].removesuffix(".txt") for s in SAMPLES])
def test_a_real_bounce_marks_the_address_of_the_email_it_names(app, receiver, name, address, kind):
    row_id = sent_email(app, address.lower())
    send(receiver, sample(name), sender="", rcpts=[bounce_address(cfg_of(app), row_id)])
    [bounce] = bounces_of(db_of(app), address)
    assert (bounce.kind, bounce.outbox_id) == (kind, row_id)
    assert is_undeliverable(db_of(app), address) is (kind == "permanent")


def test_three_temporary_failures_in_a_week_make_the_address_undeliverable(app, receiver):
    address = "userx@example.cz"  # dsn_05: "delayed", a 4.x.x
    for attempt in range(3):
        assert not is_undeliverable(db_of(app), address), attempt
        row_id = sent_email(app, address)
        # Each report its own (the same Message-ID acts once).
        raw = sample("dsn_05.txt").replace(b"Message-Id: <", f"Message-Id: <{attempt}.".encode(), 1)
        send(receiver, raw, sender="", rcpts=[bounce_address(cfg_of(app), row_id)])
    assert [b.kind for b in bounces_of(db_of(app), address)] == ["temporary"] * 3
    assert is_undeliverable(db_of(app), address)


@pytest.mark.parametrize("tamper", ["another row's number", "a changed signature", "another key"])
def test_a_bounce_token_that_does_not_verify_changes_nothing(app, receiver, tamper):
    cfg = cfg_of(app)
    row_id = sent_email(app, "userx@example.com")
    good = bounce_address(cfg, row_id)
    local, domain = good.split("@")
    if tamper == "another row's number":
        address = local.replace(f"+{row_id}-", f"+{row_id + 1}-") + "@" + domain
    elif tamper == "a changed signature":
        address = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    else:
        address = bounce_address(type(cfg)(**{**cfg.__dict__, "SECRET_KEY": "another-secret"}), row_id)
    with pytest.raises(smtplib.SMTPRecipientsRefused):
        send(receiver, sample("dsn_01.txt"), sender="", rcpts=[address])
    assert bounces_of(db_of(app), "userx@example.com") == []


def test_a_delivery_report_to_a_reply_address_changes_nothing(app, receiver):
    """A report that reaches a reply address (not a bounce address) names no email of ours."""
    game_id = start_game(app, ["Ann <userx@example.com>", "Bob <bob@example.com>"])
    ann = seats(app, game_id)[0]
    reply = links.reply_address(cfg_of(app), game_id, 0, ann.link_nonce, 0)
    send(receiver, sample("dsn_01.txt"), sender="", rcpts=[reply])
    assert bounces_of(db_of(app), "userx@example.com") == []
    assert not is_undeliverable(db_of(app), "userx@example.com")


def test_an_abuse_complaint_puts_the_address_on_the_never_list(app, receiver):
    row_id = sent_email(app, "hal@example.org")
    send(receiver, complaint("hal@example.org"), sender="", rcpts=[bounce_address(cfg_of(app), row_id)])
    with session_scope(db_of(app)) as session:
        assert suppression.is_suppressed(session, "hal@example.org")
    assert [b.kind for b in bounces_of(db_of(app), "hal@example.org")] == ["complaint"]


def test_a_feedback_report_that_is_no_abuse_complaint_changes_nothing(app, receiver):
    row_id = sent_email(app, "hal@example.org")
    send(receiver, complaint("hal@example.org", feedback_type="not-spam"), sender="",
         rcpts=[bounce_address(cfg_of(app), row_id)])
    with session_scope(db_of(app)) as session:
        assert not suppression.is_suppressed(session, "hal@example.org")
    assert bounces_of(db_of(app), "hal@example.org") == []
