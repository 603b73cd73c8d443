"""Admin accounts: argon2 password hashes, login rate limits counted in the database, audit log.

The rate limit lives in the `login_attempt` table so that every web process sees the same
counts. Each attempt is counted and recorded as a failure in one short serialised write
transaction *before* its password is checked (PostgreSQL: advisory locks per email and per
IP; SQLite: its write lock), so at most MAX_FAILURES_PER_EMAIL passwords are ever checked per
email and window, however many requests arrive at once; a correct password then marks its row
a success. Sessions are Flask's signed cookie (flags set in `create_app`) carrying the admin's
`session_generation`: logout and a new password increment it, which ends every session.
"""
from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import g, redirect, request, session, url_for
from sqlalchemy import delete, func, text, update
from sqlmodel import Session, col, select

from pbem.addresses import client_key
from pbem.models import AdminUser, AuditLog, LoginAttempt, utcnow

MAX_FAILURES_PER_EMAIL = 5
MAX_FAILURES_PER_IP = 20
FAILURE_WINDOW = timedelta(minutes=15)
MIN_PASSWORD_LENGTH = 10

_hasher = PasswordHasher()


@functools.lru_cache(maxsize=4)
def _dummy_hash(hasher: PasswordHasher) -> str:
    """Verified against when the email is unknown, so both cases cost the same time."""
    return hasher.hash("no such admin, but take as long as a real check")

class AdminError(ValueError):
    """A refused admin-account operation, with a message for the admin."""


def normalize_email(email: str) -> str:
    return email.strip().lower()


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def create_admin(session: Session, email: str, password: str, *, now: datetime | None = None) -> AdminUser:
    """Create an admin, or set a new password when the email already has an account."""
    email = normalize_email(email)
    if "@" not in email or len(email) > 254:
        raise AdminError(f"{email!r} is not an email address.")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AdminError(f"The password needs at least {MIN_PASSWORD_LENGTH} characters.")
    admin = session.exec(select(AdminUser).where(AdminUser.email == email)).first()
    if admin is None:
        admin = AdminUser(email=email, password_hash=hash_password(password), created_at=now or utcnow())
        session.add(admin)
        action = "create_admin"
    else:
        admin.password_hash = hash_password(password)
        admin.session_generation += 1  # a new password ends every session opened with the old
        action = "reset_admin_password"
    record_audit(session, "cli", action, detail=email, now=now)
    session.flush()
    return admin


@dataclass(frozen=True)
class LoginResult:
    admin: AdminUser | None
    error: str | None = None
    status: int = 200


def _recent_failures(session: Session, column: Any, value: str, since: datetime) -> int:
    query = select(func.count()).select_from(LoginAttempt).where(
        column == value, LoginAttempt.created_at >= since, col(LoginAttempt.success).is_(False)
    )
    return session.exec(query).one()


def _last_success(session: Session, email: str) -> datetime | None:
    query = select(func.max(LoginAttempt.created_at)).where(
        LoginAttempt.email == email, col(LoginAttempt.success).is_(True)
    )
    return session.exec(query).one()


def is_rate_limited(session: Session, email: str, ip: str, now: datetime) -> bool:
    """Too many recent failures for this email (since its last success) or from this IP.

    Only a count: `attempt_login` takes the locks that make count-then-record atomic."""
    since = now - FAILURE_WINDOW
    last_ok = _last_success(session, email)
    email_since = max(since, last_ok) if last_ok else since
    return (
        _recent_failures(session, LoginAttempt.email, email, email_since) >= MAX_FAILURES_PER_EMAIL
        or _recent_failures(session, LoginAttempt.ip, ip, since) >= MAX_FAILURES_PER_IP
    )


# Namespaces of the two-key advisory locks (pg_advisory_xact_lock(int, int)); the migrations'
# lock uses the one-key form, a separate key space.
_EMAIL_LOCK, _IP_LOCK = 0x4B4C0001, 0x4B4C0002


def _lock_key(value: str) -> int:
    """A signed 32-bit hash: two values that collide only share a queue, never a count."""
    return int.from_bytes(hashlib.blake2b(value.encode(), digest_size=4).digest(), "big", signed=True)


def _serialise_attempts(session: Session, email: str, ip: str) -> None:
    """Hold, until the transaction ends, the turn of this email's and this IP's attempts.

    PostgreSQL: transaction-level advisory locks, email's first then IP's (one order, so no
    deadlock), and other emails and addresses go on in parallel. SQLite: the transaction
    already holds the database's write lock (BEGIN IMMEDIATE, see pbem/sqlite.py)."""
    if session.get_bind().dialect.name != "postgresql":
        return
    for namespace, value in ((_EMAIL_LOCK, email), (_IP_LOCK, ip)):
        session.execute(text("SELECT pg_advisory_xact_lock(:ns, :key)"),
                        {"ns": namespace, "key": _lock_key(value)})


def attempt_login(session: Session, email: str, password: str, ip: str, *, now: datetime | None = None) -> LoginResult:
    """Check a login and record the attempt. Commits `session` (with whatever it holds already)
    once the attempt is counted, before the password check, so the slow check holds no lock;
    the caller commits the rest (success mark, audit row), as `session_scope` does."""
    now = now or utcnow()
    email = normalize_email(email)[:254]
    ip = ip[:64]
    _serialise_attempts(session, email, ip)
    if is_rate_limited(session, email, ip, now):
        return LoginResult(None, "Too many failed logins. Wait 15 minutes and try again.", 429)
    # Counted as a failure until the password proves right: a check that crashes or is cut
    # short still counts, and no parallel attempt can slip past the limit meanwhile.
    attempt = LoginAttempt(email=email, ip=ip, success=False, created_at=now)
    session.add(attempt)
    admin = session.exec(select(AdminUser).where(AdminUser.email == email)).first()
    session.commit()  # releases the locks; every password check below has its row already
    try:
        _hasher.verify(admin.password_hash if admin else _dummy_hash(_hasher), password)
        ok = admin is not None
    except (VerificationError, InvalidHashError):
        ok = False
    if not ok or admin is None:
        return LoginResult(None, "Wrong email or password.", 401)
    session.execute(update(LoginAttempt).where(col(LoginAttempt.id) == attempt.id).values(success=True))
    # Old rows of this email no longer count for anything (indexed delete keeps the table small).
    session.execute(delete(LoginAttempt).where(col(LoginAttempt.email) == email,
                                               col(LoginAttempt.created_at) < now - FAILURE_WINDOW))
    if _hasher.check_needs_rehash(admin.password_hash):
        admin.password_hash = hash_password(password)
    admin.last_login_at = now
    record_audit(session, admin.email, "login", now=now)
    return LoginResult(admin)


def record_audit(
    session: Session,
    actor: str,
    action: str,
    *,
    game_id: int | None = None,
    detail: str = "",
    now: datetime | None = None,
) -> AuditLog:
    """Write one audit row in the caller's transaction (so it exists iff the action happened)."""
    row = AuditLog(actor=actor, action=action, game_id=game_id, detail=detail, created_at=now or utcnow())
    session.add(row)
    return row


# ---------------------------------------------------------------- request side
SESSION_KEY = "admin_id"
SESSION_GENERATION_KEY = "admin_gen"


def log_in(admin: AdminUser) -> None:
    session.clear()  # a fresh session on login: nothing carried over from before
    session[SESSION_KEY] = admin.id
    session[SESSION_GENERATION_KEY] = admin.session_generation
    session.permanent = True


def end_all_sessions(db_session: Session, admin_id: int) -> None:
    """Every session cookie of this admin stops working, on every device (copied ones too)."""
    db_session.execute(update(AdminUser).where(col(AdminUser.id) == admin_id)
                       .values(session_generation=AdminUser.session_generation + 1))


def log_out(db_session: Session) -> None:
    """End the logged-in admin's sessions server-side, in `db_session`'s transaction; clear
    this cookie with `clear_session()` once that has committed."""
    admin_id = session.get(SESSION_KEY)
    if isinstance(admin_id, int):
        end_all_sessions(db_session, admin_id)


def clear_session() -> None:
    session.clear()


def current_admin_email() -> str | None:
    return g.get("admin_email")


def load_admin(db_session: Session) -> AdminUser | None:
    """The logged-in admin (None when anonymous, the account is gone, or the session was ended
    by a logout or a new password: its generation is not the account's any more)."""
    admin_id = session.get(SESSION_KEY)
    generation = session.get(SESSION_GENERATION_KEY)
    if not isinstance(admin_id, int) or not isinstance(generation, int):
        return None
    admin = db_session.get(AdminUser, admin_id)
    if admin is None or admin.session_generation != generation:
        return None
    g.admin_email = admin.email
    return admin


def login_redirect() -> Any:
    target = request.full_path.rstrip("?") if request.method == "GET" else None
    return redirect(url_for("admin.login", next=target))


def client_ip() -> str:
    """The client the login limits count: an IPv4 address, or an IPv6 /64 (`client_key`)."""
    return client_key(request.remote_addr or "unknown")


# A local admin path (and query) made of URL characters that need no escaping in a header:
# no control characters, no backslash, no scheme, no "//" (see safe_next).
_SAFE_NEXT = re.compile(r"/admin(?:[/?][A-Za-z0-9\-._~!$&'()*+,;=:@/?%]*)?")


def safe_next(target: str | None) -> str | None:
    """Only local admin paths are followed after login (no open redirect, no header injection)."""
    if target and len(target) <= 2000 and _SAFE_NEXT.fullmatch(target) and "//" not in target:
        return target
    return None
