"""The Procfile's `inbound:` process, for real: an SMTP client sends a reply to it (in the clear,
or over STARTTLS when INBOUND_TLS_CERT and INBOUND_TLS_KEY are set), the move is played, and the
answer lands in the test SMTP server."""
from __future__ import annotations

import os
import shlex
import smtplib
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trustme
from game_helpers import make_cfg
from smtp_fakes import free_port
from sqlmodel import select
from inbound_helpers import reply_to, send

from pbem.db import make_engine, session_scope
from pbem.devserver import wait_for_port
from pbem.games import service
from pbem.mail.delivery import deliver_due
from pbem.models import Game

ROOT = Path(__file__).resolve().parents[2]
ANN, BOB = "ann@example.com", "bob@example.com"


def procfile_command(name: str) -> list[str]:
    line = next(line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith(f"{name}:"))
    argv = shlex.split(line.split(":", 1)[1])
    assert argv[0] == "flask"
    return [sys.executable, "-m", "flask", *argv[1:]]


def _tls_settings(tmp_path: Path) -> tuple[dict[str, str], ssl.SSLContext]:
    """A certificate for 127.0.0.1 from a test CA: the process's settings, and a client context
    that trusts that CA (and checks the name)."""
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    chain, key = tmp_path / "fullchain.pem", tmp_path / "privkey.pem"
    chain.write_bytes(b"".join(pem.bytes() for pem in cert.cert_chain_pems))
    cert.private_key_pem.write_to_path(str(key))
    client = ssl.create_default_context()
    ca.configure_trust(client)
    return {"INBOUND_TLS_CERT": str(chain), "INBOUND_TLS_KEY": str(key)}, client


@pytest.mark.slow
@pytest.mark.parametrize("tls", [False, True], ids=["plain", "starttls"])
def test_the_inbound_process_of_the_procfile_plays_a_reply_and_the_answer_is_mailed(
        database_url, smtp_server, tmp_path, tls):
    cfg = make_cfg(database_url, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port)
    db = make_engine(database_url)
    with session_scope(db) as session:
        game_id = service.create_game(session, cfg, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11).id
    deliver_due(db, cfg)
    turn = [m for m in smtp_server.to(ANN) if "your turn" in str(m["Subject"])][-1]
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": cfg.SECRET_KEY, "BASE_URL": cfg.BASE_URL,
           "MAIL_FROM": cfg.MAIL_FROM, "INBOUND_PORT": str(port), "IMAP_URL": "",
           "KORSAR_ENV": "development"}  # (not "testing": logs JSON lines on stderr, as in production)
    if tls:
        settings, client_tls = _tls_settings(tmp_path)
        env.update(settings)
    log = tmp_path / "inbound.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(procfile_command("inbound"), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert wait_for_port("127.0.0.1", port, 120, proc), log.read_text()[-2000:]
        if tls:
            with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
                client.ehlo("client.example")
                assert client.has_extn("starttls")
                client.starttls(context=client_tls)
                client.send_message(reply_to(turn, ANN, "draw"))
        else:
            send(port, reply_to(turn, ANN, "draw"))
        with session_scope(db) as session:
            assert session.exec(select(Game.version).where(Game.id == game_id)).one() == 1
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    deadline = time.monotonic() + 120  # generous on a loaded machine: the loop ends when it is done
    while time.monotonic() < deadline and not any("played" in str(m["Subject"]) for m in smtp_server.to(ANN)):
        deliver_due(db, cfg)
        time.sleep(0.05)
    [answer] = [m for m in smtp_server.to(ANN) if "played" in str(m["Subject"])]
    assert "played: Draw a card" in str(answer["Subject"])
    assert str(answer["Reply-To"]).startswith(f"play+{game_id}-0-1-")
    logged = log.read_text()  # aiosmtpd's lines included, redacted: no token, no whole address
    assert "play+[token]@korsar.test" in logged and "a***@example.com" in logged
    assert str(turn["Reply-To"]).split("@")[0].removeprefix("play+") not in logged and ANN not in logged
    db.dispose()
