"""Shared pieces of the benchmarks: a scratch database, a gunicorn process, percentiles."""
from __future__ import annotations

import math
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
PG_SERVER_URL = os.environ.get("BENCH_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
DEFAULT_WEB = "gunicorn --no-control-socket --workers ${WEB_CONCURRENCY:-4} --bind 127.0.0.1:$PORT 'pbem:create_app()'"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    """The p-th percentile (nearest rank: the smallest value with at least p% of `values` at or
    below it); 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = min(len(ordered), max(1, math.ceil(p * len(ordered) / 100)))
    return ordered[rank - 1]


@contextmanager
def scratch_database(kind: str) -> Iterator[str]:
    """An empty database for one benchmark: a SQLite file, or a PostgreSQL database dropped after."""
    if kind == "sqlite":
        with tempfile.TemporaryDirectory(prefix="korsar-bench-") as tmp:
            yield f"sqlite:///{Path(tmp) / 'bench.sqlite3'}"
        return
    admin = create_engine(PG_SERVER_URL, isolation_level="AUTOCOMMIT")
    name = f"korsar_bench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(PG_SERVER_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def procfile_web_command() -> str:
    """The `web:` line of the Procfile (what a PaaS runs), or gunicorn's default for pbem."""
    procfile = ROOT / "Procfile"
    if procfile.exists():
        for line in procfile.read_text().splitlines():
            if line.startswith("web:"):
                return line[len("web:"):].strip()
    return DEFAULT_WEB


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by `pid` and its live children (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # After the command: state ppid ... utime(12) stime(13) counted from field 3.
        if int(stat.parent.name) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


class Server(str):
    """The base URL of a running server, with the pid of its master process."""

    pid: int


@contextmanager
def gunicorn(command: str, env: dict[str, str], *, ready_path: str = "/healthz",
             timeout: float = 30.0, log_path: Path | None = None) -> Iterator[str]:
    """Run a Procfile-style command (with $PORT) on 127.0.0.1; yields its base URL.

    Its output goes to `log_path` (or is thrown away with the temporary file)."""
    port = free_port()
    full_env = {**os.environ, **env, "PORT": str(port)}
    bin_dir = str(Path(sys.executable).parent)
    full_env["PATH"] = f"{bin_dir}:{full_env.get('PATH', '')}"
    # The Procfile binds 0.0.0.0 on a PaaS; a benchmark stays on 127.0.0.1.
    command = re.sub(r"0\.0\.0\.0", "127.0.0.1", command)
    log = open(log_path, "w+b") if log_path else tempfile.TemporaryFile()  # noqa: SIM115
    proc = subprocess.Popen(["/bin/sh", "-c", f"exec {command}"], cwd=ROOT, env=full_env,
                            stdout=log, stderr=log, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"{shlex.split(command)[0]} exited:\n{log.read().decode()[-3000:]}")
            try:
                if httpx.get(base + ready_path, timeout=1).status_code < 500:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the web process did not answer in time")
            time.sleep(0.2)
        server = Server(base)
        server.pid = proc.pid
        yield server
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        log.close()
