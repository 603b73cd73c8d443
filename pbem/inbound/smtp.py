"""The SMTP receiver (aiosmtpd) behind the Procfile's `inbound:` line: an MX, or the relay of an
MTA (Postfix `relay_transport`, docs/deployment.md). It takes mail for our reply addresses and
our signed bounce addresses (`pbem/mail/verp.py`: the envelope sender of every email) only (not
an open relay) and hands each message to the one handler in a worker thread, answering 250
once it is stored.

What a sender hears, so that nothing is retried for days that never will be read:
- RCPT to anything but one of our reply or signed bounce addresses: 550; more than
  MAX_RECIPIENTS: 452 for the rest.
- DATA over MAX_MESSAGE_BYTES: 552 (aiosmtpd, during DATA); a line over 1001 bytes: 500 (aiosmtpd);
  a message the handler rejects (`bounds.Rejected`, over a bound or malformed): its 5xx code.
- 451 only when the database is away (`pbem.db.is_outage`): the sender retries, and is right to.
  Any other failure is logged and answered 554 5.6.0.

Every session is bounded: MAX_CONNECTIONS at once (the next one hears 421 and is closed),
IDLE_SECONDS between commands, MAX_SESSION_SECONDS in all, a budget of calls per command
(MAX_MESSAGES messages), and aiosmtpd's own limits of 512 bytes a command line and five unknown
commands. STARTTLS is offered (never required) when INBOUND_TLS_CERT and INBOUND_TLS_KEY are set.
"""
from __future__ import annotations

import asyncio
import logging
import ssl
import threading
from dataclasses import dataclass, field
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from sqlalchemy.engine import Engine

from pbem import links
from pbem.config import Config
from pbem.db import is_outage
from pbem.inbound.handler import handle_message
from pbem.inbound.bounds import MAX_MESSAGE_BYTES, Rejected
from pbem.logging import redact, redact_mail_loggers
from pbem.mail import verp

log = logging.getLogger("pbem.inbound")

MAX_CONNECTIONS = 50  # a big sender opens a few at a time; far more is someone's flood
IDLE_SECONDS = 60.0  # between two commands (DATA and its handling included)
MAX_SESSION_SECONDS = 600.0  # a whole connection, however busy
MAX_RECIPIENTS = 10  # per message: a reply goes to one reply address
MAX_MESSAGES = 100  # per connection
# Calls of each command per connection (aiosmtpd answers 421 and closes past one).
COMMAND_CALLS = {"MAIL": MAX_MESSAGES, "DATA": MAX_MESSAGES, "RCPT": MAX_MESSAGES * MAX_RECIPIENTS,
                 "RSET": MAX_MESSAGES, "NOOP": 20, "*": 10}

BUSY = b"421 4.7.0 Too many connections, try again later\r\n"
OUTAGE = "451 4.3.0 Temporary failure: please try again later"
FAILED = "554 5.6.0 This message could not be handled"
_ENHANCED = {552: "5.3.4"}  # the enhanced status code of a refusal (RFC 3463); else 5.6.0
_MAX_REASON = 120  # characters of a refusal's reason in the SMTP reply


def refusal(exc: Rejected) -> str:
    """The SMTP reply to a rejected message: its 5xx code and a short, plain reason."""
    code = exc.code if 500 <= exc.code <= 599 else 554
    reason = " ".join(redact(exc.reason).encode("ascii", "replace").decode().split())[:_MAX_REASON]
    return f"{code} {_ENHANCED.get(code, '5.6.0')} Message refused: {reason or 'malformed'}"


class InboundHandler:
    """aiosmtpd's handler: EHLO hides AUTH (there is none), RCPT checks the address, DATA runs
    `handle_message`."""

    def __init__(self, db: Engine, cfg: Config) -> None:
        self.db = db
        self.cfg = cfg

    async def handle_EHLO(self, server: SMTP, session: Any, envelope: Any, hostname: str,
                          responses: list[str]) -> list[str]:
        session.host_name = hostname  # what aiosmtpd does itself when there is no hook
        return [line for line in responses if not line[4:].startswith("AUTH")]

    async def handle_RCPT(self, server: SMTP, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if links.parse_reply_address(self.cfg, address) is None and verp.bounced_row(self.cfg, address) is None:
            return "550 5.1.1 No such mailbox here: reply to the game's email"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        try:
            handled = await asyncio.get_running_loop().run_in_executor(
                None, lambda: handle_message(self.db, self.cfg, raw, envelope_from=envelope.mail_from,
                                             envelope_rcpts=list(envelope.rcpt_tos)))
        except Rejected as exc:
            log.info("a received message was refused with %s: %s", exc.code, exc.reason)
            return refusal(exc)
        except Exception as exc:  # noqa: BLE001  (a sender must hear an answer, whatever failed)
            if is_outage(exc):
                log.warning("the database is away: a received message waits for its sender's retry (%s)",
                            type(exc).__name__)
                return OUTAGE
            log.exception("a received message could not be handled (%s)", type(exc).__name__)
            return FAILED
        return f"250 2.0.0 Received ({handled.outcome})"

    async def handle_exception(self, error: Exception) -> str:
        # aiosmtpd's own answer would quote the exception's text to the client.
        log.warning("SMTP session error (%s)", type(error).__name__)
        return "500 5.5.0 Error"


@dataclass
class Slots:
    """How many connections are open, against a cap."""

    cap: int
    taken: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)  # the loop's thread and readers

    def take(self) -> bool:
        with self.lock:
            if self.taken >= self.cap:
                self.refused += 1
                return False
            self.taken += 1
            return True

    def give_back(self) -> None:
        with self.lock:
            self.taken -= 1


class _Busy(asyncio.Protocol):
    """The connection over the cap: 421 and closed, before any greeting."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(BUSY)
        transport.close()


class BoundedSMTP(SMTP):
    """aiosmtpd's SMTP session holding one of the receiver's slots, closed after MAX_SESSION_SECONDS."""

    def __init__(self, handler: Any, *, slots: Slots, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self._slots = slots
        self._holds_slot = True
        self._session_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        first = self.transport is None  # STARTTLS makes a second call on the same session
        super().connection_made(transport)
        if first:
            self._session_timer = self.loop.call_later(MAX_SESSION_SECONDS, self._session_over)

    def _session_over(self) -> None:
        log.info("an SMTP session lasted over %s s: closed", MAX_SESSION_SECONDS)
        if self.transport is not None:
            self.transport.close()

    def connection_lost(self, error: Exception | None) -> None:
        try:
            super().connection_lost(error)
        finally:
            if self._session_timer is not None:
                self._session_timer.cancel()
            if self._holds_slot:
                self._holds_slot = False
                self._slots.give_back()


class Receiver(Controller):
    """aiosmtpd's threaded controller with a cap on connections."""

    def __init__(self, handler: Any, *, max_connections: int = MAX_CONNECTIONS, **kwargs: Any) -> None:
        super().__init__(handler, **kwargs)
        self.slots = Slots(max_connections)

    def factory(self) -> SMTP | asyncio.Protocol:
        if not self.slots.take():
            log.warning("over %s SMTP connections at once: one refused with 421", self.slots.cap)
            return _Busy()
        return BoundedSMTP(self.handler, slots=self.slots, **self.SMTP_kwargs)


def tls_context(cfg: Config) -> ssl.SSLContext | None:
    """The server's TLS context for STARTTLS (None without INBOUND_TLS_CERT/KEY). A file that is
    missing or does not match fails here, at start-up."""
    if not cfg.INBOUND_TLS_CERT:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cfg.INBOUND_TLS_CERT, cfg.INBOUND_TLS_KEY)
    return context


def controller(db: Engine, cfg: Config, host: str | None = None, port: int | None = None,
               max_connections: int = MAX_CONNECTIONS) -> Receiver:
    """A started-on-demand receiver on INBOUND_HOST:INBOUND_PORT."""
    redact_mail_loggers()  # aiosmtpd logs every command line: never a token or an address
    return Receiver(InboundHandler(db, cfg), hostname=host or cfg.INBOUND_HOST,
                    port=cfg.INBOUND_PORT if port is None else port, max_connections=max_connections,
                    data_size_limit=MAX_MESSAGE_BYTES, ready_timeout=10.0, ident="Korsar inbound",
                    timeout=IDLE_SECONDS, command_call_limit=COMMAND_CALLS,
                    tls_context=tls_context(cfg), require_starttls=False,
                    auth_exclude_mechanism=["LOGIN", "PLAIN"])


def serve(db: Engine, cfg: Config, stop: threading.Event | None = None) -> None:
    """Receive until `stop` is set (or forever)."""
    receiver = controller(db, cfg)
    receiver.start()
    log.info("inbound SMTP receiver on %s:%s%s", cfg.INBOUND_HOST, cfg.INBOUND_PORT,
             " (STARTTLS offered)" if cfg.INBOUND_TLS_CERT else "")
    try:
        (stop or threading.Event()).wait()
    finally:
        receiver.stop()
