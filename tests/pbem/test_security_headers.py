"""Security headers on every response, and templates that work under the strict CSP."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from pbem import create_app

TEMPLATE_DIRS = [Path(__file__).resolve().parents[2] / "pbem" / "templates"]


def _csp(response) -> dict[str, list[str]]:
    directives = [d.strip().split() for d in response.headers["Content-Security-Policy"].split(";")]
    return {d[0]: d[1:] for d in directives if d}


@pytest.mark.parametrize("path", ["/healthz", "/no-such-page", "/m/not-a-token", "/g/not-a-token"])
def test_every_response_has_the_security_headers(client, path):
    response = client.get(path)
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "same-origin"
    assert "Content-Security-Policy" in response.headers


def test_csp_allows_no_inline_script_and_no_framing(client):
    csp = _csp(client.get("/healthz"))
    assert csp["script-src"] == ["'self'"]
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert not any("unsafe" in source for sources in csp.values() for source in sources)


def test_pages_are_not_kept_by_shared_caches(client):
    assert client.get("/no-such-page").headers["Cache-Control"] == "no-store"


@pytest.mark.parametrize("base_url, hsts", [("https://korsar.example", True), ("http://127.0.0.1:5000", False)])
def test_hsts_only_when_served_over_https(app_config, base_url, hsts):
    app = create_app({**app_config, "BASE_URL": base_url})
    response = app.test_client().get("/healthz")
    assert ("Strict-Transport-Security" in response.headers) is hsts
    app.extensions["korsar_db"].dispose()


def _templates() -> list[Path]:
    return sorted(p for d in TEMPLATE_DIRS if d.exists() for p in d.rglob("*.html"))


@pytest.mark.parametrize("template", _templates(), ids=lambda p: p.name)
def test_templates_have_no_inline_script(template):
    html = template.read_text()
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "inline <script>: the CSP blocks it"
    assert not re.search(r"\son[a-z]+\s*=", html), "inline event handler: the CSP blocks it"
    assert "javascript:" not in html


@pytest.mark.parametrize("hops, seen", [(0, "127.0.0.1"), (1, "203.0.113.7")])
def test_forwarded_client_address_is_trusted_only_behind_a_declared_proxy(app, hops, seen):
    from flask import request

    from pbem.web.security import trust_proxies

    @app.get("/test-only/ip")
    def ip() -> str:
        return request.remote_addr or ""

    trust_proxies(app, hops)
    response = app.test_client().get("/test-only/ip", headers={"X-Forwarded-For": "203.0.113.7"},
                                     environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert response.get_data(as_text=True) == seen


def test_a_header_the_view_set_is_kept_whatever_its_case(app):
    @app.get("/test-only/own-headers")
    def own_headers():  # type: ignore[no-untyped-def]
        return "ok", 200, {"cache-control": "max-age=60", "x-frame-options": "SAMEORIGIN"}

    response = app.test_client().get("/test-only/own-headers")
    assert response.headers.getlist("Cache-Control") == ["max-age=60"]
    assert response.headers.getlist("X-Frame-Options") == ["SAMEORIGIN"]
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_player_pages_are_kept_out_of_search_engines(client):
    response = client.get("/m/not-a-token")
    assert response.headers.getlist("X-Robots-Tag") == ["noindex, nofollow"]
