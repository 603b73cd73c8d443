"""Admin accounts: argon2 password hashes, login rate limits counted in the database, audit log.

The rate limit lives in the `login_attempt` table so that every web process sees the same
counts. Sessions are Flask's signed cookie; the cookie flags are set in `create_app`.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from flask import g, redirect, request, session, url_for
from sqlalchemy import delete, func
from sqlmodel import Session, select

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
        column == value, LoginAttempt.created_at >= since, LoginAttempt.success.is_(False)
    )
    return session.exec(query).one()


def _last_success(session: Session, email: str) -> datetime | None:
    query = select(func.max(LoginAttempt.created_at)).where(
        LoginAttempt.email == email, LoginAttempt.success.is_(True)
    )
    return session.exec(query).one()


def is_rate_limited(session: Session, email: str, ip: str, now: datetime) -> bool:
    """Too many recent failures for this email (since its last success) or from this IP."""
    since = now - FAILURE_WINDOW
    last_ok = _last_success(session, email)
    email_since = max(since, last_ok) if last_ok else since
    return (
        _recent_failures(session, LoginAttempt.email, email, email_since) >= MAX_FAILURES_PER_EMAIL
        or _recent_failures(session, LoginAttempt.ip, ip, since) >= MAX_FAILURES_PER_IP
    )


def attempt_login(session: Session, email: str, password: str, ip: str, *, now: datetime | None = None) -> LoginResult:
    """Check a login and record the attempt (in `session`'s transaction, commit it either way)."""
    now = now or utcnow()
    email = normalize_email(email)[:254]
    if is_rate_limited(session, email, ip, now):
        return LoginResult(None, "Too many failed logins. Wait 15 minutes and try again.", 429)
    admin = session.exec(select(AdminUser).where(AdminUser.email == email)).first()
    try:
        _hasher.verify(admin.password_hash if admin else _dummy_hash(_hasher), password)
        ok = admin is not None
    except (VerificationError, InvalidHashError):
        ok = False
    session.add(LoginAttempt(email=email, ip=ip[:64], success=ok, created_at=now))
    if not ok or admin is None:
        return LoginResult(None, "Wrong email or password.", 401)
    # Old rows of this email no longer count for anything (indexed delete keeps the table small).
    session.execute(delete(LoginAttempt).where(LoginAttempt.email == email,
                                               LoginAttempt.created_at < now - FAILURE_WINDOW))
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
SESSION_PASSWORD_KEY = "admin_pw"


def _password_mark(admin: AdminUser) -> str:
    # Ties a session to the password it was opened with: a new password ends old sessions.
    return hashlib.sha256(admin.password_hash.encode()).hexdigest()[:16]


def log_in(admin: AdminUser) -> None:
    session.clear()  # a fresh session on login: nothing carried over from before
    session[SESSION_KEY] = admin.id
    session[SESSION_PASSWORD_KEY] = _password_mark(admin)
    session.permanent = True


def log_out() -> None:
    session.clear()


def current_admin_email() -> str | None:
    return g.get("admin_email")


def load_admin(db_session: Session) -> AdminUser | None:
    """The logged-in admin (None when anonymous, the account is gone or its password changed)."""
    admin_id = session.get(SESSION_KEY)
    if not isinstance(admin_id, int):
        return None
    admin = db_session.get(AdminUser, admin_id)
    if admin is None or not hmac.compare_digest(str(session.get(SESSION_PASSWORD_KEY, "")),
                                                  _password_mark(admin)):
        return None
    g.admin_email = admin.email
    return admin


def login_redirect() -> Any:
    target = request.full_path.rstrip("?") if request.method == "GET" else None
    return redirect(url_for("admin.login", next=target))


def client_ip() -> str:
    return request.remote_addr or "unknown"


def safe_next(target: str | None) -> str | None:
    """Only local admin paths are followed after login (no open redirect)."""
    if target and target.startswith("/admin") and not target.startswith("//"):
        return target
    return None

