"""Bounces and complaints, received by SMTP at the signed bounce address of the email that
failed (issue 26): the real bounce samples flufl.bounce ships, each marking the address it names
with the kind it names; tokens that do not verify change nothing; complaints put the address on
the never-list."""
from __future__ import annotations

import os
import smtplib
import subprocess

import pytest
from bounce_helpers import bounces_of, complaint, is_undeliverable, sample, samples, sent_email
from game_helpers import cfg_of, db_of, make_cfg, seats, start_game
from inbound_helpers import receiver, send  # noqa: F401  (receiver: a fixture)
from smtp_fakes import free_port
from test_inbound_process import ROOT, procfile_command

from pbem import links
from pbem.db import make_engine, session_scope
from pbem.devserver import wait_for_port
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


@pytest.mark.slow
def test_every_sample_sent_to_the_procfiles_inbound_process_marks_its_address(database_url, tmp_path):
    """The Procfile's `inbound:` process itself, fed every sample over SMTP connections."""
    cfg = make_cfg(database_url)
    engine = make_engine(database_url)
    rows = [(name, address, kind, sent_email(engine, address.lower())) for name, address, kind in SAMPLES]
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": cfg.SECRET_KEY, "BASE_URL": cfg.BASE_URL,
           "MAIL_FROM": cfg.MAIL_FROM, "INBOUND_PORT": str(port), "IMAP_URL": "", "KORSAR_ENV": "development"}
    log = tmp_path / "inbound.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(procfile_command("inbound"), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert wait_for_port("127.0.0.1", port, 120, proc), log.read_text()[-2000:]
        for name, _address, _kind, row_id in rows:
            send(port, sample(name), sender="", rcpts=[bounce_address(cfg, row_id)])
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    stored = {b.outbox_id: b.kind for _, address, _, _ in rows for b in bounces_of(engine, address)}
    assert {name: stored.get(row_id) for name, _, _, row_id in rows} == {name: kind for name, _, kind, _ in rows}
    for name, address, kind, _row_id in rows:  # several samples name one address: any permanent marks it
        assert kind != "permanent" or is_undeliverable(engine, address), name
    engine.dispose()
