"""The admin's cookie session, opened only when the request carries one.

Players have no account and no cookie; Flask would still build a signing serializer for every
move link they open. This interface skips it when there is no cookie to read.
"""
from __future__ import annotations

from flask import Flask, Request
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface


class CookieOnlySessions(SecureCookieSessionInterface):
    def open_session(self, app: Flask, request: Request) -> SecureCookieSession | None:
        if app.secret_key and not request.cookies.get(self.get_cookie_name(app)):
            return self.session_class()
        return super().open_session(app, request)
