"""The IMAP poller, for a host that cannot take SMTP: reads the unseen messages of the mailbox
in IMAP_URL (`imaps://user:password@host[:port]/folder`, or `imap://` on a trusted network),
hands each to the one handler and then marks it seen; then waits with IDLE where the server has it
(else polls). A message read twice (a crash between the two) acts once: its Message-ID is stored."""
from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from email.policy import compat32
from urllib.parse import unquote, urlsplit

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted, MailMessageFlags
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from pbem.config import Config
from pbem.inbound.handler import handle_message

log = logging.getLogger("pbem.inbound")
IDLE_SECONDS = 60.0  # servers drop an IDLE after 30 minutes; we renew it far sooner
POLL_SECONDS = 30.0  # without IDLE
RETRY_SECONDS = 10.0  # after a lost connection


@dataclass(frozen=True)
class ImapTarget:
    host: str
    port: int
    tls: bool
    user: str
    password: str
    folder: str


def parse_imap_url(url: str) -> ImapTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
        raise ValueError("IMAP_URL must look like imaps://user:password@host[:port]/folder")
    tls = parts.scheme == "imaps"
    return ImapTarget(parts.hostname, parts.port or (993 if tls else 143), tls, unquote(parts.username),
                      unquote(parts.password or ""), unquote(parts.path.strip("/")) or "INBOX")


def connect(target: ImapTarget) -> BaseMailBox:
    box: BaseMailBox = (MailBox(target.host, target.port) if target.tls
                        else MailBoxUnencrypted(target.host, target.port))
    return box.login(target.user, target.password, initial_folder=target.folder)


def poll_once(db: Engine, cfg: Config, box: BaseMailBox) -> int:
    """Handle every unseen message once; how many there were. A message is marked seen only
    once handled: a failure (the database away) leaves it for the next poll."""
    count = 0
    for message in box.fetch(AND(seen=False), mark_seen=False, bulk=True):
        try:
            handle_message(db, cfg, message.obj.as_bytes(policy=compat32))
        except DBAPIError:
            raise  # the database is away: every message waits for the next poll
        except Exception:  # noqa: BLE001  (one bad message must not block every later one)
            log.exception("IMAP message %s could not be handled; marked seen and skipped", message.uid)
        if message.uid:
            box.flag(message.uid, MailMessageFlags.SEEN, True)
        count += 1
    return count


def poll_forever(db: Engine, cfg: Config, stop: threading.Event | None = None) -> None:
    """Poll IMAP_URL until `stop` is set, reconnecting after a lost connection."""
    stop = stop or threading.Event()
    target = parse_imap_url(cfg.IMAP_URL)
    while not stop.is_set():
        try:
            with connect(target) as box:
                log.info("inbound IMAP poller on %s:%s/%s", target.host, target.port, target.folder)
                idle = b"IDLE" in b" ".join(c.encode() if isinstance(c, str) else c
                                            for c in box.client.capabilities)
                while not stop.is_set():
                    poll_once(db, cfg, box)
                    if idle:
                        box.idle.wait(timeout=IDLE_SECONDS)
                    else:
                        stop.wait(POLL_SECONDS)
        except Exception:  # noqa: BLE001  (a lost connection: try again)
            if not stop.is_set():
                log.exception("IMAP poller lost its connection; retrying")
                stop.wait(RETRY_SECONDS)
