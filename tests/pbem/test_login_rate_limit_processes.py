"""The login rate limit holds under a parallel attack from real processes (several gunicorn
workers, several machines): at most MAX_FAILURES_PER_EMAIL passwords are checked per email and
window, and at most MAX_FAILURES_PER_IP per address, however many requests arrive at once.
SQLite and PostgreSQL (PostgreSQL serialises the count with advisory locks, SQLite with its
write lock)."""
from __future__ import annotations

import multiprocessing
import time

import pytest
from argon2 import PasswordHasher, profiles
from sqlalchemy import func
from sqlmodel import select

from pbem.auth import MAX_FAILURES_PER_EMAIL, MAX_FAILURES_PER_IP, create_admin
from pbem.db import make_engine, read_scope, session_scope
from pbem.models import LoginAttempt

ATTACKERS = 30
ADMIN = "boss@korsar.test"
VERIFY_SECONDS = 0.2  # a slow password check widens the window a racy count would let through


class SlowHasher(PasswordHasher):
    """argon2 at its cheapest, but each verification takes VERIFY_SECONDS (like a real one, longer)."""

    def verify(self, hash, password):  # type: ignore[no-untyped-def, override]
        time.sleep(VERIFY_SECONDS)
        return super().verify(hash, password)


def _cheap() -> PasswordHasher:
    return PasswordHasher.from_parameters(profiles.CHEAPEST)


def _attacker(url: str, email: str, ip: str, barrier, results) -> None:  # type: ignore[no-untyped-def]
    import pbem.auth

    pbem.auth._hasher = SlowHasher.from_parameters(profiles.CHEAPEST)
    engine = make_engine(url)
    try:
        with engine.connect():  # connected before the start: the requests race, not the connects
            pass
        barrier.wait(timeout=60)
        with session_scope(engine) as session:
            results.put(pbem.auth.attempt_login(session, email, "wrong password", ip).status)
    except BaseException as exc:  # noqa: BLE001  (reported to the test)
        results.put(repr(exc))
    finally:
        engine.dispose()


def _attack(url: str, emails: list[str], ips: list[str]) -> list[object]:
    ctx = multiprocessing.get_context("fork")
    barrier, results = ctx.Barrier(len(emails)), ctx.Queue()
    procs = [ctx.Process(target=_attacker, args=(url, email, ip, barrier, results))
             for email, ip in zip(emails, ips)]
    for proc in procs:
        proc.start()
    outcomes = [results.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    return outcomes


def _checked_passwords(url: str) -> int:
    """Every checked password left a failed attempt row (the row is written before the check)."""
    engine = make_engine(url)
    with read_scope(engine) as session:
        n = session.exec(select(func.count()).select_from(LoginAttempt)
                         .where(LoginAttempt.success.is_(False))).one()
    engine.dispose()
    return n


@pytest.fixture
def url_with_admin(database_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr("pbem.auth._hasher", _cheap())
    engine = make_engine(database_url)
    with session_scope(engine) as session:
        create_admin(session, ADMIN, "correct horse battery")
    engine.dispose()
    return database_url


@pytest.mark.slow
def test_thirty_parallel_wrong_logins_for_one_email_check_exactly_five_passwords(url_with_admin):
    outcomes = _attack(url_with_admin, [ADMIN] * ATTACKERS, [f"10.0.0.{i}" for i in range(ATTACKERS)])
    assert sorted(outcomes, key=str) == sorted([401] * MAX_FAILURES_PER_EMAIL
                                               + [429] * (ATTACKERS - MAX_FAILURES_PER_EMAIL), key=str)
    assert _checked_passwords(url_with_admin) == MAX_FAILURES_PER_EMAIL


@pytest.mark.slow
def test_parallel_wrong_logins_from_one_address_check_at_most_its_limit(url_with_admin):
    attackers = MAX_FAILURES_PER_IP + 10
    outcomes = _attack(url_with_admin, [f"guess{i}@korsar.test" for i in range(attackers)],
                       ["10.9.9.9"] * attackers)
    assert outcomes.count(401) == MAX_FAILURES_PER_IP and outcomes.count(429) == attackers - MAX_FAILURES_PER_IP
    assert _checked_passwords(url_with_admin) == MAX_FAILURES_PER_IP
