"""Access to the app's config and database from request handlers and CLI commands (any layer)."""
from __future__ import annotations

from flask import current_app
from sqlalchemy.engine import Engine

from pbem.config import Config


def config() -> Config:
    return current_app.config["KORSAR"]


def db() -> Engine:
    return current_app.extensions["korsar_db"]
