"""DKIM (issue 26): with DKIM_SELECTOR, DKIM_DOMAIN and DKIM_PRIVATE_KEY (or its file) set, every
email kind goes out signed, and dkimpy verifies it against the public key a DNS TXT record
would publish; without them nothing is signed."""
from __future__ import annotations

import base64
import email
from dataclasses import replace

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from test_emails import SAMPLES, _seat_base

from pbem.config import Config
from pbem.db import session_scope
from pbem.mail.delivery import deliver_due
from pbem.mail.outbox import enqueue
from pbem.mail.render import email_names, render_email

SELECTOR, DOMAIN = "korsar2026", "korsar.test"


@pytest.fixture(scope="module")
def key_pair() -> tuple[str, bytes]:
    """A 2048-bit RSA key as PEM, and the TXT record that publishes its public half."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    return private, b"v=DKIM1; k=rsa; p=" + base64.b64encode(public)


def dns_of(record: bytes):  # type: ignore[no-untyped-def]
    """dkimpy's DNS lookup, answering our selector's TXT record only."""
    def txt(name: bytes, timeout: int = 5) -> bytes | None:
        return record if name == f"{SELECTOR}._domainkey.{DOMAIN}.".encode() else None
    return txt


def test_every_email_kind_is_signed_and_verifies(app, smtp_server, key_pair):
    private, record = key_pair
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    signing = replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port, DKIM_SELECTOR=SELECTOR,
                      DKIM_DOMAIN=DOMAIN, DKIM_PRIVATE_KEY=private)
    context = _seat_base(app)
    kinds = email_names()
    with session_scope(engine) as session:
        for kind in kinds:
            enqueue(session, cfg, render_email(kind, f"{kind}@example.com", {**context, **SAMPLES[kind]}))
    deliver_due(engine, signing, batch_size=500)
    verified = set()
    for raw in smtp_server.raw:  # the game's own emails too (welcome, turn): all signed
        assert raw.startswith(b"DKIM-Signature:")
        assert dkim.verify(raw, dnsfunc=dns_of(record)), raw[:300]
        verified.add(email.message_from_bytes(raw)["To"].split("@")[0])
    assert set(kinds) <= verified


def test_a_changed_message_no_longer_verifies(app, smtp_server, key_pair):
    private, record = key_pair
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    signing = replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port, DKIM_SELECTOR=SELECTOR,
                      DKIM_DOMAIN=DOMAIN, DKIM_PRIVATE_KEY=private)
    with session_scope(engine) as session:
        enqueue(session, cfg, render_email("welcome", "zoe@example.net", {**_seat_base(app), **SAMPLES["welcome"]}))
    deliver_due(engine, signing)
    [raw] = [r for r in smtp_server.raw if b"\r\nTo: zoe@example.net\r\n" in r]
    assert dkim.verify(raw, dnsfunc=dns_of(record))
    assert not dkim.verify(raw.replace(b"Subject: ", b"Subject: [forged] ", 1), dnsfunc=dns_of(record))


def test_without_the_settings_nothing_is_signed(app, smtp_server):
    engine, cfg = app.extensions["korsar_db"], app.config["KORSAR"]
    with session_scope(engine) as session:
        enqueue(session, cfg, render_email("welcome", "zoe@example.net", {**_seat_base(app), **SAMPLES["welcome"]}))
    deliver_due(engine, replace(cfg, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port))
    assert smtp_server.raw and not any(b"DKIM-Signature" in raw for raw in smtp_server.raw)


def test_the_key_may_come_from_a_file(tmp_path, key_pair):
    path = tmp_path / "dkim.pem"
    path.write_text(key_pair[0])
    cfg = Config.from_env({"DKIM_SELECTOR": SELECTOR, "DKIM_DOMAIN": DOMAIN, "DKIM_PRIVATE_KEY_FILE": str(path)})
    assert cfg.DKIM_PRIVATE_KEY == key_pair[0]


@pytest.mark.parametrize("missing", ["DKIM_SELECTOR", "DKIM_DOMAIN", "DKIM_PRIVATE_KEY"])
def test_half_a_dkim_setting_is_refused_at_start(key_pair, missing):
    env = {"DKIM_SELECTOR": SELECTOR, "DKIM_DOMAIN": DOMAIN, "DKIM_PRIVATE_KEY": key_pair[0]}
    del env[missing]
    with pytest.raises(ValueError, match="DKIM_SELECTOR, DKIM_DOMAIN and DKIM_PRIVATE_KEY"):
        Config.from_env(env)
