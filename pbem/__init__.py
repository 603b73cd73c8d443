"""Korsar by mail: the Flask service (app factory)."""
from __future__ import annotations

from typing import Any

from flask import Flask

from pbem.config import Config
from pbem.db import make_engine


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the web app. `test_config` overrides settings read from the environment."""
    config = Config.from_env()
    for key, value in (test_config or {}).items():
        setattr(config, key, value)
    app = Flask(__name__)
    app.config.from_mapping({k: getattr(config, k) for k in config.__dataclass_fields__})
    app.config["KORSAR"] = config
    app.extensions["korsar_db"] = make_engine(config.DATABASE_URL)

    from pbem import cli
    from pbem.web import admin, dev, health, player

    app.register_blueprint(player.bp)
    app.register_blueprint(admin.bp)
    app.register_blueprint(health.bp)
    if config.DEV_INBOX and not config.is_production:
        app.register_blueprint(dev.bp)
    cli.init_app(app)
    return app
