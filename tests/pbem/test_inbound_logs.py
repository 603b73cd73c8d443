"""The receivers' logs never hold a signed token, a whole reply address, a whole sender address
or a line of an email: not ours, not aiosmtpd's (`mail.log` logs every command line at INFO
and every line of DATA at DEBUG), not in the production JSON lines nor in any other handler."""
from __future__ import annotations

import io
import logging
import re

import pytest
from game_helpers import deliver, start_game
from inbound_helpers import game_state, latest, receiver, reply_to, send  # noqa: F401

from pbem.inbound import smtp as inbound_smtp
from pbem.logging import JsonFormatter, redact

ANN, BOB = "ann@example.com", "bob@example.com"
MARKER = "a-line-only-the-writer-typed"
MOVE_LINK = re.compile(r"http://korsar\.test/m/(\S+)")


@pytest.fixture
def every_log(caplog):
    """Every record of every logger at DEBUG, both as a plain handler (caplog) and as the
    production JSON lines write it."""
    json_lines = io.StringIO()
    handler = logging.StreamHandler(json_lines)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    caplog.set_level(logging.DEBUG)
    yield lambda: caplog.text + "\n".join(r.getMessage() for r in caplog.records) + json_lines.getvalue()
    root.removeHandler(handler)


def _secrets(turn, reply_address: str) -> list[str]:
    local = reply_address.split("@")[0]
    tokens = MOVE_LINK.findall(turn.get_body(preferencelist=("plain",)).get_content())
    assert tokens, "the turn email has move links"
    return [reply_address, local, local.removeprefix("play+"), ANN, *tokens, MARKER]


def test_a_reply_through_the_receiver_leaves_no_token_address_or_line_of_it_in_the_logs(
        app, smtp_server, receiver, every_log):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    address = str(turn["Reply-To"])
    send(receiver, reply_to(turn, ANN, f"draw\n{MARKER}"))
    assert game_state(app, game_id)[1].version == 1
    logged = every_log()
    assert re.search(r"rcpt to:<play\+\[token\]@korsar\.test>", logged, re.I)  # aiosmtpd's line, redacted
    for secret in _secrets(turn, address):
        assert secret not in logged


def test_a_failure_while_handling_a_reply_logs_where_but_not_the_text_of_its_error(
        app, smtp_server, receiver, every_log, monkeypatch):
    start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    address = str(turn["Reply-To"])

    def broken(db, cfg, raw, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError(f"INSERT ... parameters: ({address!r}, {raw.decode(errors='replace')!r})")

    monkeypatch.setattr(inbound_smtp, "handle_message", broken)
    with pytest.raises(Exception, match="554"):
        send(receiver, reply_to(turn, ANN, f"draw\n{MARKER}"))
    logged = every_log()
    assert "RuntimeError" in logged and "test_inbound_logs.py" in logged  # what failed, and where
    for secret in _secrets(turn, address):
        assert secret not in logged


@pytest.mark.parametrize("text, expected", [
    ("RCPT TO:<play+12-0-3-abcdefghijklmnop@korsar.test>", "RCPT TO:<play+[token]@korsar.test>"),
    ("b'RCPT TO:<PLAY+12-0-3-ABCDEFGHIJKLMNOP@KORSAR.TEST> SIZE=9'", "b'RCPT TO:<play+[token]@KORSAR.TEST> SIZE=9'"),
    ("MAIL FROM:<ann.smith+games@example.com>", "MAIL FROM:<a***@example.com>"),
    ("From: Ann <ann@example.com>, bob@sub.example.org", "From: Ann <a***@example.com>, b***@sub.example.org"),
    ("token 12-0-3-abcdefghijklmnop alone", "token [token] alone"),
    ("élodie@exämple.fr", "é***@exämple.fr"),
    ("('127.0.0.1', 50124) >> b'NOOP'", "('127.0.0.1', 50124) >> b'NOOP'"),
    ("score 12-0 at 10:30, version 3-4", "score 12-0 at 10:30, version 3-4"),
], ids=["reply-address", "upper-case", "sender", "header", "bare-token", "unicode", "peer", "plain-numbers"])
def test_redact_hides_reply_tokens_and_addresses_and_leaves_other_words(text, expected):
    assert redact(text) == expected


def test_redacting_a_long_line_without_an_address_costs_one_pass():
    line = "a" * 200_000 + " " + "b." * 100_000
    assert redact(line) == line  # (a scan from every character, as before, took over a minute here)
