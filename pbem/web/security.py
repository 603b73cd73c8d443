"""Security headers on every response.

The Content-Security-Policy allows no inline script and no framing; `Referrer-Policy:
no-referrer` keeps the signed token of a move link or game page out of the Referer header of
any request the page makes. A view may set its own policy (e.g. the dev mail viewer);
these are defaults, set only when the response has none. `trust_proxies` reads the client
address from a declared number of reverse proxies (FORWARDED_HOPS).
"""
from __future__ import annotations

from flask import Flask, Response
from werkzeug.middleware.proxy_fix import ProxyFix

CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def trust_proxies(app: Flask, hops: int) -> None:
    """Behind `hops` reverse proxies (nginx, a PaaS router), take the client address and scheme
    from their X-Forwarded-For/-Proto headers; with 0 they are ignored (they could be forged)."""
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=0)  # type: ignore[method-assign]


def init_security_headers(app: Flask, *, https: bool) -> None:
    """Add the headers to every response; HSTS too when the site is served over https."""
    headers = dict(SECURITY_HEADERS)
    if https:
        headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"

    @app.after_request
    def _set_headers(response: Response) -> Response:
        for name, value in headers.items():
            response.headers.setdefault(name, value)
        # Pages show private hands and carry tokens: no shared cache may keep them.
        if "Cache-Control" not in response.headers and not response.direct_passthrough:
            response.headers["Cache-Control"] = "no-store"
        return response
