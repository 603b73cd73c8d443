"""The local mail catcher of `make run`: a real SMTP server (aiosmtpd) on 127.0.0.1:8025 that
keeps every message it receives as an .eml file under var/mail/, plus the readers the dev
inbox pages (pbem/web/dev.py) use. Development only: it accepts mail for anyone.

    python -m pbem.mail.catcher [--host 127.0.0.1] [--port 8025] [--dir var/mail]
"""
from __future__ import annotations

import argparse
import email
import email.policy
import os
import re
import threading
import time
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from aiosmtpd.smtp import Envelope as SMTPEnvelope
from aiosmtpd.smtp import Session as SMTPSession

from pbem.config import var_dir

MAIL_DIR_ENV = "KORSAR_MAIL_DIR"
# "<nanoseconds>-<hex>": sortable by arrival, and nothing else can name a file.
_MAIL_ID = re.compile(r"^[0-9]{19}-[0-9a-f]{8}$")


def default_mail_dir() -> Path:
    return Path(os.environ.get(MAIL_DIR_ENV) or var_dir() / "mail")


def save_message(directory: Path, raw: bytes, mail_from: str, rcpt_tos: list[str]) -> str:
    """Store one received message atomically (temp file + rename); returns its id."""
    directory.mkdir(parents=True, exist_ok=True)
    mail_id = f"{time.time_ns():019d}-{uuid.uuid4().hex[:8]}"
    # Trace headers like a real MTA's, so the inbox knows the envelope recipients.
    trace = f"Return-Path: <{mail_from}>\r\n".encode() + b"".join(
        f"Delivered-To: {rcpt}\r\n".encode() for rcpt in rcpt_tos)
    tmp = directory / f".{mail_id}.tmp"
    with open(tmp, "wb") as fh:
        fh.write(trace + raw)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, directory / f"{mail_id}.eml")
    return mail_id


class SaveToDirectory:
    """aiosmtpd handler: every message becomes a file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    async def handle_DATA(self, server: SMTP, session: SMTPSession, envelope: SMTPEnvelope) -> str:
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)  # the Controller keeps decode_data off: content is bytes
        save_message(self.directory, raw, envelope.mail_from or "", list(envelope.rcpt_tos))
        return "250 Message accepted for delivery"


def start_catcher(directory: Path | None = None, host: str = "127.0.0.1", port: int = 8025) -> Controller:
    """Start the catcher in a background thread; call `.stop()` on the result to end it."""
    directory = directory or default_mail_dir()
    directory.mkdir(parents=True, exist_ok=True)
    controller = Controller(SaveToDirectory(directory), hostname=host, port=port)
    controller.start()
    return controller


# ---------------------------------------------------------------- reading
@dataclass(frozen=True)
class CaughtMail:
    """One caught message, as the inbox list shows it."""

    id: str
    received_at: datetime
    to: str
    delivered_to: tuple[str, ...]
    subject: str
    sender: str


def _summary(path: Path) -> CaughtMail:
    with open(path, "rb") as fh:
        headers = BytesHeaderParser(policy=email.policy.default).parse(fh)
    mail_id = path.stem
    return CaughtMail(
        id=mail_id,
        received_at=datetime.fromtimestamp(int(mail_id.split("-")[0]) / 1e9, timezone.utc),
        to=str(headers.get("To", "")),
        delivered_to=tuple(str(v) for v in headers.get_all("Delivered-To", [])),
        subject=str(headers.get("Subject", "")),
        sender=str(headers.get("From", "")),
    )


def list_mail(directory: Path | None = None, to: str | None = None) -> list[CaughtMail]:
    """Caught messages, newest first; `to` keeps those whose recipient contains it."""
    directory = directory or default_mail_dir()
    if not directory.is_dir():
        return []
    mails = [_summary(p) for p in directory.glob("*.eml") if _MAIL_ID.match(p.stem)]
    if to:
        needle = to.strip().lower()
        mails = [m for m in mails if needle in m.to.lower() or any(needle in d.lower() for d in m.delivered_to)]
    return sorted(mails, key=lambda m: m.id, reverse=True)


def mail_path(directory: Path | None, mail_id: str) -> Path | None:
    """The file of `mail_id`, or None (unknown or malformed ids never touch the disk)."""
    if not _MAIL_ID.match(mail_id):
        return None
    path = (directory or default_mail_dir()) / f"{mail_id}.eml"
    return path if path.is_file() else None


def load_mail(directory: Path | None, mail_id: str) -> EmailMessage | None:
    path = mail_path(directory, mail_id)
    if path is None:
        return None
    with open(path, "rb") as fh:
        return email.message_from_binary_file(fh, policy=email.policy.default)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8025)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    controller = start_catcher(args.dir, args.host, args.port)
    print(f"catching mail on {args.host}:{args.port} into {args.dir or default_mail_dir()}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
