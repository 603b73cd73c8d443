"""The IMAP poller, for a host that cannot take SMTP: reads the unseen messages of the mailbox
in IMAP_URL (`imaps://user:password@host[:port]/folder`, or `imap://` on a trusted network),
hands each to the one handler and then marks it seen; then waits with IDLE where the server has it
(else polls). A message read twice (a crash between the two) acts once: its Message-ID is stored.

One message never stops the poller: a message over MAX_MESSAGE_BYTES (never downloaded), one
the handler rejects (`bounds.Rejected`) and one whose handling fails for any other reason than
a database outage are moved to IMAP_QUARANTINE (created if missing; where the server cannot,
flagged \\Flagged and \\Seen instead) and logged with their UID and why. A database outage
(`pbem.db.is_outage`) stops the poll and leaves that message and every later one unseen for the
next poll.
"""
from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from imap_tools import AND, BaseMailBox, MailBox, MailBoxUnencrypted, MailMessageFlags
from imap_tools.errors import MailboxFlagError
from imap_tools.utils import check_command_status
from sqlalchemy.engine import Engine

from pbem.config import Config
from pbem.db import is_outage
from pbem.inbound.handler import handle_message
from pbem.inbound.bounds import MAX_MESSAGE_BYTES, Rejected
from pbem.logging import redact_mail_loggers

log = logging.getLogger("pbem.inbound")
IDLE_SECONDS = 60.0  # servers drop an IDLE after 30 minutes; we renew it far sooner
POLL_SECONDS = 30.0  # without IDLE
RETRY_SECONDS = 10.0  # after a lost connection or a database outage
MAX_PER_POLL = 200  # messages handled per poll (the rest wait for the next one)
_UID = re.compile(rb"\bUID (\d+)")
_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)")


@dataclass(frozen=True)
class ImapTarget:
    host: str
    port: int
    tls: bool
    user: str
    password: str
    folder: str


class DatabaseAway(Exception):
    """The database did not answer during a poll: every message not yet handled stays unseen."""


def parse_imap_url(url: str) -> ImapTarget:
    parts = urlsplit(url)
    if parts.scheme not in ("imap", "imaps") or not parts.hostname or not parts.username:
        raise ValueError("IMAP_URL must look like imaps://user:password@host[:port]/folder")
    tls = parts.scheme == "imaps"
    return ImapTarget(parts.hostname, parts.port or (993 if tls else 143), tls, unquote(parts.username),
                      unquote(parts.password or ""), unquote(parts.path.strip("/")) or "INBOX")


def connect(target: ImapTarget) -> BaseMailBox:
    redact_mail_loggers()
    box: BaseMailBox = (MailBox(target.host, target.port) if target.tls
                        else MailBoxUnencrypted(target.host, target.port))
    return box.login(target.user, target.password, initial_folder=target.folder)


def poll_once(db: Engine, cfg: Config, box: BaseMailBox) -> int:
    """Handle every unseen message once (at most MAX_PER_POLL, oldest first); how many were
    taken off the unseen list (handled or quarantined). DatabaseAway when the database is away."""
    uids = box.uids(AND(seen=False))[:MAX_PER_POLL]
    sizes = _sizes(box, uids)
    count = 0
    for uid in uids:
        if sizes.get(uid, 0) > MAX_MESSAGE_BYTES:
            quarantine(box, cfg, uid, f"over {MAX_MESSAGE_BYTES} bytes ({sizes[uid]}): not downloaded")
            count += 1
            continue
        raw = _download(box, uid)
        if raw is None:  # expunged meanwhile (another client)
            continue
        try:
            handle_message(db, cfg, raw)
        except Rejected as exc:
            quarantine(box, cfg, uid, f"refused ({exc.code}): {exc.reason}")
        except Exception as exc:  # noqa: BLE001  (one bad message must not block every later one)
            if is_outage(exc):
                raise DatabaseAway(type(exc).__name__) from exc
            log.exception("IMAP message %s could not be handled (%s)", uid, type(exc).__name__)
            quarantine(box, cfg, uid, f"failed ({type(exc).__name__})")
        else:
            _mark(box, uid, MailMessageFlags.SEEN)
        count += 1
    return count


def _sizes(box: BaseMailBox, uids: list[str]) -> dict[str, int]:
    """Each message's size as the server counts it, asked before anything is downloaded."""
    if not uids:
        return {}
    status, data = box.client.uid("FETCH", ",".join(uids), "(UID RFC822.SIZE)")
    sizes: dict[str, int] = {}
    for item in data if status == "OK" else []:
        line = item[0] if isinstance(item, tuple) else item
        uid, size = (_UID.search(line), _SIZE.search(line)) if isinstance(line, bytes) else (None, None)
        if uid and size:
            sizes[uid[1].decode()] = int(size[1])
    return sizes


def _download(box: BaseMailBox, uid: str) -> bytes | None:
    """The message exactly as stored (BODY.PEEK: not marked seen), or None when it is gone."""
    status, data = box.client.uid("FETCH", uid, "(BODY.PEEK[])")
    if status != "OK":
        return None
    return next((item[1] for item in data if isinstance(item, tuple) and isinstance(item[1], bytes)), None)


def _mark(box: BaseMailBox, uid: str, *flags: str) -> None:
    """Add `flags` to message `uid` (imap_tools' flag() would also expunge the folder)."""
    check_command_status(box.client.uid("STORE", uid, "+FLAGS", f"({' '.join(flags)})"), MailboxFlagError)


def quarantine(box: BaseMailBox, cfg: Config, uid: str, reason: str) -> None:
    """Move message `uid` out of the way (IMAP_QUARANTINE), or flag it and mark it seen."""
    folder = cfg.IMAP_QUARANTINE
    try:
        if not box.folder.exists(folder):
            box.folder.create(folder)
        box.move(uid, folder)
        log.warning("IMAP message %s moved to %s: %s", uid, folder, reason)
    except Exception as exc:  # noqa: BLE001  (a server without that folder or MOVE: flag it instead)
        _mark(box, uid, MailMessageFlags.FLAGGED, MailMessageFlags.SEEN)
        log.warning("IMAP message %s flagged and marked seen (%s could not take it: %s): %s", uid, folder,
                    type(exc).__name__, reason)


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
                    if poll_once(db, cfg, box) >= MAX_PER_POLL:
                        continue  # more are waiting
                    if idle:
                        box.idle.wait(timeout=IDLE_SECONDS)
                    else:
                        stop.wait(POLL_SECONDS)
        except DatabaseAway as exc:
            log.warning("the database is away (%s): unseen messages wait for the next poll", exc)
            stop.wait(RETRY_SECONDS)
        except Exception:  # noqa: BLE001  (a lost connection: try again)
            if not stop.is_set():
                log.exception("IMAP poller lost its connection; retrying")
                stop.wait(RETRY_SECONDS)
