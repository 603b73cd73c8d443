"""Alembic environment: the models' metadata; batch mode on SQLite (ALTER by table copy)."""
from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from pbem.config import Config
from pbem.db import make_engine
from pbem.migrations import target_metadata

config = context.config


def _url() -> str:
    """The URL given by pbem.migrations, or DATABASE_URL as the app reads it."""
    return config.get_main_option("sqlalchemy.url") or Config.from_env().DATABASE_URL


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata(),
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata(),
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as conn:
            _configure(conn)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
