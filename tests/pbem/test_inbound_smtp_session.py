"""The SMTP receiver's codes and bounds, over real sockets: what a sender hears for each kind of
message (550 for an address not ours, 452 past the recipients cap, a rejected message's 5xx, 451
only when the database is away, 554 for anything else), the caps on connections, idle time,
session length, command and DATA lines and messages per connection, and STARTTLS offered with a
certificate and not without."""
from __future__ import annotations

import email.policy
import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
import trustme
from game_helpers import deliver, make_cfg, start_game
from smtp_fakes import free_port
from sqlalchemy.exc import DataError, DBAPIError, IntegrityError, InterfaceError, OperationalError
from inbound_helpers import game_state, latest, reply_to

from pbem.config import Config
from pbem.inbound import smtp as inbound_smtp
from pbem.inbound.handler import Handled
from pbem.inbound.bounds import Rejected, TooLarge

ANN, BOB = "ann@example.com", "bob@example.com"
OURS = "play+1-0-0-abcdefghijklmnop@korsar.test"  # the shape of a reply address (not verified here)


class Calls:
    """A stand-in for `handle_message`: records each message, then answers with `outcome()`."""

    def __init__(self, outcome: Callable[[], Handled] = lambda: Handled("ignored", "test")) -> None:
        self.raw: list[bytes] = []
        self.outcome = outcome

    def __call__(self, db, cfg, raw: bytes, **kwargs) -> Handled:  # type: ignore[no-untyped-def]
        self.raw.append(raw)
        return self.outcome()


@pytest.fixture
def calls(monkeypatch) -> Calls:
    recorder = Calls()
    monkeypatch.setattr(inbound_smtp, "handle_message", recorder)
    return recorder


@pytest.fixture
def start(calls) -> Iterator[Callable[..., int]]:
    """Start a receiver (the handler replaced by `calls`); its port."""
    started: list[inbound_smtp.Receiver] = []

    def _start(cfg: Config | None = None, **kwargs: object) -> int:
        receiver = inbound_smtp.controller(None, cfg or make_cfg("sqlite://"), host="127.0.0.1",  # type: ignore[arg-type]
                                           port=free_port(), **kwargs)  # type: ignore[arg-type]
        receiver.start()
        started.append(receiver)
        deadline = time.monotonic() + 10  # start() made a connection of its own: wait for its end
        while receiver.slots.taken and time.monotonic() < deadline:
            time.sleep(0.01)
        return receiver.port

    yield _start
    for receiver in started:
        receiver.stop()


def _wire(msg: EmailMessage) -> bytes:
    """`msg` as it goes over SMTP (CRLF line ends: smtplib sends bytes as they are)."""
    return msg.as_bytes(policy=email.policy.SMTP)


def _message(body: str = "draw") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = ANN, OURS, "Re: your turn"
    msg.set_content(body)
    return msg


def _data_reply(port: int, data: bytes) -> tuple[int, bytes]:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        assert client.mail(ANN)[0] == 250
        assert client.rcpt(OURS)[0] == 250
        return client.data(data)


def _closed(sock: socket.socket, seconds: float = 10.0) -> bytes:
    """What the server sent until it closed `sock` (waits at most `seconds`)."""
    sock.settimeout(seconds)
    received = b""
    while chunk := sock.recv(4096):
        received += chunk
    return received


# ---------------------------------------------------------------- recipients
@pytest.mark.parametrize("address", [
    "korsar@korsar.test",  # our domain, not a reply address
    "play+garbage@korsar.test",
    "play+1-0-0-abcdefghijklmnop@evil.example",  # a reply address's shape at another domain
    "play+1-0-0-abcdefghijklmnop",  # no domain
    "<>",
    "someone@[127.0.0.1]",
    "play+99999999999999-0-0-abcdefghijklmnop@korsar.test",  # a game id of 14 digits
], ids=["ours-not-reply", "bad-token", "other-domain", "no-domain", "empty", "address-literal", "huge-game-id"])
def test_a_recipient_that_is_not_one_of_our_reply_addresses_hears_550(start, calls, address):
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        client.mail(ANN)
        code, _ = client.rcpt(address)
    assert code == 550
    assert calls.raw == []


def test_past_ten_recipients_the_others_hear_452_and_the_message_is_taken_for_the_first_ten(start, calls):
    port = start()
    addresses = [f"play+1-0-{i}-abcdefghijklmnop@korsar.test" for i in range(12)]
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        client.mail(ANN)
        codes = [client.rcpt(a)[0] for a in addresses]
        assert client.data(_wire(_message()))[0] == 250
    assert codes == [250] * inbound_smtp.MAX_RECIPIENTS + [452] * 2
    assert len(calls.raw) == 1


# ---------------------------------------------------------------- DATA
def _raises(exc: BaseException) -> Callable[[], Handled]:
    def outcome() -> Handled:
        raise exc
    return outcome


def _invalidated() -> DBAPIError:
    error = DBAPIError("SELECT 1", {}, Exception("server closed the connection"))
    error.connection_invalidated = True
    return error


@pytest.mark.parametrize("failure, code", [
    (Rejected("12000 encoded words in the Subject"), 554),
    (Rejected("too many MIME parts", code=552), 552),
    (Rejected("a From with two addresses", code=550), 550),
    (TooLarge("message of 2000000 bytes"), 552),
    (OperationalError("SELECT 1", {}, Exception("connection refused")), 451),
    (InterfaceError("SELECT 1", {}, Exception("connection already closed")), 451),
    (_invalidated(), 451),
    (DataError("SELECT", {"game_id": 2**31}, Exception("integer out of range")), 554),
    (IntegrityError("INSERT", {}, Exception("duplicate key")), 554),
    (RuntimeError("a bug"), 554),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), 554),
], ids=["rejected", "rejected-552", "rejected-550", "too-large", "db-down", "db-interface",
        "db-connection-invalidated", "data-error", "integrity-error", "bug", "decode-error"])
def test_data_answers_a_rejected_message_with_its_code_and_retries_only_a_database_outage(
        start, calls, failure, code):
    calls.outcome = _raises(failure)
    port = start()
    reply_code, text = _data_reply(port, _wire(_message()))
    assert reply_code == code, text
    assert (400 <= reply_code < 500) == (code == 451)
    assert len(text) < 200 and b"integer out of range" not in text and b"SELECT" not in text


def test_a_rejected_reason_reaches_the_sender_short_plain_and_without_an_address():
    reply = inbound_smtp.refusal(Rejected("From play+1-0-0-abcdefghijklmnop@korsar.test é\r\n" + "x" * 500))
    assert reply.startswith("554 5.6.0 Message refused: From play+[token]@korsar.test ? x")
    assert len(reply) < 160 and "\r" not in reply and "\n" not in reply and reply.isascii()
    assert inbound_smtp.refusal(Rejected("odd", code=250)).startswith("554 ")  # never anything but 5xx


def test_a_message_over_the_size_limit_hears_552_during_data_and_is_not_handled(start, calls):
    port = start()
    code, _ = _data_reply(port, _wire(_message("draw\n" + ("x" * 76 + "\n") * 14_000)))
    assert code == 552
    assert calls.raw == []


@pytest.mark.parametrize("length, code", [(998, 250), (999, 250), (1000, 500), (100_000, 500)])
def test_a_data_line_over_1001_bytes_with_its_crlf_is_refused_with_500_and_not_handled(start, calls, length, code):
    port = start()
    data = _wire(_message()) + b"y" * length + b"\r\n"
    assert _data_reply(port, data)[0] == code
    assert len(calls.raw) == (code == 250)


@pytest.mark.parametrize("length, code", [(512, 250), (513, 500), (5000, 500)])
def test_a_command_line_over_512_bytes_is_refused_with_500(start, length, code):
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        assert client.docmd("NOOP", "x" * (length - len("NOOP ")))[0] == code


# ---------------------------------------------------------------- sessions
def test_past_the_connection_cap_a_connection_hears_421_and_a_freed_slot_is_taken_again(start):
    port = start(max_connections=3)
    open_ones = [socket.create_connection(("127.0.0.1", port), timeout=10) for _ in range(3)]
    try:
        assert all(s.recv(1024).startswith(b"220 ") for s in open_ones)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as refused:
            assert _closed(refused).startswith(b"421 4.7.0")
        open_ones.pop().close()
        deadline = time.monotonic() + 10  # the server sees the close a moment later
        while True:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as again:
                greeting = again.recv(1024)
            if greeting.startswith(b"220 ") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert greeting.startswith(b"220 ")
    finally:
        for s in open_ones:
            s.close()


def test_an_idle_connection_is_closed(start, monkeypatch):
    monkeypatch.setattr(inbound_smtp, "IDLE_SECONDS", 0.5)
    port = start()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as idle:
        assert idle.recv(1024).startswith(b"220 ")
        assert _closed(idle) == b""  # closed without a word, well before the 10 s wait runs out


def test_a_connection_that_keeps_talking_is_closed_at_the_session_cap(start, monkeypatch):
    monkeypatch.setattr(inbound_smtp, "MAX_SESSION_SECONDS", 1.0)
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        client.ehlo("client.example")
        deadline = time.monotonic() + 15
        with pytest.raises(smtplib.SMTPServerDisconnected):
            while time.monotonic() < deadline:
                assert client.noop()[0] == 250
                time.sleep(0.2)


def test_a_connection_takes_at_most_100_messages(start, calls):
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        for _ in range(inbound_smtp.MAX_MESSAGES):
            client.sendmail(ANN, [OURS], _wire(_message()))
        with pytest.raises(smtplib.SMTPSenderRefused) as refused:
            client.sendmail(ANN, [OURS], _wire(_message()))
    assert refused.value.smtp_code == 421
    assert len(calls.raw) == inbound_smtp.MAX_MESSAGES


def test_five_unknown_commands_close_the_connection(start):
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        codes = [client.docmd("XYZZY")[0] for _ in range(5)]
    assert codes == [500] * 4 + [502]


# ---------------------------------------------------------------- STARTTLS
@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def tls_files(ca, tmp_path) -> tuple[Path, Path]:
    cert = ca.issue_cert("127.0.0.1", "localhost")
    chain, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    chain.write_bytes(b"".join(pem.bytes() for pem in cert.cert_chain_pems))
    cert.private_key_pem.write_to_path(str(key))
    return chain, key


def _client_context(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.create_default_context()
    ca.configure_trust(context)
    return context


def test_without_a_certificate_starttls_is_not_offered(start):
    port = start()
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        assert not client.has_extn("starttls")
        assert client.docmd("STARTTLS")[0] in (454, 500, 502)


def test_with_a_certificate_starttls_is_offered_but_not_required_and_auth_never(start, calls, tls_files, ca):
    chain, key = tls_files
    port = start(make_cfg("sqlite://", INBOUND_TLS_CERT=str(chain), INBOUND_TLS_KEY=str(key)))
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as plain:  # a sender without TLS is still heard
        plain.ehlo("client.example")
        assert plain.has_extn("starttls") and not plain.has_extn("auth")
        plain.sendmail(ANN, [OURS], _wire(_message()))
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.ehlo("client.example")
        client.starttls(context=_client_context(ca))  # verifies the chain and the name 127.0.0.1
        client.ehlo("client.example")
        assert not client.has_extn("starttls") and not client.has_extn("auth")
        client.sendmail(ANN, [OURS], _wire(_message()))
    assert len(calls.raw) == 2


def test_a_reply_sent_over_starttls_is_played(app, smtp_server, tls_files, ca):
    chain, key = tls_files
    cfg = app.config["KORSAR"]
    cfg.INBOUND_TLS_CERT, cfg.INBOUND_TLS_KEY = str(chain), str(key)
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    receiver = inbound_smtp.controller(app.extensions["korsar_db"], cfg, host="127.0.0.1", port=free_port())
    receiver.start()
    try:
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
            client.starttls(context=_client_context(ca))
            client.send_message(reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw"))
    finally:
        receiver.stop()
    assert game_state(app, game_id)[1].version == 1


@pytest.mark.parametrize("settings", [{"INBOUND_TLS_CERT": "/etc/cert.pem"}, {"INBOUND_TLS_KEY": "/etc/key.pem"}])
def test_a_certificate_without_its_key_or_a_key_without_its_certificate_is_refused_at_start(settings):
    with pytest.raises(ValueError, match="INBOUND_TLS_CERT and INBOUND_TLS_KEY"):
        Config.from_env({"KORSAR_ENV": "testing", **settings})


def test_a_certificate_file_that_does_not_exist_stops_the_receiver_at_start(tmp_path):
    cfg = make_cfg("sqlite://", INBOUND_TLS_CERT=str(tmp_path / "no.pem"), INBOUND_TLS_KEY=str(tmp_path / "no.key"))
    with pytest.raises(OSError):
        inbound_smtp.controller(None, cfg)  # type: ignore[arg-type]


def test_a_reply_to_a_game_id_past_2_31_is_never_told_to_retry(app, smtp_server):
    """PostgreSQL's integer ids end at 2**31 - 1: such an id is a data error, not an outage."""
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    msg = reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw")
    msg.replace_header("To", f"play+{2**31}-0-0-abcdefghijklmnop@korsar.test")
    receiver = inbound_smtp.controller(app.extensions["korsar_db"], app.config["KORSAR"], host="127.0.0.1",
                                       port=free_port())
    receiver.start()
    try:
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
            client.ehlo("client.example")
            client.mail(ANN)
            codes = [client.rcpt(str(msg["To"]))[0]]
            if codes[0] == 250:
                codes.append(client.data(_wire(msg))[0])
    finally:
        receiver.stop()
    assert not any(400 <= code < 500 for code in codes), codes
    assert game_state(app, game_id)[1].version == 0
