"""Per-IP limits count clients (issue 23, point 4): an IPv6 /64 is one client, since a host is
handed a whole /64 and may pick any address in it; an IPv4 address is one client; an IPv4
address written as IPv6 is that IPv4 address. `pbem.addresses.client_key` builds every IP key:
the limits of /new and /me, and the admin login's."""
from __future__ import annotations

import re
from datetime import datetime

import pytest
from game_helpers import cfg_of

from pbem import auth
from pbem.addresses import client_key
from pbem.db import session_scope
from pbem.games import limits

NOW = datetime(2026, 12, 2, 12, 0)
IP_LIMITS = [v for v in vars(limits).values() if isinstance(v, limits.Limit) and v.per == "ip"]


@pytest.mark.parametrize("one,other", [
    ("2001:db8:1:2::1", "2001:db8:1:2:ffff:ffff:ffff:ffff"),
    ("2001:db8:1:2:aaaa::1", "2001:DB8:1:2:bbbb::9"),
    ("2001:0db8:0001:0002:0000:0000:0000:0001", "2001:db8:1:2::7"),
    ("fe80::1%eth0", "fe80::2"),
    ("::ffff:192.0.2.7", "192.0.2.7"),
    (" 192.0.2.7", "192.0.2.7"),
])
def test_addresses_of_one_client_have_one_key(one, other):
    assert client_key(one) == client_key(other)


@pytest.mark.parametrize("one,other", [
    ("2001:db8:1:2::1", "2001:db8:1:3::1"),  # the next /64: another household
    ("192.0.2.7", "192.0.2.8"),  # IPv4: one address, one client
    ("::ffff:192.0.2.7", "::ffff:192.0.2.8"),
])
def test_other_clients_have_other_keys(one, other):
    assert client_key(one) != client_key(other)


@pytest.mark.parametrize("given,key", [
    ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
    ("192.0.2.7", "192.0.2.7"),
    ("unknown", "unknown"),
    ("X" * 100, "x" * 64),  # not an IP: lower-cased and cut short, never an error
])
def test_the_key_of_a_client(given, key):
    assert client_key(given) == key


def test_the_emails_anyone_can_ask_for_are_counted_per_client():
    assert limits.LINKS_PER_IP in IP_LIMITS


@pytest.mark.parametrize("limit", IP_LIMITS, ids=lambda limit: limit.kind)
def test_every_address_of_one_ipv6_64_counts_against_one_limit(engine, cfg, limit):
    allowed = limit.number(cfg)
    with session_scope(engine) as session:
        for n in range(allowed):
            limits.take(session, cfg, limit, f"2001:db8:1:2:{n:x}::{n + 1:x}", now=NOW)
    with session_scope(engine) as session, pytest.raises(limits.LimitReached):
        limits.take(session, cfg, limit, "2001:db8:1:2:ffff::1", now=NOW)
    with session_scope(engine) as session:  # the next /64 and an IPv4 address are other clients
        limits.take(session, cfg, limit, "2001:db8:1:3::1", now=NOW)
        limits.take(session, cfg, limit, "192.0.2.7", now=NOW)


def _hidden_fields(page: str) -> dict[str, str]:
    return {m["name"]: m["value"] for m in re.finditer(
        r'<input[^>]*type="hidden"[^>]*name="(?P<name>[^"]+)"[^>]*value="(?P<value>[^"]*)"', page)}


def test_the_new_game_form_counts_an_ipv6_64_as_one_client(app):
    cfg_of(app).LIMIT_LINKS_PER_IP_HOUR = 2
    statuses = []
    for n in range(3):  # three visitors, three addresses of one /64
        client = app.test_client()
        environ = {"REMOTE_ADDR": f"2001:db8:7:7::{n + 1:x}"}
        form = _hidden_fields(client.get("/new", environ_base=environ).get_data(as_text=True))
        form.update({"your_name": f"Ann {n}", "your_email": f"ann{n}@example.com", "players": "bot:greedy",
                     "deadline_hours": "72", "reminders": "50,85", "on_timeout": "autoplay"})
        statuses.append(client.post("/new", data=form, environ_base=environ).status_code)
    assert statuses == [303, 303, 429]


@pytest.mark.parametrize("remote,key", [
    ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:9::9", "2001:db8:1:2::/64"),
    ("198.51.100.4", "198.51.100.4"),
])
def test_the_admin_login_counts_failures_per_client(app, remote, key):
    with app.test_request_context("/admin/login", environ_base={"REMOTE_ADDR": remote}):
        assert auth.client_ip() == key
