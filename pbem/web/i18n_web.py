"""The language of a page (pbem/i18n.py): the seat's on a page reached with its token, else the
reader's choice, else the browser's.

Per request, lowest to highest:
1. Accept-Language, negotiated over `i18n.LANGUAGES` (`negotiate`; English if none);
2. the `korsar_lang` cookie, left by the visible language switch;
3. `?lang=xx` on the URL: the language switch's links. It sets the language of that response
   and leaves the cookie for the next pages. A GET changes nothing on the server: the cookie
   is the reader's own state (a seat's stored language changes only by the preferences POST);
4. a page reached with a seat's token speaks the seat's language: the view calls
   `pbem.web.seat.use_seat_language(seat)` as soon as it knows the seat. Such a page
   shows no switch (`hide_language_switch`: the seat's preferences page changes its language).
   The pages of a game being set up and "my games" speak the language stored for their reader
   (the proposal's, the invitation's if somebody chose it, the address's) unless the reader
   chose one (`speak_stored`), and show the switch.

The admin dashboard stays English. The pseudo-locale (`i18n.PSEUDO`) is accepted in `?lang=`
only by an app in testing.
"""
from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, current_app, g, request

from pbem import i18n
from pbem.present import grammar
from pbem.present.names import bot_name

COOKIE = "korsar_lang"
COOKIE_MAX_AGE = 365 * 24 * 3600
_ENGLISH_ONLY = {"admin", "dev"}  # blueprints that stay English


def _asked() -> str | None:
    """The language of `?lang=`, if it is one we speak (the pseudo-locale: tests only)."""
    code = request.args.get("lang", "")
    if code in i18n.LANGUAGES or (code == i18n.PSEUDO and current_app.testing):
        return code
    return None


def reader_chose() -> bool:
    """Did the reader pick a language (`?lang=`, or the switch's cookie)?"""
    return _asked() is not None or request.cookies.get(COOKIE, "") in i18n.LANGUAGES


def speak_stored(code: str | None) -> None:
    """The page in the language stored for its reader (`code`), unless the reader chose one."""
    if code and not reader_chose():
        i18n.set_language(code)


def page_language() -> str:
    """The reader's language before any seat is known."""
    asked = _asked()
    if asked:
        return asked
    cookie = request.cookies.get(COOKIE, "")
    if cookie in i18n.LANGUAGES:
        return cookie
    return negotiate([tag for tag, _quality in request.accept_languages])


def negotiate(tags: list[str]) -> str:
    """The first language we speak among the browser's, best first, a regional tag counting for
    its language ("vi-VN,en;q=0.1" is Vietnamese, "en-GB,fr;q=0.5" English); else English.
    (werkzeug's best_match would prefer a later exact "en" to a first "vi-VN".)"""
    return next((code for code in map(i18n.spoken, tags) if code), i18n.DEFAULT)


def hide_language_switch() -> None:
    """This page shows no language switch: it speaks a language stored for its reader that only
    a form changes (a seat's pages: its preferences page; pbem/web/seat.py says so)."""
    g.korsar_no_language_switch = True


def language_links() -> list[dict[str, Any]]:
    """The language switch: this page in each language (`?lang=`, the other query kept), on
    every page but those that said they show none (`hide_language_switch`)."""
    if g.get("korsar_no_language_switch"):
        return []
    args = request.args.to_dict()
    return [{"code": code, "name": name, "current": code == i18n.current(),
             "href": "?" + urlencode({**args, "lang": code})}
            for code, name in i18n.LANGUAGES.items()]


def _before() -> None:
    code = i18n.DEFAULT if request.blueprint in _ENGLISH_ONLY else page_language()
    g.korsar_language_token = i18n.set_language(code)


def _after(response: Response) -> Response:
    asked = _asked()
    if asked in i18n.LANGUAGES and request.blueprint not in _ENGLISH_ONLY:
        response.set_cookie(COOKIE, asked, max_age=COOKIE_MAX_AGE, samesite="Lax", httponly=True,
                            secure=request.is_secure or current_app.config.get("SESSION_COOKIE_SECURE", False))
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    return response


def _teardown(_exc: BaseException | None) -> None:
    # A worker thread serves the next request: the language must not carry over.
    token = g.pop("korsar_language_token", None)
    if token is not None:
        try:
            i18n.reset(token)
        except ValueError:  # set in another context (a copied one): back to the default
            i18n.set_language(None)


def init_app(app: Flask) -> None:
    app.before_request(_before)
    app.after_request(_after)
    app.teardown_request(_teardown)
    app.jinja_env.globals["language_links"] = language_links
    app.jinja_env.globals["languages"] = i18n.LANGUAGES  # each language in its own words
    app.jinja_env.globals["bot_name"] = bot_name  # a bot's kind in the reader's words ("bot:greedy")
    app.jinja_env.filters["together"] = grammar.together  # names as one list ("Anne et Bob")
