"""SMTP_TLS=starttls / ssl and SMTP_USER login against real aiosmtpd servers with test
certificates (trustme); the client trusts them the standard way, through SSL_CERT_FILE."""
from __future__ import annotations

import ssl
from datetime import datetime

import pytest
import trustme
from aiosmtpd.smtp import AuthResult, LoginPassword
from smtp_fakes import ScriptedSmtp, mail_config, queue_emails
from game_helpers import outbox

from pbem.mail.delivery import deliver_due

T0 = datetime(2026, 5, 1, 12, 0, 0)


@pytest.fixture(scope="module")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def server_tls(ca) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    return context


@pytest.fixture
def trusted(ca, tmp_path, monkeypatch):
    path = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    monkeypatch.setenv("SSL_CERT_FILE", str(path))


def authenticator(server, session, envelope, mechanism, auth_data):  # type: ignore[no-untyped-def]
    ok = isinstance(auth_data, LoginPassword) and (auth_data.login, auth_data.password) == (b"korsar", b"s3cret")
    return AuthResult(success=ok, handled=False, auth_data=auth_data)  # handled=False: aiosmtpd answers 535


def test_starttls_then_login_delivers(engine, database_url, server_tls, trusted):
    server = ScriptedSmtp(controller_kwargs=dict(tls_context=server_tls, require_starttls=True,
                                                 auth_required=True, authenticator=authenticator)).start()
    try:
        queue_emails(engine, 2, created_at=T0)
        cfg = mail_config(database_url, server.port, SMTP_TLS="starttls", SMTP_USER="korsar", SMTP_PASSWORD="s3cret")
        report = deliver_due(engine, cfg, now=T0)
    finally:
        server.stop()
    assert report.sent == 2
    assert server.sessions == [{"tls": True, "login": b"korsar"}] * 2


def test_implicit_tls_delivers(engine, database_url, server_tls, trusted):
    server = ScriptedSmtp(controller_kwargs=dict(ssl_context=server_tls)).start()
    try:
        queue_emails(engine, 1, created_at=T0)
        report = deliver_due(engine, mail_config(database_url, server.port, SMTP_TLS="ssl"), now=T0)
    finally:
        server.stop()
    assert report.sent == 1 and len(server.messages) == 1


@pytest.mark.parametrize("trust, password, error", [
    (True, "wrong", "535"),
    (False, "s3cret", "CERTIFICATE_VERIFY_FAILED"),
], ids=["wrong-password", "untrusted-certificate"])
def test_a_refused_login_or_certificate_defers_the_batch_without_counting(
        engine, database_url, server_tls, ca, tmp_path, monkeypatch, trust, password, error):
    if trust:
        path = tmp_path / "ca.pem"
        ca.cert_pem.write_to_path(str(path))
        monkeypatch.setenv("SSL_CERT_FILE", str(path))
    server = ScriptedSmtp(controller_kwargs=dict(tls_context=server_tls, require_starttls=True,
                                                 auth_required=True, authenticator=authenticator)).start()
    try:
        queue_emails(engine, 2, created_at=T0)
        cfg = mail_config(database_url, server.port, SMTP_TLS="starttls", SMTP_USER="korsar", SMTP_PASSWORD=password)
        report = deliver_due(engine, cfg, now=T0)
    finally:
        server.stop()
    assert (report.sent, report.deferred) == (0, 2) and server.messages == []
    rows = outbox(engine)
    assert [r.attempts for r in rows] == [0, 0]
    assert all(error in r.last_error for r in rows), rows[0].last_error
