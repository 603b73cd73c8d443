"""A bounce that comes back without its VERP token (issue 26): some servers send their report to
the From address, or to the bounce address stripped of its tag. Its failed recipient
(flufl.bounce: a DSN's Final-Recipient) is then matched to an email we sent lately, and only a
permanent failure (5.x.x) of an address we actually mailed marks it; anything else is counted
and logged by the address's domain only; a token of our shape that does not verify still
changes nothing. And the table is told of a bouncing seat by its mailbox, however it is spelled."""
from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from bounce_helpers import bounces_of, is_undeliverable, sample, sent_email
from clockkit import T0, make_cfg, start_game
from prometheus_client import REGISTRY
from sqlmodel import select

from pbem import metrics
from pbem.db import session_scope
from pbem.games.bounced import announce_marks
from pbem.inbound.bounces import UNTAGGED_WINDOW
from pbem.inbound.handler import handle_message
from pbem.mail import undeliverable
from pbem.mail.verp import bounce_address
from pbem.models import Notice, OutboxMessage, Seat, utcnow
from pbem.models_mail import BounceKind

FAILED = "userx@example.com"  # dsn_01's Final-Recipient: a 5.x.x
DELAYED = "userx@example.cz"  # dsn_05's: a 4.x.x


@pytest.fixture
def cfg(database_url):
    return make_cfg(database_url)


def untagged(name: str, to: str = "korsar@korsar.test", tag: str = "") -> bytes:
    """A real sample as it reaches the From mailbox (IMAP: no envelope), its To our address."""
    raw = sample(name)
    head, sep, body = raw.partition(b"\r\n\r\n")
    # Keep folded continuation lines of other headers: drop only the original To (folded or not).
    kept = _without_header(head, b"to")
    return kept + f"\r\nTo: {to}{tag}".encode() + sep + body


def _without_header(head: bytes, name: bytes) -> bytes:
    out: list[bytes] = []
    skipping = False
    for line in head.split(b"\r\n"):
        if line[:1] in (b" ", b"\t"):
            if not skipping:
                out.append(line)
            continue
        skipping = line.lower().startswith(name + b":")
        if not skipping:
            out.append(line)
    return b"\r\n".join(out)


def ignored(reason: str) -> float:
    return REGISTRY.get_sample_value("korsar_bounce_mail_ignored_total",
                                     {"reason": metrics.reason_label(reason)}) or 0.0


NOT_MAILED = "no bounce token and no failed address we mailed lately: nothing changed"


def test_a_permanent_bounce_to_the_from_address_marks_the_address_we_mailed(engine, cfg):
    row_id = sent_email(engine, FAILED)
    handled = handle_message(engine, cfg, untagged("dsn_01.txt"))
    assert handled.outcome == "bounce" and "undeliverable" in handled.reason
    [bounce] = bounces_of(engine, FAILED)
    assert (bounce.kind, bounce.outbox_id, bounce.undeliverable) == (BounceKind.PERMANENT, row_id, True)
    assert is_undeliverable(engine, FAILED)


@pytest.mark.parametrize("stripped", ["bounce@korsar.test", "bounce+@korsar.test", "bounce+17@korsar.test",
                                      "bounce+17-@korsar.test"])
def test_a_bounce_address_stripped_of_its_tag_falls_back_on_the_report(engine, cfg, stripped):
    sent_email(engine, FAILED)
    handle_message(engine, cfg, untagged("dsn_01.txt", to=stripped))
    assert is_undeliverable(engine, FAILED)


def test_an_address_we_did_not_mail_is_counted_and_logged_without_its_local_part(engine, cfg, caplog):
    sent_email(engine, "someone.else@example.com")
    before = ignored(NOT_MAILED)
    with caplog.at_level(logging.INFO, logger="pbem.inbound"):
        handled = handle_message(engine, cfg, untagged("dsn_01.txt"))
    assert (handled.outcome, handled.reason) == ("ignored", NOT_MAILED)
    assert ignored(NOT_MAILED) == before + 1
    assert bounces_of(engine, FAILED) == [] and not is_undeliverable(engine, FAILED)
    assert "example.com" in caplog.text and "userx" not in caplog.text


def test_an_address_we_mailed_before_the_window_is_not_marked(engine, cfg):
    sent_email(engine, FAILED)
    later = utcnow() + UNTAGGED_WINDOW + timedelta(hours=1)
    assert handle_message(engine, cfg, untagged("dsn_01.txt"), now=later).outcome == "ignored"
    assert bounces_of(engine, FAILED) == []


def test_an_email_we_only_queued_is_no_email_we_sent(engine, cfg):
    with session_scope(engine) as session:
        session.add(OutboxMessage(kind="turn", to_addr=FAILED, subject="s", text_body="-", html_body="",
                                  message_id="<queued@korsar.test>"))
    assert handle_message(engine, cfg, untagged("dsn_01.txt")).outcome == "ignored"
    assert not is_undeliverable(engine, FAILED)


def test_a_temporary_failure_without_a_token_is_counted_and_changes_nothing(engine, cfg):
    sent_email(engine, DELAYED)
    reason = "no bounce token and no permanent failure in it: nothing changed"
    before = ignored(reason)
    assert handle_message(engine, cfg, untagged("dsn_05.txt")).reason == reason
    assert ignored(reason) == before + 1
    assert bounces_of(engine, DELAYED) == []


@pytest.mark.parametrize("tamper", ["another row's number", "a changed signature", "another key"])
def test_a_tampered_token_still_changes_nothing_even_for_an_address_we_mailed(engine, cfg, tamper):
    row_id = sent_email(engine, FAILED)
    good = bounce_address(cfg, row_id)
    local, domain = good.split("@")
    if tamper == "another row's number":
        address = local.replace(f"+{row_id}-", f"+{row_id + 1}-") + "@" + domain
    elif tamper == "a changed signature":
        address = local[:-1] + ("a" if local[-1] != "a" else "b") + "@" + domain
    else:
        address = bounce_address(type(cfg)(**{**cfg.__dict__, "SECRET_KEY": "another-secret"}), row_id)
    handled = handle_message(engine, cfg, untagged("dsn_01.txt", to=address))
    assert handled.outcome == "ignored" and "verifies" in handled.reason
    assert bounces_of(engine, FAILED) == [] and not is_undeliverable(engine, FAILED)


def test_the_verified_token_still_comes_first(engine, cfg):
    """A report with a good token marks the address of the email it names, not its Final-Recipient."""
    sent_email(engine, FAILED)
    named = sent_email(engine, "named@example.org")
    handle_message(engine, cfg, untagged("dsn_01.txt", to=bounce_address(cfg, named)))
    assert is_undeliverable(engine, "named@example.org") and not is_undeliverable(engine, FAILED)


# ---------------------------------------------------------------- the table, by mailbox
def test_the_tables_of_every_spelling_of_a_bouncing_mailbox_are_told(engine, cfg):
    """The bounce names `a.nn+korsar@gmail.com`; the seats typed `Ann@gmail.com` and
    `a.n.n+games@googlemail.com` are the same mailbox: their tables are told too."""
    spellings = ["a.nn+korsar@gmail.com", "Ann@gmail.com", "a.n.n+games@googlemail.com"]
    games = [start_game(engine, cfg, players=[f"Ann <{s}>", "Bob <bob@example.com>"]) for s in spellings]
    other = start_game(engine, cfg, players=["Ann <ann2@gmail.com>", "Bob <bob@example.com>"])
    with session_scope(engine) as session:
        undeliverable.record(session, spellings[0], BounceKind.PERMANENT, "5.1.1", outbox_id=None, now=T0)
    with session_scope(engine) as session:
        assert announce_marks(session, cfg, now=T0) == 1
    with session_scope(engine) as session:
        told = set(session.exec(select(Notice.game_id).join(Seat, Seat.id == Notice.seat_id)
                                .where(Notice.kind == "news", Seat.email == "bob@example.com")).all())
    assert told == set(games) and other not in told


def test_the_latest_email_to_a_failed_address_is_found_by_index_not_by_a_scan(engine, cfg):
    """A report without a token costs an index look-up per failed address, not a read of the
    whole outbox (on a million rows: ~200 ms a look-up by a scan, ~1 ms by ix_outbox_to_addr_lower)."""
    from sqlalchemy import event

    from pbem.inbound.bounces import _latest_sent
    if engine.dialect.name != "sqlite":
        pytest.skip("the plan is read with SQLite's EXPLAIN QUERY PLAN")
    seen: list[tuple[str, object]] = []

    def record(_conn, _cursor, statement, params, _context, _many):  # noqa: ANN001, ANN202
        seen.append((statement, params))
    event.listen(engine, "before_cursor_execute", record)
    with session_scope(engine) as s:
        _latest_sent(s, FAILED, utcnow())
    event.remove(engine, "before_cursor_execute", record)
    [(statement, params)] = [(q, p) for q, p in seen if "FROM outbox" in q]
    with engine.connect() as connection:
        plan = " ".join(str(r[-1]) for r in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {statement}", params))
    assert "ix_outbox_to_addr_lower" in plan, plan
