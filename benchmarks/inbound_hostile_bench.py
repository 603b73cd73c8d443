"""The hostile emails of issue 22, each read in a fresh process: wall time, CPU time and peak
memory of `message.read_message` and of `handler.handle_message` (against a scratch database).

    python -m benchmarks.inbound_hostile_bench [--db sqlite postgresql] [--targets read handle]
                                               [--cases ...] [--timeout 120] [--memory-mb 8192]

Cases: the 900 kB Subject of 12,000 encoded-words, an HTML-only email of nested `<b>` then
`</i>` (288 kB), 5,000 header fields, MIME nested 1,000 deep, 1,000 MIME parts, one 900 kB
header line, a reply to game id 2**31, a NUL in the Message-ID; and a plain reply for scale.
Per case and target a JSON line: outcome (what the handler did, or the 5xx it refused with),
seconds (wall), cpu_seconds, peak_mb (the process's maximum resident set, imports included)
and baseline_mb (the same just before the call). Goal: each under 1 s, peak under 200 MB.
A child past --timeout or --memory-mb (its address space is capped) is reported as such.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from typing import Any

from benchmarks.common import scratch_database

SECRET = "bench-kU4pXw9RzT2mQe7LcV0nYh3JdA6sGb8F"
MAIL_FROM = "Korsar <korsar@korsar.test>"
ANN = "ann@bench.test"


def _head(to: str, message_id: str = "<hostile@bench.test>") -> bytes:
    return (f"From: Ann <{ANN}>\r\nTo: {to}\r\nMessage-ID: {message_id}\r\n"
            f"Date: Tue, 01 Dec 2026 10:00:00 +0000\r\n").encode()


def subject_of_encoded_words(to: str) -> bytes:
    word = b"=?utf-8?q?" + b"Nh=C3=A9" * 8 + b"?="
    return _head(to) + b"Subject: " + b"\r\n ".join(word for _ in range(12_000)) + b"\r\n\r\ndraw\r\n"


def nested_html(to: str) -> bytes:
    count = 288_000 // 7
    html = b"<html><body>" + b"<b>" * count + b"</i>" * count + b"draw</body></html>"
    return (_head(to) + b"Subject: Re: turn\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
            + html)


def many_headers(to: str) -> bytes:
    return _head(to) + b"".join(b"X-Header-%d: value\r\n" % i for i in range(5_000)) + b"\r\ndraw\r\n"


def deep_mime(to: str) -> bytes:
    out = _head(to) + b"Subject: Re: turn\r\nMIME-Version: 1.0\r\n"
    for level in range(1_000):
        out += b"Content-Type: multipart/mixed; boundary=b%d\r\n\r\n--b%d\r\n" % (level, level)
    out += b"Content-Type: text/plain\r\n\r\ndraw\r\n"
    return out + b"".join(b"--b%d--\r\n" % level for level in reversed(range(1_000)))


def many_parts(to: str) -> bytes:
    body = b"".join(b"--b\r\nContent-Type: text/plain\r\n\r\ndraw\r\n" for _ in range(1_000)) + b"--b--\r\n"
    return (_head(to) + b"Subject: Re: turn\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n"
            + body)


def huge_header_line(to: str) -> bytes:
    return _head(to) + b"Subject: Re: turn\r\nX-Long: " + b"a" * 900_000 + b"\r\n\r\ndraw\r\n"


def game_id_past_32_bits(to: str) -> bytes:
    local, _, domain = to.partition("@")
    _, token = local.split("+", 1)
    mac = token.rsplit("-", 1)[1]
    return _head(f"play+{2**31}-0-0-{mac}@{domain}") + b"Subject: Re: turn\r\n\r\ndraw\r\n"


def nul_in_message_id(to: str) -> bytes:
    return _head(to, "<nul\x00id@bench.test>") + b"Subject: Re: turn\r\n\r\ndraw\r\n"


def plain_reply(to: str) -> bytes:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"Ann <{ANN}>", to, "Re: turn"
    msg["Message-ID"] = "<plain@bench.test>"
    quote = "\n".join(f"> line {i} of the turn email" for i in range(40))
    msg.set_content(f"draw\n\nOn Tue, Dec 1, 2026 at 10:00 AM Korsar wrote:\n{quote}\n")
    return msg.as_bytes()


CASES: dict[str, Callable[[str], bytes]] = {
    "subject-12000-encoded-words": subject_of_encoded_words,
    "nested-b-i-html-288kB": nested_html,
    "5000-headers": many_headers,
    "mime-1000-deep": deep_mime,
    "1000-mime-parts": many_parts,
    "900kB-header-line": huge_header_line,
    "game-id-2**31": game_id_past_32_bits,
    "nul-in-message-id": nul_in_message_id,
    "plain-reply": plain_reply,
}


def _config(url: str) -> Any:
    from pbem.config import Config
    return Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1", MAIL_FROM=MAIL_FROM)


def prepare(url: str) -> str:
    """A migrated database with one game of Ann and Bob; Ann's reply address for its first turn."""
    from pbem import links
    from pbem.db import make_engine, session_scope
    from pbem.games.service import create_game, seats_of
    from pbem.migrations import upgrade_database

    upgrade_database(url)
    cfg = _config(url)
    db = make_engine(url)
    with session_scope(db) as session:
        game = create_game(session, cfg, [f"Ann <{ANN}>", "Bob <bob@bench.test>"], seed=1)
        seat = seats_of(session, game.id)[0]
        address = links.reply_address(cfg, game.id, 0, seat.link_nonce, game.version)
    db.dispose()
    return address


def run_one(case: str, target: str, url: str, to: str) -> dict[str, Any]:
    """In this (fresh) process: one hostile email through `target`."""
    from pbem.inbound.message import read_message

    # The bench measures older code too: the errors live in `bounds` since issue 24, in `message`
    # before, and before issue 22 there was only TooLarge.
    try:
        from pbem.inbound import bounds as errors
    except ImportError:
        from pbem.inbound import message as errors  # type: ignore[no-redef]
    refused: type[Exception] = getattr(errors, "Rejected", errors.TooLarge)
    raw = CASES[case](to).replace(b"<hostile@bench.test>", f"<{case}@bench.test>".encode())
    call: Callable[[], str]
    if target == "read":
        def call() -> str:
            mail = read_message(raw, authserv_id="korsar.test")
            return f"read (text {len(mail.text)} chars, id {mail.message_id[:24]!r})"
    else:
        from pbem.db import make_engine
        from pbem.inbound.handler import handle_message
        db = make_engine(url)
        cfg = _config(url)

        def call() -> str:
            handled = handle_message(db, cfg, raw, envelope_from=ANN, envelope_rcpts=[])
            return f"{handled.outcome}: {handled.reason}"[:90]
    baseline = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    try:
        outcome = call()
    except refused as exc:
        outcome = f"rejected {getattr(exc, 'code', '')}: {exc}"
    except Exception as exc:  # noqa: BLE001  (what the receiver would have answered 451 to)
        outcome = f"raised {type(exc).__name__}: {str(exc)[:80]}"
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {"case": case, "target": target, "bytes": len(raw), "outcome": outcome, "seconds": round(wall, 4),
            "cpu_seconds": round(after.ru_utime + after.ru_stime - baseline.ru_utime - baseline.ru_stime, 4),
            "peak_mb": round(after.ru_maxrss / 1024, 1), "baseline_mb": round(baseline.ru_maxrss / 1024, 1)}


def run_child(case: str, target: str, url: str, to: str, timeout: float, memory_mb: int) -> dict[str, Any]:
    def cap() -> None:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    command = [sys.executable, "-m", "benchmarks.inbound_hostile_bench", "--one", case, target, url, to]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, preexec_fn=cap)
    except subprocess.TimeoutExpired:
        return {"case": case, "target": target, "outcome": f"killed after {timeout:g} s"}
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["?"])[-1]
        return {"case": case, "target": target, "outcome": f"crashed: {last[:120]}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--targets", nargs="+", default=["read", "handle"], choices=["read", "handle"])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per case")
    parser.add_argument("--memory-mb", type=int, default=8192, help="address space cap of each case")
    parser.add_argument("--one", nargs=4, metavar=("CASE", "TARGET", "URL", "TO"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return 0
    for index, kind in enumerate(args.db):
        with scratch_database(kind) as url:
            to = prepare(url)
            # Reading needs no database: once, with the first.
            targets = [t for t in args.targets if t == "handle" or index == 0]
            for target in targets:
                for case in args.cases:
                    result = run_child(case, target, url, to, args.timeout, args.memory_mb)
                    print(json.dumps({"db": kind if target == "handle" else "-", **result}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
