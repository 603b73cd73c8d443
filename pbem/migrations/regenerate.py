"""Write the next migration from the difference between the migrations and pbem.models.

    python -m pbem.migrations.regenerate "add seat colour"

It builds a scratch SQLite database from the existing revisions, compares it with the
models (Alembic autogenerate) and writes pbem/migrations/versions/NNNN_<message>.py.
Read the new file before committing it: autogenerate misses renames and data changes.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory

from pbem.db import make_engine
from pbem.migrations import alembic_config, schema_diffs, upgrade_database


def next_revision_id() -> str:
    revisions = list(ScriptDirectory.from_config(alembic_config()).walk_revisions())
    return f"{len(revisions) + 1:04d}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("message", nargs="?", default="schema change")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'scratch.sqlite3'}"
        engine = make_engine(url)
        try:
            with engine.begin() as conn:
                cfg = alembic_config(url, conn)
                command.upgrade(cfg, "head")
                if not schema_diffs(conn):
                    print("the migrations already match the models: nothing to write")
                    return 0
                script = command.revision(cfg, message=args.message, autogenerate=True,
                                          rev_id=next_revision_id())
        finally:
            engine.dispose()
        upgrade_database(f"sqlite:///{Path(tmp) / 'check.sqlite3'}")  # the new revision applies cleanly
    path = script.path if script and not isinstance(script, list) else "?"
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
