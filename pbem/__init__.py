"""Korsar by mail: the Flask service (app factory)."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, Flask
from flask_wtf.csrf import CSRFProtect

from pbem.config import Config
from pbem.db import make_engine
from pbem.mail import suppression
from pbem.web.templating import PageEnvironment

# Every form POST needs a session CSRF token, except player move links (their signed token
# is the authentication, and they are opened from email clients without a session).
csrf = CSRFProtect()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the web app. `test_config` overrides settings read from the environment."""
    config = Config.from_env()
    for key, value in (test_config or {}).items():
        setattr(config, key, value)
    app = Flask(__name__)
    app.jinja_environment = PageEnvironment  # before anything builds app.jinja_env
    app.config.from_mapping({k: getattr(config, k) for k in config.__dataclass_fields__})
    app.config["KORSAR"] = config
    app.extensions["korsar_db"] = make_engine(config.DATABASE_URL)
    app.config.update(
        SESSION_COOKIE_NAME="korsar_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=config.BASE_URL.startswith("https://"),
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        WTF_CSRF_TIME_LIMIT=None,  # the token lives as long as the (12 h) session
    )
    csrf.init_app(app)
    suppression.use_secret(config.SECRET_KEY)  # the never-list's keyed hashes of erased addresses
    _init_production_pieces(app, config)

    from pbem import cli
    from pbem.web import admin, dev, errors, health, player, prefs, rules, talk  # noqa: F401  (talk: nested)
    from pbem.web import home, invites, my_games, new_game, seat, seat_actions  # noqa: F401
    from pbem.web import analysis as analysis_pages  # noqa: F401  (nested in seat: /g/<token>/analysis)
    from pbem.web import metrics
    from pbem.web import replay  # noqa: F401  (nested: /g/<token>/replay, /admin/games/<id>/replay)
    from pbem.web import leaderboard
    from pbem.web import privacy
    from pbem.web import i18n_web
    from pbem.web.converters import IdConverter

    app.url_map.converters["id"] = IdConverter  # before the routes that use <id:...> register

    i18n_web.init_app(app)  # each page in its reader's language (the seat's, else the browser's)
    app.register_blueprint(admin.bp)
    app.register_blueprint(health.bp)
    app.register_blueprint(metrics.bp)  # /metrics, behind METRICS_TOKEN
    app.register_blueprint(rules.bp)  # the rules page, /rules
    app.register_blueprint(privacy.bp)  # what we keep and the reader's rights, /privacy
    _register_without_session_csrf(
        app,
        # /g/<token>/...: one entry verifies the seat's token (pbem/web/seat.py); the game page
        # (player), its talk (talk), preferences (prefs), rematch and leave (seat_actions) nest in it.
        seat.bp,
        player.bp,  # the move links, /m/<token>
        prefs.unsubscribe_bp,  # /u/<token>, an email's unsubscribe link
        home.bp,  # /, what the service is
        new_game.bp,  # /new, a visitor starts a game
        invites.bp,  # the creator's confirmation and page, invitations, "never email me"
        my_games.bp,  # /me, an address's games and preferences
        leaderboard.bp,  # /leaderboard, and /me's choice to be on it
    )
    errors.register(app)  # 404 and 405 outside the dashboard: the player's error page
    if config.DEV_INBOX and not config.is_production:
        app.register_blueprint(dev.bp)
    cli.init_app(app)
    # The mail transport knows no game: it is handed the writers of the emails written at
    # delivery here (the worker and the CLI run this factory too).
    from pbem.letters.deferred import register_writers
    from pbem.games.proposals import register_writers as register_invitation_writers
    register_writers()
    register_invitation_writers()  # the confirmation and "my games" links anyone can ask for
    from pbem.games.analysis import register as register_analysis
    register_analysis()  # the analysis job queued when a game ends (finish.HOOKS)
    from pbem.games import ratings
    ratings.register()  # every game played to its end moves its players' ratings (a finish hook)
    return app


def _register_without_session_csrf(app: Flask, *blueprints: Blueprint) -> None:
    """Register blueprints whose forms carry no authority a session would add (signed links or
    anonymous requests), so no session CSRF token: each, and each nested in it, exempted."""
    def exempt(bp: Blueprint) -> None:
        csrf.exempt(bp)
        for child, _options in bp._blueprints:
            exempt(child)  # type: ignore[arg-type]  # a nested blueprint is a flask.Blueprint too

    for bp in blueprints:
        exempt(bp)
        app.register_blueprint(bp)


def _init_production_pieces(app: Flask, config: Config) -> None:
    """JSON request logs (tokens redacted) and security headers on every response."""
    from pbem.logging import configure_logging, init_request_logging
    from pbem.web.health import init_database_errors
    from pbem.web.security import init_origin_check, init_security_headers, trust_proxies

    if config.KORSAR_ENV != "testing":  # under pytest, caplog and capsys own the handlers
        configure_logging()
    init_request_logging(app)
    init_security_headers(app, https=config.BASE_URL.startswith("https://"))
    trust_proxies(app, config.FORWARDED_HOPS)
    # The one-click unsubscribe POST comes from mail providers' servers, with their Origin or none.
    # RFC 8058 one-click unsubscribes are posted by mail providers, from their own origins.
    init_origin_check(app, config.BASE_URL, exempt={"prefs.unsubscribe", "invites.never"})
    init_database_errors(app)
