"""One SMTP connection, reused for a whole batch (`SmtpLink`), and what an SMTP error means for
the email being sent (`classify`: 5xx permanent, the rest temporary). pbem/mail/delivery.py
decides what to do with each outcome."""
from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass
from email.message import EmailMessage
from urllib.parse import urlsplit

from pbem.config import Config
from pbem.mail.dkim import signer
from pbem.mail.mime import MAIL_POLICY, Envelope

MAX_ERROR_LENGTH = 500


def short(error: object) -> str:
    text = " ".join(str(error).split())
    return text[:MAX_ERROR_LENGTH]


@dataclass(frozen=True)
class Outcome:
    """How a send attempt ended: kind is sent | temporary | permanent, plus whether the
    connection is gone."""

    kind: str
    reason: str = ""
    connection_lost: bool = False
    bounced: bool = False  # a 5xx to the recipient or the message: a permanent bounce


def classify(exc: BaseException) -> Outcome:
    """Map an smtplib / socket error to an outcome (5xx permanent, the rest temporary)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        code, resp = next(iter(exc.recipients.values()), (0, b""))
        return _by_code(code, resp, "recipient refused", bounced=True)
    if isinstance(exc, smtplib.SMTPResponseException):
        # MAIL FROM refused is about us, not the recipient's address.
        bounced = isinstance(exc, smtplib.SMTPDataError)
        return _by_code(exc.smtp_code, exc.smtp_error, type(exc).__name__, bounced=bounced)
    if isinstance(exc, smtplib.SMTPNotSupportedError):
        return Outcome("permanent", f"server cannot take this message: {exc}")
    if isinstance(exc, smtplib.SMTPServerDisconnected) or not isinstance(exc, smtplib.SMTPException):
        # smtplib errors are OSErrors too; a bare OSError is a socket failure or timeout.
        return Outcome("temporary", f"connection lost: {short(exc) or type(exc).__name__}",
                       connection_lost=True)
    return Outcome("temporary", f"{type(exc).__name__}: {short(exc)}")


def _by_code(code: int, resp: bytes | str, what: str, *, bounced: bool = False) -> Outcome:
    text = resp.decode("utf-8", "replace") if isinstance(resp, bytes) else str(resp)
    reason = short(f"{code} {text}")
    if 500 <= code < 600:
        return Outcome("permanent", f"{what}: {reason}", bounced=bounced)
    return Outcome("temporary", f"{what}: {reason}")


class SmtpLink:
    """One SMTP connection, opened on demand and reused for a whole batch."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.smtp: smtplib.SMTP | None = None
        self.opened = 0
        self.signer = signer(cfg)

    @property
    def connected(self) -> bool:
        return self.smtp is not None and getattr(self.smtp, "sock", None) is not None

    def open(self) -> None:
        cfg = self.cfg
        # An explicit EHLO name: smtplib's default looks up our FQDN over DNS.
        local_name = urlsplit(cfg.BASE_URL).hostname or "localhost"
        self.opened += 1
        context = ssl.create_default_context()
        smtp: smtplib.SMTP
        if cfg.SMTP_TLS == "ssl":
            smtp = smtplib.SMTP_SSL(cfg.SMTP_HOST, cfg.SMTP_PORT, local_hostname=local_name,
                                    timeout=cfg.SMTP_TIMEOUT, context=context)
        else:
            smtp = smtplib.SMTP(cfg.SMTP_HOST, cfg.SMTP_PORT, local_hostname=local_name,
                                timeout=cfg.SMTP_TIMEOUT)
        try:
            smtp.ehlo()
            if cfg.SMTP_TLS == "starttls":
                smtp.starttls(context=context)
                smtp.ehlo()
            if cfg.SMTP_USER:
                smtp.login(cfg.SMTP_USER, cfg.SMTP_PASSWORD)
        except BaseException:
            smtp.close()
            raise
        self.smtp = smtp

    def send(self, msg: EmailMessage, envelope: Envelope) -> None:
        assert self.smtp is not None
        if self.signer is None:
            self.smtp.send_message(msg, from_addr=envelope.mail_from, to_addrs=[envelope.rcpt_to])
            return
        # Signed as the bytes that go out: what the receiver verifies is what was signed.
        data = self.signer.sign(msg.as_bytes(policy=MAIL_POLICY))
        self.smtp.sendmail(envelope.mail_from, [envelope.rcpt_to], data)

    def close(self) -> None:
        if self.smtp is None:
            return
        try:
            if self.connected:
                self.smtp.quit()
        except (OSError, smtplib.SMTPException):
            pass
        finally:
            self.smtp.close()
            self.smtp = None
