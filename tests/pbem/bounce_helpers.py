"""What the bounce tests share: an email we sent (an outbox row), the real bounce samples that
flufl.bounce ships (tests/pbem/bounce_samples), an ARF complaint, and what became of an address."""
from __future__ import annotations

import email.policy
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

from game_helpers import db_of
from sqlalchemy.engine import Engine
from sqlmodel import select

from pbem.db import session_scope
from pbem.mail.verp import bounce_address
from pbem.mail import undeliverable
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.models_mail import Bounce

SAMPLES = Path(__file__).resolve().parent / "bounce_samples"


def samples() -> list[tuple[str, str, str]]:
    """(file, address that failed, permanent | temporary) of every sample."""
    lines = (SAMPLES / "expected.tsv").read_text().splitlines()
    return [tuple(line.split("\t")) for line in lines if line and not line.startswith("#")]  # type: ignore[misc]


def sample(name: str) -> bytes:
    """A sample as it travels by SMTP: CRLF line ends (the files have LF)."""
    return (SAMPLES / name).read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def sent_email(app_or_engine, to_addr: str, kind: str = "turn") -> int:
    """An email we sent to `to_addr` (an outbox row, sent): its id, which its bounce address names."""
    with session_scope(db_of(app_or_engine)) as session:
        row = OutboxMessage(kind=kind, to_addr=to_addr, subject="Your turn", text_body="-", html_body="",
                            message_id=make_msgid(domain="korsar.test"), status=OutboxStatus.SENT, sent_at=utcnow())
        session.add(row)
        session.flush()
        assert row.id is not None
        return row.id


def bounces_of(engine: Engine, address: str) -> list[Bounce]:
    with session_scope(engine) as session:
        return list(session.exec(select(Bounce).where(Bounce.email == address.lower())).all())


def is_undeliverable(engine: Engine, address: str) -> bool:
    with session_scope(engine) as session:
        return undeliverable.is_undeliverable(session, address)


def complaint(about: str, *, feedback_type: str = "abuse") -> bytes:
    """An ARF report (RFC 5965) as a mailbox provider's feedback loop sends it."""
    report = EmailMessage()
    report["From"] = "feedback@fbl.example.net"
    report["To"] = "korsar@korsar.test"
    report["Subject"] = "Abuse report"
    report["Message-ID"] = make_msgid(domain="fbl.example.net")
    report.set_content("This is an email abuse report for an email message received from IP 192.0.2.1.")
    report.make_mixed()
    report.set_type("multipart/report")
    report.set_param("report-type", "feedback-report")
    fields = EmailMessage()
    fields.set_payload(f"Feedback-Type: {feedback_type}\nUser-Agent: ExampleFBL/1.0\nVersion: 1\n"
                       f"Original-Rcpt-To: {about}\n")
    fields.set_type("message/feedback-report")
    report.attach(fields)
    original = EmailMessage()
    original["From"] = "Korsar <korsar@korsar.test>"
    original["To"] = about
    original["Subject"] = "Your turn"
    original.set_content("It is your turn.")
    report.attach(_rfc822(original))
    return report.as_bytes(policy=email.policy.SMTP)


def _rfc822(inner: EmailMessage) -> EmailMessage:
    part = EmailMessage()
    part.set_content(inner)
    return part


def bounce(engine: Engine, cfg, address: str, name: str = "dsn_01.txt", *, now=None) -> None:  # type: ignore[no-untyped-def]
    """The latest email we queued for `address` bounces for good (a real DSN, received by the one
    handler as the SMTP receiver hands it over; its VERP token names the email)."""
    from pbem.inbound.handler import handle_message
    with session_scope(engine) as session:
        row_id = session.exec(select(OutboxMessage.id).where(OutboxMessage.to_addr == address)
                              .order_by(OutboxMessage.id.desc())).first()  # type: ignore[union-attr]
    assert row_id is not None, f"no email to {address} to bounce"
    raw = sample(name).replace(b"Message-ID: <", f"Message-ID: <{row_id}.".encode(), 1)
    handle_message(engine, cfg, raw, envelope_from="", envelope_rcpts=[bounce_address(cfg, row_id)], now=now)
