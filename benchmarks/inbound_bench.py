"""Replies by email benchmark: the Procfile's `inbound:` process (the aiosmtpd receiver) on
127.0.0.1, fed replies over real SMTP by simulated players, on SQLite and PostgreSQL.

    python -m benchmarks.inbound_bench [--db sqlite postgresql] [--clients 4] [--seconds 10]
                                       [--rate 20] [--games 200]

Two figures per database:
- throughput: `--clients` SMTP connections send replies as fast as the receiver answers them
  (each client plays its own games; every reply is a legal move in words, quoted like a mail
  client quotes): replies parsed and applied per second;
- latency at `--rate` replies a second (an open-loop schedule over 4 connections): the time
  from a reply's scheduled arrival to its answer being queued. The receiver answers 250 only
  after the transaction that plays the move and queues the answer has committed, so that
  moment is the end of the SMTP transaction; p50 and p99.
The answers are counted in the outbox at the end, per kind (one "played" per reply), so a fast
wrong run shows.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import smtplib
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import engine
from sqlalchemy import func
from sqlmodel import col, select

from benchmarks.common import ROOT, free_port, percentile, scratch_database
from benchmarks.load_bench import after_forced_moves
from pbem import links
from pbem.config import Config
from pbem.db import make_engine, session_scope
from pbem.games.service import create_game
from pbem.store import load_state
from pbem.migrations import upgrade_database
from pbem.models import Game, OutboxMessage, Seat

SECRET = "bench-kU4pXw9RzT2mQe7LcV0nYh3JdA6sGb8F"


def inbound_process(url: str, secret: str, mail_from: str, port: int) -> tuple[str, dict[str, str]]:
    """The Procfile's `inbound:` command and its environment: production settings on `url`,
    listening on `port` of 127.0.0.1, no IMAP, no dev inbox."""
    env = {**os.environ, "DATABASE_URL": url, "SECRET_KEY": secret, "KORSAR_ENV": "production",
           "BASE_URL": "http://127.0.0.1", "MAIL_FROM": mail_from, "INBOUND_PORT": str(port),
           "IMAP_URL": "", "DEV_INBOX": "0",
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}"}
    command = next(line.split(":", 1)[1].strip() for line in (ROOT / "Procfile").read_text().splitlines()
                   if line.startswith("inbound:"))
    return command, env
MAIL_FROM = "Korsar <korsar@bench.test>"
QUOTE = "\n".join(f"> line {i} of the turn email we answer, quoted by the mail client" for i in range(40))


@dataclass
class BenchGame:
    """A game as its players know it: addresses, link nonces and the state their moves lead to."""

    id: int
    emails: list[str]
    nonces: list[str]
    state: Any
    rng: random.Random

    def reply(self, cfg: Config) -> EmailMessage:
        """The next reply of the seat to move (a legal move, in words), and play it here too."""
        seat = self.state.to_move
        move = self.rng.choice(engine.legal_moves(self.state))
        msg = EmailMessage()
        msg["From"] = self.emails[seat]
        msg["To"] = links.reply_address(cfg, self.id, seat, self.nonces[seat], self.state.version)
        msg["Subject"] = "Re: [Korsar] your turn"
        msg["Message-ID"] = make_msgid(domain="bench.test")
        msg.set_content(f"{words(move)}\n\nOn Tue, Dec 1, 2026 at 10:00 AM Korsar wrote:\n{QUOTE}\n")
        self.state = after_forced_moves(engine.apply_move(self.state, seat, move)[0])
        return msg


def words(move: dict[str, Any]) -> str:
    if move["action"] == "draw":
        return "draw"
    if move["action"] == "discard":
        return f"discard {move['card']}"
    return f"{move['card']} on {move['target']}" if "target" in move else move["card"]


@dataclass
class Samples:
    latencies_ms: list[float] = field(default_factory=list)
    replies: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors[what] = self.errors.get(what, 0) + 1


def make_games(url: str, cfg: Config, count: int) -> list[BenchGame]:
    db = make_engine(url)
    with session_scope(db) as session:
        ids = [create_game(session, cfg, [f"Ann <ann{i}@bench.test>", f"Bob <bob{i}@bench.test>"], seed=i).id
               for i in range(count)]
    games = []
    with session_scope(db) as session:
        for game_id in ids:
            game = session.get(Game, game_id)
            seats = session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.position))).all()
            games.append(BenchGame(game_id, [s.email or "" for s in seats], [s.link_nonce for s in seats],
                                   load_state(game), random.Random(game_id)))
    db.dispose()
    return games


def _next_game(games: list[BenchGame], i: int) -> BenchGame | None:
    for k in range(len(games)):
        game = games[(i + k) % len(games)]
        if not game.state.finished:
            return game
    return None


def saturate(port: int, cfg: Config, shares: list[list[BenchGame]], seconds: float) -> tuple[Samples, float]:
    """Every client sends replies back to back for `seconds`; (samples, elapsed)."""
    samples = Samples()
    until = time.monotonic() + seconds

    def client(games: list[BenchGame]) -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
            i = 0
            while time.monotonic() < until:
                game = _next_game(games, i)
                if game is None:
                    return
                i += 1
                try:
                    smtp.send_message(game.reply(cfg))
                    with samples.lock:
                        samples.replies += 1
                except smtplib.SMTPException as exc:
                    samples.error(type(exc).__name__)

    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(share,)) for share in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return samples, time.monotonic() - started


def paced(port: int, cfg: Config, games: list[BenchGame], rate: float, seconds: float) -> Samples:
    """Replies due at `rate` a second (open loop, 4 connections); latency from each one's due time."""
    samples = Samples()
    count = int(rate * seconds)
    start = time.monotonic() + 0.2
    next_index = iter(range(count))
    lock = threading.Lock()
    connections = 4
    own = [games[c::connections] for c in range(connections)]

    def sender(c: int) -> None:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:
            while True:
                with lock:
                    index = next(next_index, None)
                if index is None:
                    return
                due = start + index / rate
                game = _next_game(own[c], index)
                if game is None:
                    return
                msg = game.reply(cfg)
                time.sleep(max(0.0, due - time.monotonic()))
                try:
                    smtp.send_message(msg)
                except smtplib.SMTPException as exc:
                    samples.error(type(exc).__name__)
                    continue
                with samples.lock:
                    samples.latencies_ms.append((time.monotonic() - due) * 1000)
                    samples.replies += 1

    threads = [threading.Thread(target=sender, args=(c,)) for c in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return samples


def _answers(url: str) -> dict[str, int]:
    """The answers queued, per kind (every reply of the bench is a legal move: all "played")."""
    db = make_engine(url)
    with session_scope(db) as session:
        rows = session.exec(select(OutboxMessage.kind, func.count()).where(
            col(OutboxMessage.kind).in_(["reply_played", "reply_refused"])).group_by(OutboxMessage.kind)).all()
    db.dispose()
    return {kind: int(n) for kind, n in rows}


def run(kind: str, clients: int, seconds: float, rate: float, games: int) -> dict[str, Any]:
    with scratch_database(kind) as url:
        upgrade_database(url)
        cfg = Config(DATABASE_URL=url, SECRET_KEY=SECRET, BASE_URL="http://127.0.0.1", MAIL_FROM=MAIL_FROM)
        fast = make_games(url, cfg, games)
        slow = make_games(url, cfg, games)
        port = free_port()
        command, env = inbound_process(url, SECRET, MAIL_FROM, port)
        with tempfile.TemporaryFile() as log:
            proc = subprocess.Popen(["/bin/sh", "-c", f"exec {command}"], cwd=ROOT, env=env, stdout=log,
                                    stderr=subprocess.STDOUT)
            try:
                _wait(port, proc, log)
                throughput, elapsed = saturate(port, cfg, [fast[i::clients] for i in range(clients)], seconds)
                latency = paced(port, cfg, slow, rate, seconds)
            finally:
                proc.terminate()
                proc.wait(timeout=20)
        answers = _answers(url)
    return {
        "db": kind, "clients": clients, "command": command,
        "throughput": {"replies": throughput.replies, "seconds": round(elapsed, 2),
                       "replies_per_second": round(throughput.replies / elapsed, 1), "errors": throughput.errors},
        "latency": {"rate_per_second": rate, "replies": latency.replies,
                    "p50_ms": round(percentile(latency.latencies_ms, 50), 1),
                    "p99_ms": round(percentile(latency.latencies_ms, 99), 1), "errors": latency.errors},
        "answers_queued": answers, "replies_sent": throughput.replies + latency.replies,
        "load_average": [round(x, 1) for x in os.getloadavg()], "cpus": os.cpu_count(),
    }


def _wait(port: int, proc: subprocess.Popen, log: Any) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise SystemExit(f"the inbound process stopped:\n{log.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit("the inbound process did not listen in 30 s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", nargs="+", default=["sqlite", "postgresql"], choices=["sqlite", "postgresql"])
    parser.add_argument("--clients", type=int, default=4, help="SMTP connections sending back to back")
    parser.add_argument("--seconds", type=float, default=10.0, help="seconds of each phase")
    parser.add_argument("--rate", type=float, default=20.0, help="replies a second of the latency phase")
    parser.add_argument("--games", type=int, default=200, help="games of each phase")
    args = parser.parse_args(argv)
    for kind in args.db:
        print(json.dumps(run(kind, args.clients, args.seconds, args.rate, args.games), indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
