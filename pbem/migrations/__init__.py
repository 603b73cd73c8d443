"""Alembic migrations of the schema, driven from Python so `flask --app pbem init-db` works
from any directory: `upgrade_database(url)` brings any earlier schema to the newest one,
`schema_diffs(connection)` lists what the database lacks compared with pbem.models.

New revision after a model change: `python -m pbem.migrations.regenerate "add seat colour"`.
"""
from __future__ import annotations

import warnings

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config as AlembicConfig
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

from pbem import models, models_analysis, models_mail  # noqa: F401  (registers the tables in target_metadata)
from pbem import models_ratings  # noqa: F401  (the ratings' tables, in target_metadata)
from pbem.db import is_sqlite, make_engine

MIGRATIONS_DIR = Path(__file__).resolve().parent
# Any number: the PostgreSQL advisory lock that serializes concurrent `init-db` runs.
MIGRATION_LOCK_ID = 0x6B6F7273


class SchemaMismatch(RuntimeError):
    """The database, after every migration, still differs from pbem.models."""


def alembic_config(url: str | None = None, connection: Connection | None = None) -> AlembicConfig:
    """An Alembic configuration for our script directory (no alembic.ini needed)."""
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    if url:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def target_metadata() -> Any:
    return SQLModel.metadata


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def base_revision() -> str | None:
    bases = ScriptDirectory.from_config(alembic_config()).get_bases()
    return bases[0] if bases else None


def _driver(connection: Connection) -> Any:
    """The DB-API connection under `connection` (open: it was just checked out of the pool)."""
    driver = connection.connection.driver_connection
    assert driver is not None
    return driver


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def schema_diffs(connection: Connection) -> list[Any]:
    """Alembic's autogenerate comparison: [] when the database matches the models."""
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    with warnings.catch_warnings():
        # ix_seat_email_lower (on lower(email)) cannot be reflected, so it is not compared:
        # migration 0008 creates it, and test_migrations checks it is there.
        warnings.filterwarnings("ignore", message=".*expression-based index")
        return compare_metadata(context, target_metadata())


def upgrade_database(url: str) -> str:
    """Bring the database at `url` to the newest revision; idempotent; returns what it did.

    A database built by `create_all` has tables but no alembic_version: if it already
    matches the models it is stamped at the newest revision; otherwise it predates the
    migrations, so it is stamped at the first revision and upgraded from there.
    """
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            if is_sqlite(url):
                # Batch migrations copy tables; foreign keys must be off, outside a transaction.
                _driver(conn).execute("PRAGMA foreign_keys=OFF")
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(text("SELECT pg_advisory_xact_lock(:id)"), {"id": MIGRATION_LOCK_ID})
                tables = set(inspect(conn).get_table_names())
                before = current_revision(conn)
                cfg = alembic_config(url, conn)
                action = "upgraded"
                ours = tables & set(target_metadata().tables)
                base = base_revision()
                if "alembic_version" not in tables and ours and base:
                    command.stamp(cfg, "head" if not schema_diffs(conn) else base)
                    action = "adopted a pre-migration schema and upgraded"
                elif not ours:
                    action = "created"
                command.upgrade(cfg, "head")
                after = current_revision(conn)
                diffs = schema_diffs(conn)
            if is_sqlite(url):
                _driver(conn).execute("PRAGMA foreign_keys=ON")
    finally:
        engine.dispose()
    if diffs:
        raise SchemaMismatch(
            "the database differs from pbem.models after every migration (a migration is "
            f"missing: run python -m pbem.migrations.regenerate): {diffs[:5]}"
        )
    if before == after and action == "upgraded":
        return f"database already at revision {after}"
    return f"database {action} to revision {after}"
