"""Admin accounts: login, logout, the hardened cookie, rate limits, CSRF and that every admin
URL refuses anonymous users (enumerated from the app's url_map, so new pages are covered)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from sqlalchemy import func, text
from sqlmodel import Session, select
from admin_helpers import (
    ADMIN_EMAIL,
    ADMIN_PASSWORD,
    audit_actions,
    csrf_token_of,
    db_of,
    log_in,
    new_game,
    text_of,
)

from pbem.auth import MAX_FAILURES_PER_EMAIL, MAX_FAILURES_PER_IP, attempt_login, create_admin
from pbem.db import session_scope
from pbem.models import AdminUser, Game, LoginAttempt, OutboxMessage, utcnow


def admin_rules(app):
    return [r for r in app.url_map.iter_rules() if r.endpoint.startswith("admin.")]


def concrete(rule) -> str:
    values = {"game_id": "1", "position": "0", "message_id": "1", "bounce_id": "1", "step": "1"}
    return re.sub(r"<(?:[^>:]+:)?(\w+)>", lambda m: values[m.group(1)], rule.rule)


def table_counts(app) -> dict[str, int]:
    with Session(db_of(app)) as s:
        return {m.__name__: s.exec(select(func.count()).select_from(m)).one()
                for m in (Game, OutboxMessage)}


def test_every_admin_url_refuses_anonymous_users(admin_app):
    new_game(admin_app)
    client = admin_app.test_client()
    rules = admin_rules(admin_app)
    assert len(rules) >= 15
    for rule in rules:
        if rule.endpoint == "admin.login":
            continue
        url = concrete(rule)
        if "GET" in rule.methods:
            response = client.get(url)
            assert response.status_code == 302, url
            assert response.headers["Location"].startswith("/admin/login"), url
        if "POST" in rule.methods:
            response = client.post(url, data={"email": "x@example.com", "hours": "5", "bot": "greedy"})
            assert response.status_code == 401, url


def test_every_admin_post_without_a_csrf_token_is_refused(admin_client, admin_app):
    game_id = new_game(admin_app)
    admin_app.config["WTF_CSRF_ENABLED"] = True
    before = table_counts(admin_app)
    posts = [r for r in admin_rules(admin_app) if "POST" in r.methods]
    assert len(posts) >= 12
    for rule in posts:
        url = concrete(rule).replace("/games/1/", f"/games/{game_id}/")
        response = admin_client.post(url, data={"email": "new@example.com", "hours": "5", "bot": "greedy",
                                                "password": ADMIN_PASSWORD})
        assert response.status_code == 400, url
        assert "CSRF" in text_of(response), url
    assert table_counts(admin_app) == before
    with Session(db_of(admin_app)) as s:
        assert s.get(Game, game_id).status == "running"


def test_a_post_with_the_pages_csrf_token_is_accepted(admin_client, admin_app):
    game_id = new_game(admin_app)
    admin_app.config["WTF_CSRF_ENABLED"] = True
    page = admin_client.get(f"/admin/games/{game_id}")
    response = admin_client.post(f"/admin/games/{game_id}/pause", data={"csrf_token": csrf_token_of(text_of(page))})
    assert response.status_code == 303
    with Session(db_of(admin_app)) as s:
        assert s.get(Game, game_id).status == "paused"


def test_login_form_needs_a_csrf_token_too(admin_app):
    admin_app.config["WTF_CSRF_ENABLED"] = True
    client = admin_app.test_client()
    assert log_in(client).status_code == 400
    page = client.get("/admin/login")
    response = client.post("/admin/login", data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD,
                                                 "csrf_token": csrf_token_of(text_of(page))})
    assert response.status_code == 303


def test_login_then_pages_then_logout(admin_app):
    client = admin_app.test_client()
    response = log_in(client)
    assert response.status_code == 303 and response.headers["Location"] == "/admin/"
    assert ADMIN_EMAIL in text_of(client.get("/admin/"))
    assert client.post("/admin/logout").status_code == 303
    assert client.get("/admin/").status_code == 302
    assert audit_actions(admin_app)[-2:] == ["login", "logout"]


@pytest.mark.parametrize("email,password", [
    (ADMIN_EMAIL, "wrong password"),
    ("nobody@korsar.test", ADMIN_PASSWORD),
    (ADMIN_EMAIL.upper(), "wrong password"),
])
def test_wrong_login_gets_one_message_that_names_neither_part(admin_app, email, password):
    client = admin_app.test_client()
    response = log_in(client, email, password)
    assert response.status_code == 401
    assert "Wrong email or password." in text_of(response)
    assert client.get("/admin/").status_code == 302


def test_a_new_password_ends_the_sessions_opened_with_the_old_one(admin_client, admin_app):
    assert admin_client.get("/admin/").status_code == 200
    with session_scope(db_of(admin_app)) as s:
        create_admin(s, ADMIN_EMAIL, "a brand new passphrase")
    assert admin_client.get("/admin/").status_code == 302


def copy_of_session(app, client):
    """A second browser holding the same session cookie (say, stolen before the logout)."""
    thief = app.test_client()
    thief.set_cookie("korsar_session", client.get_cookie("korsar_session").value)
    return thief


def test_a_cookie_copied_before_logout_no_longer_opens_the_dashboard(admin_client, admin_app):
    thief = copy_of_session(admin_app, admin_client)
    assert thief.get("/admin/").status_code == 200
    response = admin_client.post("/admin/logout", follow_redirects=True)
    assert "You are logged out on every device." in text_of(response)
    assert thief.get("/admin/").status_code == 302
    assert thief.post("/admin/games/1/pause").status_code == 401
    assert admin_client.get("/admin/").status_code == 302


def test_logout_ends_the_admins_sessions_on_every_device_and_a_new_login_works(admin_client, admin_app):
    laptop = admin_app.test_client()
    assert log_in(laptop).status_code == 303
    assert admin_client.post("/admin/logout").status_code == 303
    assert laptop.get("/admin/").status_code == 302
    assert log_in(laptop).status_code == 303 and laptop.get("/admin/").status_code == 200


def test_a_cookie_copied_before_a_password_reset_no_longer_opens_the_dashboard(admin_client, admin_app):
    thief = copy_of_session(admin_app, admin_client)
    with session_scope(db_of(admin_app)) as s:
        create_admin(s, ADMIN_EMAIL, "a brand new passphrase")
    assert thief.get("/admin/").status_code == 302
    assert admin_client.get("/admin/").status_code == 302
    assert log_in(thief, password="a brand new passphrase").status_code == 303


def test_a_session_without_a_generation_is_refused(admin_client, admin_app):
    """A cookie signed before sessions carried a generation (or forged without one)."""
    with admin_client.session_transaction() as sess:
        del sess["admin_gen"]
    assert admin_client.get("/admin/").status_code == 302


def test_a_logged_in_admin_opening_the_login_page_goes_to_the_dashboard(admin_client):
    response = admin_client.get("/admin/login")
    assert response.status_code == 302 and response.headers["Location"] == "/admin/"


def test_login_email_is_case_insensitive(admin_app):
    assert log_in(admin_app.test_client(), "  Boss@Korsar.TEST ").status_code == 303


def test_after_five_failures_an_email_is_locked_for_15_minutes_even_with_the_right_password(admin_app):
    client = admin_app.test_client()
    for _ in range(MAX_FAILURES_PER_EMAIL):
        assert log_in(client, password="nope nope nope").status_code == 401
    response = log_in(client)
    assert response.status_code == 429
    assert "Too many failed logins" in text_of(response)
    later = utcnow() + timedelta(minutes=16)
    with session_scope(db_of(admin_app)) as s:
        assert attempt_login(s, ADMIN_EMAIL, ADMIN_PASSWORD, "127.0.0.1", now=later).admin is not None


def test_failures_count_across_processes_because_they_live_in_the_database(app_config, admin_app):
    from pbem import create_app

    other = create_app(app_config)  # a second web process on the same database
    other.config["WTF_CSRF_ENABLED"] = False
    first, second = admin_app.test_client(), other.test_client()
    for i in range(MAX_FAILURES_PER_EMAIL):
        assert log_in(first if i % 2 else second, password="nope nope nope").status_code == 401
    assert log_in(first).status_code == 429 and log_in(second).status_code == 429
    other.extensions["korsar_db"].dispose()


def test_failures_from_one_ip_lock_it_for_every_email(admin_app):
    client = admin_app.test_client()
    for i in range(MAX_FAILURES_PER_IP):
        assert log_in(client, f"guess{i}@korsar.test", "x").status_code == 401
    assert log_in(client).status_code == 429
    other_ip = admin_app.test_client()
    response = other_ip.post("/admin/login", data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD},
                             environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert response.status_code == 303


def test_a_password_is_checked_only_after_its_attempt_is_counted(admin_app, monkeypatch):
    """The failure row is committed before the (slow) check: a crash mid-check still counts,
    and a parallel attempt sees it (the process-level test is test_login_rate_limit_processes)."""
    from argon2 import PasswordHasher, profiles

    import pbem.auth

    seen, locks_held = [], []

    class Watching(PasswordHasher):
        def verify(self, hash, password):  # type: ignore[no-untyped-def, override]
            with Session(db_of(admin_app)) as other:  # another connection: sees committed rows only
                seen.append(other.exec(select(func.count()).select_from(LoginAttempt)
                                       .where(LoginAttempt.success.is_(False))).one())
                if other.get_bind().dialect.name == "postgresql":  # the slow check holds no lock
                    locks_held.append(other.execute(text(
                        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
                        " AND classid IN (:e, :i) AND database = (SELECT oid FROM pg_database"
                        " WHERE datname = current_database())"),
                        {"e": pbem.auth._EMAIL_LOCK, "i": pbem.auth._IP_LOCK}).scalar_one())
            return super().verify(hash, password)

    monkeypatch.setattr("pbem.auth._hasher", Watching.from_parameters(profiles.CHEAPEST))
    with session_scope(db_of(admin_app)) as s:
        assert attempt_login(s, ADMIN_EMAIL, "bad", "1.1.1.1").status == 401
        assert attempt_login(s, ADMIN_EMAIL, ADMIN_PASSWORD, "1.1.1.1").admin is not None
    assert seen == [1, 2]  # the right password's row counted as a failure until it was checked
    assert not any(locks_held)  # so other attempts, even for this email, go on meanwhile
    with Session(db_of(admin_app)) as s:
        assert [a.success for a in s.exec(select(LoginAttempt).order_by(LoginAttempt.id))] == [False, True]


def test_a_successful_login_resets_the_email_count(admin_app):
    now = utcnow()
    with session_scope(db_of(admin_app)) as s:
        for i in range(MAX_FAILURES_PER_EMAIL - 1):
            attempt_login(s, ADMIN_EMAIL, "bad", "1.1.1.1", now=now + timedelta(seconds=i))
        assert attempt_login(s, ADMIN_EMAIL, ADMIN_PASSWORD, "1.1.1.1", now=now + timedelta(seconds=10)).admin
        for i in range(MAX_FAILURES_PER_EMAIL - 1):
            attempt_login(s, ADMIN_EMAIL, "bad", "1.1.1.1", now=now + timedelta(seconds=20 + i))
        result = attempt_login(s, ADMIN_EMAIL, ADMIN_PASSWORD, "1.1.1.1", now=now + timedelta(seconds=30))
        assert result.admin is not None
        assert s.exec(select(func.count()).select_from(LoginAttempt)).one() == 2 * MAX_FAILURES_PER_EMAIL


@pytest.mark.parametrize("base_url,secure", [("http://korsar.test", False), ("https://korsar.example", True)])
def test_session_cookie_is_httponly_samesite_and_secure_on_https(app_config, admin_app, base_url, secure):
    from pbem import create_app

    app = create_app({**app_config, "BASE_URL": base_url})
    app.config["WTF_CSRF_ENABLED"] = False
    response = log_in(app.test_client())
    cookie = response.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert ("Secure" in cookie) is secure
    app.extensions["korsar_db"].dispose()


@pytest.mark.parametrize("target,expected", [
    ("/admin/stats", "/admin/stats"),
    ("/admin/games?status=running&page=2", "/admin/games?status=running&page=2"),
    ("/admin", "/admin"),
    ("https://evil.example/", "/admin/"),
    ("//evil.example/admin", "/admin/"),
    ("/admin\r\nX-Evil: 1", "/admin/"),
    ("/admin\\evil", "/admin/"),
    ("/admin//evil.example", "/admin/"),
    ("/admin/\tx", "/admin/"),
    ("/adminevil", "/admin/"),
    ("/admin/caf\u00e9", "/admin/"),
    ("javascript:alert(1)", "/admin/"),
    ("", "/admin/"),
])
def test_login_returns_only_to_local_admin_pages(admin_app, target, expected):
    client = admin_app.test_client()
    response = client.post("/admin/login", query_string={"next": target},
                           data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert response.status_code == 303
    assert response.headers["Location"] == expected


@pytest.mark.parametrize("query", ["next=/admin%0d%0aX", "next=/admin%5cevil", "next=/admin\\evil",
                                   "next=//evil.example", "next=https://evil.example", "next=/admin%00"])
def test_a_bad_next_in_the_raw_query_string_goes_to_the_dashboard_never_a_500(admin_app, query):
    admin_app.config["PROPAGATE_EXCEPTIONS"] = False
    response = admin_app.test_client().post(f"/admin/login?{query}",
                                            data={"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})
    assert response.status_code == 303 and response.headers["Location"] == "/admin/"


def test_admin_pages_are_never_cached(admin_client):
    assert admin_client.get("/admin/").headers["Cache-Control"] == "no-store"


def test_over_https_a_form_posts_with_its_token_and_same_origin_referer(app_config, admin_app):
    from pbem import create_app

    app = create_app({**app_config, "BASE_URL": "https://korsar.example"})
    client = app.test_client()
    base = {"base_url": "https://korsar.example"}
    page = client.get("/admin/login", **base)
    # The browser sends a Referer to the same origin only because admin pages ask for it.
    assert page.headers["Referrer-Policy"] == "same-origin"
    form = {"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD, "csrf_token": csrf_token_of(text_of(page))}
    assert client.post("/admin/login", data=form, **base).status_code == 400  # no Referer
    response = client.post("/admin/login", data=form, headers={"Referer": "https://korsar.example/admin/login"},
                           **base)
    assert response.status_code == 303
    app.extensions["korsar_db"].dispose()


def test_create_admin_command_reads_the_password_from_the_environment(runner, app, cheap_hashing):
    result = runner.invoke(args=["create-admin", "New@Korsar.test"], env={"ADMIN_PASSWORD": "a long passphrase"})
    assert result.exit_code == 0, result.output
    with Session(app.extensions["korsar_db"]) as s:
        admin = s.exec(select(AdminUser)).one()
    assert admin.email == "new@korsar.test"
    assert admin.password_hash.startswith("$argon2id$")
    assert "a long passphrase" not in admin.password_hash


def test_create_admin_command_asks_on_the_terminal(runner, app, cheap_hashing):
    result = runner.invoke(args=["create-admin", "tty@korsar.test"], input="a long passphrase\na long passphrase\n")
    assert result.exit_code == 0, result.output
    app.config["WTF_CSRF_ENABLED"] = False
    assert log_in(app.test_client(), "tty@korsar.test", "a long passphrase").status_code == 303


@pytest.mark.parametrize("email,password,message", [
    ("not-an-email", "a long passphrase", "is not an email address"),
    ("ok@korsar.test", "short", "at least 10 characters"),
])
def test_create_admin_command_refuses_bad_input(runner, email, password, message):
    result = runner.invoke(args=["create-admin", email], env={"ADMIN_PASSWORD": password})
    assert result.exit_code != 0
    assert message in result.output


def test_create_admin_twice_sets_a_new_password(runner, app, cheap_hashing):
    runner.invoke(args=["create-admin", "x@korsar.test"], env={"ADMIN_PASSWORD": "first passphrase"})
    runner.invoke(args=["create-admin", "x@korsar.test"], env={"ADMIN_PASSWORD": "second passphrase"})
    app.config["WTF_CSRF_ENABLED"] = False
    client = app.test_client()
    assert log_in(client, "x@korsar.test", "first passphrase").status_code == 401
    assert log_in(client, "x@korsar.test", "second passphrase").status_code == 303
