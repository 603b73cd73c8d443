"""Bounces benchmark: the Procfile's `inbound:` process (the aiosmtpd receiver) on 127.0.0.1,
fed real bounce reports (the samples flufl.bounce ships: tests/pbem/bounce_samples) over SMTP
by `--clients` connections back to back, each to the signed bounce address (VERP) of an email
we sent the address it names. Figure: bounces read and stored per second; at the end every
one must be a `bounce` row (a fast wrong run shows).

    python -m benchmarks.bounce_bench [--db sqlite postgresql] [--clients 4] [--count 2000]
"""
from __future__ import annotations

import argparse
import json
import os
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from email.utils import make_msgid
from typing import Any

from sqlalchemy import func, insert
from sqlmodel import select

from benchmarks.common import ROOT, free_port, scratch_database
from benchmarks.inbound_bench import _wait, inbound_process
from pbem.config import Config
from pbem.db import make_engine, session_scope
from pbem.mail.verp import bounce_address
from pbem.migrations import upgrade_database
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.models_mail import Bounce

SECRET = "Bq7vK2pX9mR4tW8yZ3nL6hJ1cF5dG0sA-bounce-bench"
MAIL_FROM = "Korsar <korsar@bench.test>"
SAMPLES = ROOT / "tests" / "pbem" / "bounce_samples"


def samples() -> list[tuple[bytes, str]]:
    """(report with CRLF lines, address it names) of every sample."""
    rows = [line.split("\t") for line in (SAMPLES / "expected.tsv").read_text().splitlines()
            if line and not line.startswith("#")]
    return [((SAMPLES / name).read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"), address.lower())
            for name, address, _kind in rows]


def _sent_rows(url: str, addresses: list[str]) -> list[int]:
    engine = make_engine(url)
    now = utcnow()
    with session_scope(engine) as session:
        session.exec(insert(OutboxMessage), params=[dict(  # type: ignore[call-overload]
            kind="turn", to_addr=a, subject="Your turn", text_body="-", html_body="", message_id=make_msgid(),
            headers_json="{}", status=OutboxStatus.SENT, attempts=1, next_attempt_at=now, created_at=now, sent_at=now)
            for a in addresses])
        ids = list(session.exec(select(OutboxMessage.id).order_by(OutboxMessage.id)).all())
    engine.dispose()
    return [i for i in ids if i is not None]


def run(kind: str, clients: int, count: int) -> dict[str, Any]:
    reports = samples()
    chosen = [reports[i % len(reports)] for i in range(count)]
    with scratch_database(kind) as url:
        upgrade_database(url)
        cfg = Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1", MAIL_FROM=MAIL_FROM)
        ids = _sent_rows(url, [address for _, address in chosen])
        # Each report its own Message-ID (one Message-ID acts once).
        work = [(f"Message-ID: {make_msgid(domain='bench.test')}\r\n".encode() + raw, bounce_address(cfg, row))
                for (raw, _), row in zip(chosen, ids)]
        port = free_port()
        command, env = inbound_process(url, SECRET, MAIL_FROM, port)
        errors: list[str] = []
        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(["/bin/sh", "-c", f"exec {command}"], cwd=ROOT, env=env, stdout=log,
                                    stderr=subprocess.STDOUT)
            try:
                _wait(port, proc, log)

                def client(share: list[tuple[bytes, str]]) -> None:
                    smtp = smtplib.SMTP("127.0.0.1", port, timeout=60)
                    for n, (raw, rcpt) in enumerate(share):
                        if n and n % 90 == 0:  # the receiver's MAX_MESSAGES a connection
                            smtp.quit()
                            smtp = smtplib.SMTP("127.0.0.1", port, timeout=60)
                        try:
                            smtp.sendmail("", [rcpt], raw)
                        except smtplib.SMTPException as exc:
                            errors.append(type(exc).__name__)
                    smtp.quit()

                threads = [threading.Thread(target=client, args=(work[i::clients],)) for i in range(clients)]
                started = time.perf_counter()
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                elapsed = time.perf_counter() - started
            finally:
                proc.terminate()
                proc.wait(timeout=20)
        engine = make_engine(url)
        with session_scope(engine) as session:
            stored = session.exec(select(func.count()).select_from(Bounce)).one()
        engine.dispose()
    return {"db": kind, "clients": clients, "bounces": count, "seconds": round(elapsed, 2),
            "bounces_per_second": round(count / elapsed, 1), "stored": stored, "errors": len(errors),
            "load_average": [round(x, 1) for x in os.getloadavg()], "cpus": os.cpu_count()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite"], choices=["sqlite", "postgresql"])
    parser.add_argument("--clients", type=int, default=4, help="SMTP connections sending back to back")
    parser.add_argument("--count", type=int, default=2000, help="bounces sent in all")
    args = parser.parse_args(argv)
    ok = True
    for kind in args.db:
        result = run(kind, args.clients, args.count)
        print(json.dumps(result))
        ok = ok and result["stored"] == args.count and not result["errors"]
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
