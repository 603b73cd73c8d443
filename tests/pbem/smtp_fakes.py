"""Real SMTP servers on 127.0.0.1 that misbehave on purpose, and helpers to fill the outbox.

`ScriptedSmtp` is aiosmtpd with a handler whose replies a test scripts (refuse a recipient,
answer 4xx/5xx to DATA, stall before replying); `RawSmtp` is a bare socket server for the
faults aiosmtpd will not produce (never greet, drop the connection after DATA).
"""
from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from game_helpers import make_cfg
from sqlalchemy import update
from sqlalchemy.engine import Engine

from benchmarks.common import free_port
from pbem.config import Config
from pbem.db import session_scope
from pbem.mail.outbox import Email, enqueue
from pbem.models import OutboxMessage


FAKE_MAIL = Config(MAIL_FROM="Korsar <korsar@korsar.test>")  # message-ids @korsar.test


def mail_config(database_url: str, port: int, **overrides: object) -> Config:
    """`make_cfg` sending to 127.0.0.1:`port`, with an SMTP timeout a loaded machine does not
    reach (the lease stays 300 s; the tests of a timeout set a short one)."""
    return make_cfg(database_url, **{"SMTP_HOST": "127.0.0.1", "SMTP_PORT": port, "SMTP_TIMEOUT": 15.0, **overrides})


def queue_emails(engine: Engine, count: int, *, to: str = "player{i}@example.test",
                 created_at: datetime | None = None, kind: str = "turn") -> list[int]:
    """Queue `count` simple emails; returns their outbox ids in order."""
    ids = []
    with session_scope(engine) as session:
        for i in range(count):
            row = enqueue(session, FAKE_MAIL, Email(kind=kind, to_addr=to.format(i=i), subject=f"Mail {i}",
                                                    text_body=f"Body {i}", html_body=f"<p>Body {i}</p>"))
            if created_at is not None:
                session.execute(update(OutboxMessage).where(OutboxMessage.id == row["id"])
                                .values(created_at=created_at, next_attempt_at=created_at))
            ids.append(row["id"])
    return ids


# ---------------------------------------------------------------- aiosmtpd, scripted
@dataclass
class ScriptedSmtp:
    """aiosmtpd on 127.0.0.1. Script it with:
    - `rcpt_reply[addr]`: reply to RCPT TO for that address (e.g. "550 no such user");
    - `data_reply(msg)`: a reply string for DATA, or None to accept and record it;
    - `stall_on(msg)`: True to hold the DATA reply until `release` is set (or `stall_seconds`).
    """

    port: int = field(default_factory=free_port)
    rcpt_reply: dict[str, str] = field(default_factory=dict)
    data_reply: Callable[[EmailMessage], str | None] = lambda msg: None
    stall_on: Callable[[EmailMessage], bool] = lambda msg: False
    stall_seconds: float = 30.0
    smtputf8: bool = True
    controller_kwargs: dict = field(default_factory=dict)  # tls_context, authenticator, ...
    sessions: list[dict] = field(default_factory=list)  # per accepted message: tls, login
    messages: list[EmailMessage] = field(default_factory=list)
    connections: int = 0
    stalled: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    controller: Controller | None = None

    def start(self) -> "ScriptedSmtp":
        self.controller = Controller(_ScriptedHandler(self), hostname="127.0.0.1", port=self.port,
                                     enable_SMTPUTF8=self.smtputf8, **self.controller_kwargs)
        self.controller.start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def message_ids(self) -> Counter[str]:
        with self.lock:
            return Counter(m["Message-ID"] for m in self.messages)

    def subjects(self) -> list[str]:
        with self.lock:
            return [m["Subject"] for m in self.messages]


class _ScriptedHandler:
    def __init__(self, script: ScriptedSmtp) -> None:
        self.script = script

    async def handle_EHLO(self, server, session, envelope, hostname, responses):  # type: ignore[no-untyped-def]
        with self.script.lock:
            self.script.connections += 1
        session.host_name = hostname
        return responses

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):  # type: ignore[no-untyped-def]
        reply = self.script.rcpt_reply.get(address)
        if reply:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        msg = email.message_from_bytes(envelope.original_content or envelope.content,
                                       policy=email.policy.default)
        if self.script.stall_on(msg):  # type: ignore[arg-type]
            self.script.stalled.set()
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, self.script.release.wait, self.script.stall_seconds)
            return "451 stalled and gave up"  # never accepted: the client had stopped waiting
        reply = self.script.data_reply(msg)  # type: ignore[arg-type]
        if reply:
            return reply
        login = getattr(session, "auth_data", None)
        with self.script.lock:
            self.script.messages.append(msg)  # type: ignore[arg-type]
            self.script.sessions.append({"tls": session.ssl is not None,
                                         "login": getattr(login, "login", None)})
        return "250 Message accepted for delivery"


# ---------------------------------------------------------------- raw socket faults
class RawSmtp:
    """A bare TCP server on 127.0.0.1 with one misbehaviour:
    - "silent": accepts connections and never says a word;
    - "drop_after_data": a normal dialogue until the end of DATA, then hangs up unanswered.
    `data_received` counts the messages that were fully transmitted before the hang-up."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.port = free_port()
        self.data_received = 0
        self.connections = 0
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", self.port))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._open: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def start(self) -> "RawSmtp":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for conn in self._open:
            conn.close()
        self._sock.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            self._open.append(conn)
            if self.mode == "drop_after_data":
                threading.Thread(target=self._dialogue, args=(conn,), daemon=True).start()

    def _dialogue(self, conn: socket.socket) -> None:
        reader = conn.makefile("rb")
        conn.sendall(b"220 raw.test ESMTP\r\n")
        try:
            while True:
                line = reader.readline()
                if not line:
                    return
                verb = line[:4].upper()
                if verb == b"EHLO":
                    conn.sendall(b"250-raw.test\r\n250 8BITMIME\r\n")
                elif verb == b"DATA":
                    conn.sendall(b"354 go ahead\r\n")
                    while reader.readline() not in (b".\r\n", b""):
                        pass
                    self.data_received += 1
                    conn.shutdown(socket.SHUT_RDWR)
                    conn.close()
                    return
                elif verb == b"QUIT":
                    conn.sendall(b"221 bye\r\n")
                    return
                else:
                    conn.sendall(b"250 OK\r\n")
        except OSError:
            return
