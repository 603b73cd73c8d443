"""The ceiling of this stack: a bare Flask endpoint doing one small insert per request into the
same database, with the same engine settings, served by the same gunicorn command."""
from __future__ import annotations

import os

from flask import Flask
from sqlalchemy import Column, DateTime, Integer, MetaData, String, Table, func, insert

from pbem.db import make_engine, session_scope

metadata = MetaData()
ping = Table("bench_ping", metadata,
             Column("id", Integer, primary_key=True),
             Column("note", String(32), nullable=False),
             Column("created_at", DateTime, nullable=False, server_default=func.now()))


def create_app() -> Flask:
    app = Flask(__name__)
    engine = make_engine(os.environ["DATABASE_URL"])

    @app.get("/healthz")
    def health() -> str:
        return "ok"

    @app.post("/ping")
    def do_ping() -> tuple[str, int]:
        with session_scope(engine) as session:
            session.execute(insert(ping).values(note="ping"))
        return "ok", 201

    return app
