"""Security headers on every response.

The Content-Security-Policy allows no inline script and no framing; `Referrer-Policy:
same-origin` keeps the signed token of a move link or game page out of the Referer header of
any request the page makes to another site. Not `no-referrer`: with it Chromium posts a page's
forms with `Origin: null`, which `init_origin_check` must refuse (a sandboxed frame on any site
sends that too). A view may set its own policy (e.g. the dev mail viewer);
these are defaults, set only when the response has none. `trust_proxies` reads the client
address from a declared number of reverse proxies (FORWARDED_HOPS). `init_origin_check`
refuses a POST that another site's page sent (its Origin header names another origin).
"""
from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from flask import Flask, Response, abort, request
from werkzeug.datastructures import Headers
from werkzeug.middleware.proxy_fix import ProxyFix

from pbem.i18n import gettext as _

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
    "Referrer-Policy": "same-origin",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
    # Game pages, preferences and unsubscribe pages are reached through secret links, and the
    # admin is private: nothing here belongs in a search engine.
    "X-Robots-Tag": "noindex, nofollow",
}


def trust_proxies(app: Flask, hops: int) -> None:
    """Behind `hops` reverse proxies (nginx, a PaaS router), take the client address and scheme
    from their X-Forwarded-For/-Proto headers; with 0 they are ignored (they could be forged)."""
    if hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=0)  # type: ignore[method-assign]  # Flask's documented WSGI middleware way


def set_missing_headers(headers: Headers, defaults: Iterable[tuple[str, str]]) -> None:
    """Add each (name, value) of `defaults` whose name `headers` lacks (any case): one pass over
    the headers, where `Headers.setdefault` scans them and raises a KeyError per missing name."""
    present = {name.lower() for name, _value in headers}
    headers.extend([(name, value) for name, value in defaults if name.lower() not in present])


def init_security_headers(app: Flask, *, https: bool) -> None:
    """Add the headers to every response; HSTS too when the site is served over https."""
    headers = list(SECURITY_HEADERS.items())
    if https:
        headers.append(("Strict-Transport-Security", "max-age=31536000; includeSubDomains"))
    # Pages show private hands and carry tokens: no shared cache may keep them.
    with_no_store = [*headers, ("Cache-Control", "no-store")]

    @app.after_request
    def _set_headers(response: Response) -> Response:
        set_missing_headers(response.headers, headers if response.direct_passthrough else with_no_store)
        return response


_DEFAULT_PORTS = {"http": 80, "https": 443}
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def origin_of(url: str) -> str | None:
    """`scheme://host[:port]` of `url` as browsers send it in Origin (lower case, no default
    port), or None when it has none (the "null" origin, garbage)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme, host = parts.scheme.lower(), (parts.hostname or "")
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port and port != _DEFAULT_PORTS[scheme] else "")


def init_origin_check(app: Flask, base_url: str, *, exempt: Iterable[str] = ()) -> None:
    """Refuse (403) a POST whose Origin header is present and is neither BASE_URL's origin nor
    the origin the request itself was sent to: another site's page sent it (CSRF). Flask-WTF
    checks the Referer only over https; this holds over http too, and for the player POSTs,
    which have no CSRF token (their signed link is the authentication). A POST without Origin
    is left to the other checks. `exempt` endpoints take POSTs from anywhere (the RFC 8058
    one-click unsubscribe, posted by mail providers)."""
    ours = origin_of(base_url)
    exempt = frozenset(exempt)

    @app.before_request
    def _refuse_foreign_origin() -> None:
        if request.method not in UNSAFE_METHODS or request.endpoint in exempt:
            return
        origin = request.headers.get("Origin")
        if origin is None:
            return
        sent_from = origin_of(origin)
        if sent_from is None or sent_from not in (ours, origin_of(request.host_url)):
            abort(403, _("This form was sent from another site, so it was not accepted. "
                         "Open the page again from its own address and send the form from there."))
