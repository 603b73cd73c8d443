"""Outbox delivery benchmark: how fast deliver_due drains a backlog over one reused SMTP
connection, and what an idle poll costs with a large sent history.

    python -m benchmarks.mail_bench                    # SQLite (temp file)
    python -m benchmarks.mail_bench --db postgresql    # a scratch database on 127.0.0.1
    python -m benchmarks.mail_bench --latency          # queue-to-server latency via a real worker
    python -m benchmarks.mail_bench --dkim             # the same drain unsigned and DKIM-signed

The SMTP server is aiosmtpd on 127.0.0.1 in the same process (it accepts and discards), so
the figure includes its share of the CPU: a real relay on another host costs network round
trips instead. Targets: > 200 emails/s; an idle poll < 10 ms with 100,000 sent rows.
`--latency` runs `flask --app pbem worker` (WORKER_POLL_SECONDS=1) as a child process and
queues one email every 0.37 s: the time from commit to the SMTP server's 250 is about half a
poll plus the send. Target: p95 < 1.5 s.
`--dkim` drains the backlog twice, unsigned and signed with a 2048-bit RSA key (pbem/mail/dkim.py),
and times the signature alone over the same emails: DKIM's cost per email.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import timedelta

from aiosmtpd.controller import Controller
from sqlalchemy import insert

from benchmarks.common import free_port, percentile, scratch_database
from pbem.config import Config
from pbem.db import create_all, make_engine, session_scope
from pbem.mail.delivery import deliver_due
from pbem.mail.smtp import SmtpLink
from pbem.mail.outbox import Email, enqueue, new_message_id
from pbem.models import OutboxMessage, OutboxStatus, utcnow
from pbem.worker import BATCH_SIZE

# Message-ids of the queued emails are @bench.test.
BENCH_MAIL = Config(MAIL_FROM="Korsar <korsar@bench.test>")


class _Discard:
    def __init__(self) -> None:
        self.arrived: dict[str, float] = {}

    async def handle_DATA(self, server, session, envelope):  # type: ignore[no-untyped-def]
        match = re.search(rb"^Subject: (.*?)\r?$", envelope.content, re.M)
        self.arrived[match.group(1).decode() if match else ""] = time.perf_counter()
        return "250 OK"


def _body(i: int) -> Email:
    text = f"Hello player {i},\n\nit is your turn.\n" + "Your hand: Blue 3, Green 1, Merchant ship (5 gold)\n" * 20
    return Email(kind="turn", to_addr=f"Player {i} <p{i}@example.test>", subject=f"Your turn #{i}",
                 text_body=text,
                 html_body="<html><body><p>" + text.replace("\n", "<br>") * 2 + "</p></body></html>")


def dkim_key() -> str:
    """A fresh 2048-bit RSA private key, PEM (the size DNS providers take in one TXT record)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


def sign_cost(private_key: str, count: int) -> float:
    """Milliseconds to DKIM-sign one bench email (built as delivery builds it), median of `count`."""
    from pbem.mail.dkim import Signer
    from pbem.mail.mime import MAIL_POLICY, build_message

    signer = Signer(b"bench", b"bench.test", private_key.encode())
    cfg = Config(MAIL_FROM=BENCH_MAIL.MAIL_FROM)
    times = []
    for i in range(count):
        email = _body(i)
        row = OutboxMessage(id=i + 1, kind=email.kind, to_addr=email.to_addr, subject=email.subject,
                            text_body=email.text_body, html_body=email.html_body,
                            message_id=new_message_id(BENCH_MAIL), created_at=utcnow())
        data = build_message(row, cfg)[0].as_bytes(policy=MAIL_POLICY)
        t = time.perf_counter()
        signer.sign(data)
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def run(url: str, backlog: int, history: int, batch_size: int = BATCH_SIZE,
        private_key: str = "") -> dict[str, float]:
    engine = make_engine(url)
    create_all(engine)
    port = free_port()
    smtp = Controller(_Discard(), hostname="127.0.0.1", port=port)
    smtp.start()
    cfg = Config(DATABASE_URL=url, SMTP_HOST="127.0.0.1", SMTP_PORT=port, KORSAR_ENV="testing")
    if private_key:
        cfg.DKIM_SELECTOR, cfg.DKIM_DOMAIN, cfg.DKIM_PRIVATE_KEY = "bench", "bench.test", private_key
    try:
        old = utcnow() - timedelta(days=30)
        with session_scope(engine) as session:  # sent history the due-query must skip cheaply
            for start in range(0, history, 10_000):
                session.exec(insert(OutboxMessage), params=[dict(
                    kind="turn", to_addr="old@example.test", subject="old", text_body="x", html_body="x",
                    message_id=new_message_id(BENCH_MAIL), headers_json="{}", status=OutboxStatus.SENT,
                    attempts=1, next_attempt_at=old, created_at=old, sent_at=old)
                    for _ in range(start, min(history, start + 10_000))])
        with session_scope(engine) as session:
            for i in range(backlog):
                enqueue(session, BENCH_MAIL, _body(i))
        started = time.perf_counter()
        sent = 0
        link = SmtpLink(cfg)  # as the worker does: one connection over the batches of a run
        try:
            while (report := deliver_due(engine, cfg, batch_size=batch_size, link=link)).claimed:
                sent += report.sent
        finally:
            link.close()
        drain = time.perf_counter() - started
        idle = []
        for _ in range(50):
            t = time.perf_counter()
            deliver_due(engine, cfg)
            idle.append((time.perf_counter() - t) * 1000)
        return {"sent": sent, "seconds": drain, "per_second": sent / drain,
                "idle_ms_median": statistics.median(idle), "idle_ms_max": max(idle)}
    finally:
        smtp.stop()
        engine.dispose()


def run_latency(url: str, count: int) -> dict[str, float]:
    engine = make_engine(url)
    create_all(engine)
    handler, port = _Discard(), free_port()
    smtp = Controller(handler, hostname="127.0.0.1", port=port)
    smtp.start()
    env = {**os.environ, "DATABASE_URL": url, "SMTP_HOST": "127.0.0.1", "SMTP_PORT": str(port),
           "KORSAR_ENV": "testing", "WORKER_POLL_SECONDS": "1", "SMTP_TLS": "none"}
    worker = subprocess.Popen([sys.executable, "-m", "flask", "--app", "pbem", "worker"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    queued: dict[str, float] = {}
    try:
        time.sleep(3)  # the worker's interpreter starts
        for i in range(count):
            with session_scope(engine) as session:
                enqueue(session, BENCH_MAIL, _body(i))
            queued[f"Your turn #{i}"] = time.perf_counter()
            time.sleep(0.37)
        deadline = time.monotonic() + 30
        while len(handler.arrived) < count and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        worker.terminate()
        worker.wait(15)
        smtp.stop()
        engine.dispose()
    waits = [handler.arrived[k] - t for k, t in queued.items() if k in handler.arrived]
    return {"arrived": len(waits), "p50": percentile(waits, 50), "p95": percentile(waits, 95),
            "max": max(waits, default=0.0)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="outbox delivery benchmark")
    parser.add_argument("--db", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--backlog", type=int, default=2000)
    parser.add_argument("--history", type=int, default=100_000)
    parser.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                        help=f"rows claimed per deliver_due call (default: the worker's, {BATCH_SIZE})")
    parser.add_argument("--latency", action="store_true", help="queue-to-server latency through a real worker")
    parser.add_argument("--dkim", action="store_true", help="the drain unsigned, then DKIM-signed")
    args = parser.parse_args(argv)
    if args.dkim:
        key = dkim_key()
        rates = {}
        for label, private in (("unsigned", ""), ("signed", key)):
            with scratch_database(args.db) as url:
                rates[label] = run(url, args.backlog, 0, args.batch_size, private)
        per_email = 1000 / rates["signed"]["per_second"] - 1000 / rates["unsigned"]["per_second"]
        print(f"mail delivery ({args.db}), {args.backlog} emails: unsigned {rates['unsigned']['per_second']:.0f} "
              f"emails/s, DKIM-signed (RSA 2048) {rates['signed']['per_second']:.0f} emails/s: "
              f"{per_email:.2f} ms more per email; the signature alone: median {sign_cost(key, 200):.2f} ms")
        return 0 if all(r["sent"] == args.backlog for r in rates.values()) else 1
    if args.latency:
        with scratch_database(args.db) as url:
            r = run_latency(url, 40)
        print(f"mail latency ({args.db}, worker polling every 1 s): {r['arrived']}/40 arrived; commit to 250: "
              f"p50 {r['p50']:.2f} s, p95 {r['p95']:.2f} s, max {r['max']:.2f} s")
        return 0 if r["arrived"] == 40 else 1
    with scratch_database(args.db) as url:
        r = run(url, args.backlog, args.history, args.batch_size)
    print(f"mail delivery ({args.db}): {r['sent']} emails in {r['seconds']:.2f} s = {r['per_second']:.0f} emails/s "
          f"in batches of {args.batch_size} over one connection; idle poll with {args.history} sent rows: "
          f"median {r['idle_ms_median']:.2f} ms, max {r['idle_ms_max']:.2f} ms")
    return 0 if r["sent"] == args.backlog else 1


if __name__ == "__main__":
    sys.exit(main())
