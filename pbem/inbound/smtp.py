"""The SMTP receiver (aiosmtpd) behind the Procfile's `inbound:` line: an MX, or the relay of an
MTA (Postfix `relay_transport`, docs/deployment.md). It takes mail for our reply addresses only
(not an open relay), refuses a message over the size limit during DATA (552), and hands each
message to the one handler in a worker thread, answering 250 once it is stored."""
from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from sqlalchemy.engine import Engine

from pbem import links
from pbem.config import Config
from pbem.inbound.handler import handle_message
from pbem.inbound.message import MAX_MESSAGE_BYTES

log = logging.getLogger("pbem.inbound")


class InboundHandler:
    """aiosmtpd's handler: RCPT checks the address, DATA runs `handle_message`."""

    def __init__(self, db: Engine, cfg: Config) -> None:
        self.db = db
        self.cfg = cfg

    async def handle_RCPT(self, server: SMTP, session: Any, envelope: Any, address: str,
                          rcpt_options: list[str]) -> str:
        if links.parse_reply_address(self.cfg, address) is None:
            return "550 5.1.1 No such mailbox here: reply to the game's email"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Any, envelope: Any) -> str:
        raw = envelope.original_content or envelope.content
        try:
            handled = await asyncio.get_running_loop().run_in_executor(
                None, lambda: handle_message(self.db, self.cfg, raw, envelope_from=envelope.mail_from,
                                             envelope_rcpts=list(envelope.rcpt_tos)))
        except Exception:  # noqa: BLE001  (the sender retries a temporary failure)
            log.exception("a received reply could not be handled")
            return "451 4.3.0 Temporary failure: please try again later"
        return f"250 2.0.0 Received ({handled.outcome})"


def controller(db: Engine, cfg: Config, host: str | None = None, port: int | None = None) -> Controller:
    """A started-on-demand aiosmtpd controller on INBOUND_HOST:INBOUND_PORT."""
    return Controller(InboundHandler(db, cfg), hostname=host or cfg.INBOUND_HOST,
                      port=cfg.INBOUND_PORT if port is None else port,
                      data_size_limit=MAX_MESSAGE_BYTES, ready_timeout=10.0,
                      ident="Korsar inbound")


def serve(db: Engine, cfg: Config, stop: threading.Event | None = None) -> None:
    """Receive until `stop` is set (or forever)."""
    receiver = controller(db, cfg)
    receiver.start()
    log.info("inbound SMTP receiver on %s:%s", cfg.INBOUND_HOST, cfg.INBOUND_PORT)
    try:
        (stop or threading.Event()).wait()
    finally:
        receiver.stop()
