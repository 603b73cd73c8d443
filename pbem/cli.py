"""`flask --app pbem ...` commands."""
from __future__ import annotations

import click
from flask import Flask

from pbem.db import create_all
from pbem.web.context import db


@click.command("init-db")
def init_db_command() -> None:
    """Create or upgrade the database schema (idempotent)."""
    create_all(db())
    click.echo("database ready")


def init_app(app: Flask) -> None:
    app.cli.add_command(init_db_command)
