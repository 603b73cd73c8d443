"""Bounces arrive by IMAP too (issue 26): the `inbound` IMAP poller, against the real Dovecot of
the IMAP tests, picks a delivery report out of the mailbox and marks the address it names, by
its VERP token or, without one (a report sent to the From address), by its Final-Recipient."""
from __future__ import annotations

import pytest
from bounce_helpers import bounces_of, is_undeliverable, sent_email
from game_helpers import cfg_of, db_of
from test_bounces_untagged import FAILED, untagged
from test_inbound_imap import DOVECOT, _fill, _poll, _unseen, dovecot  # noqa: F401  (dovecot: a fixture)

from pbem.mail.verp import bounce_address
from pbem.models_mail import BounceKind

pytestmark = pytest.mark.skipif(DOVECOT is None, reason="Dovecot is not installed (apt-get install dovecot-imapd)")


def test_a_report_to_the_bounce_address_in_the_imap_mailbox_marks_the_address(app, dovecot):
    row_id = sent_email(app, FAILED)
    report = untagged("dsn_01.txt", to=bounce_address(cfg_of(app), row_id))
    _fill(dovecot, report, report)  # delivered twice: acts once
    assert _poll(app, dovecot) == 2
    [bounce] = bounces_of(db_of(app), FAILED)
    assert (bounce.kind, bounce.outbox_id) == (BounceKind.PERMANENT, row_id)
    assert is_undeliverable(db_of(app), FAILED)
    assert _unseen(dovecot) == 0


def test_a_report_to_the_from_address_in_the_imap_mailbox_marks_the_address_we_mailed(app, dovecot):
    row_id = sent_email(app, FAILED)
    _fill(dovecot, untagged("dsn_01.txt"))
    assert _poll(app, dovecot) == 1
    assert [b.outbox_id for b in bounces_of(db_of(app), FAILED)] == [row_id]
    assert is_undeliverable(db_of(app), FAILED)


def test_a_report_with_a_tampered_token_in_the_imap_mailbox_changes_nothing(app, dovecot):
    row_id = sent_email(app, FAILED)
    good = bounce_address(cfg_of(app), row_id)
    _fill(dovecot, untagged("dsn_01.txt", to=good.replace(f"+{row_id}-", f"+{row_id + 1}-")))
    assert _poll(app, dovecot) == 1
    assert bounces_of(db_of(app), FAILED) == [] and _unseen(dovecot) == 0
