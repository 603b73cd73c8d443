"""`make run` (python -m pbem.devserver) end to end: a temp var dir and free ports, the real
web server, worker and mail catcher, the demo game's welcome email, a clean stop."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from smtp_fakes import free_port
from sqlalchemy import func
from sqlmodel import select

from pbem.config import PROJECT_ROOT
from pbem.db import make_engine, session_scope
from pbem.devserver import wait_for_port
from pbem.models import Game

pytestmark = pytest.mark.slow


class DevServer:
    def __init__(self, tmp_path: Path, database_url: str) -> None:
        self.var_dir = tmp_path / "var"
        self.port, self.catcher_port = free_port(), free_port()
        self.log = tmp_path / "devserver.log"
        self.env = {**os.environ, "KORSAR_VAR_DIR": str(self.var_dir), "KORSAR_WEB_PORT": str(self.port),
                    "KORSAR_CATCHER_PORT": str(self.catcher_port), "KORSAR_WEB_RELOAD": "0",
                    "DATABASE_URL": database_url, "BOT_DELAY_SECONDS": "0"}
        for name in ("KORSAR_ENV", "BASE_URL", "SECRET_KEY", "SMTP_HOST", "SMTP_PORT"):
            self.env.pop(name, None)
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen([sys.executable, "-m", "pbem.devserver"], cwd=PROJECT_ROOT,
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)
        assert wait_for_port("127.0.0.1", self.port, 60, self.proc), self.log.read_text()[-3000:]

    def descendants(self) -> set[int]:
        """Every process below the devserver (children and the children's children)."""
        parents: dict[int, int] = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
        found, frontier = set(), {self.proc.pid}
        while frontier:
            frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
            found |= frontier
        return found

    def stop(self, sig: int = signal.SIGINT) -> int:
        assert self.proc is not None
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for_mail(url: str, to: str, word: str, timeout: float = 30) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mails = httpx.get(f"{url}/dev/mail.json", params={"to": to}, timeout=5).json()
        if any(word in m["subject"].lower() for m in mails):
            return mails
        time.sleep(0.2)
    raise AssertionError(f"no {word!r} email for {to} reached the dev inbox")


def test_make_run_starts_everything_and_the_demo_welcome_reaches_the_dev_inbox(tmp_path, database_url):
    server = DevServer(tmp_path, database_url)
    server.start()
    try:
        mails = wait_for_mail(server.url, "you@korsar.test", "welcome")
        inbox = httpx.get(f"{server.url}/dev/mail", timeout=5)
        message = httpx.get(f"{server.url}/dev/mail/{mails[-1]['id']}", timeout=5)
        [game_url] = re.findall(rf"{re.escape(server.url)}/g/\S+", server.log.read_text())
        game_page = httpx.get(game_url, timeout=5)
        children = server.descendants()
    finally:
        code = server.stop(signal.SIGINT)  # what Ctrl-C sends
    output = server.log.read_text()
    assert inbox.status_code == 200 and "welcome" in inbox.text.lower()
    assert message.status_code == 200 and "<iframe" in message.text
    assert game_page.status_code == 200 and "You" in game_page.text  # the printed link works
    assert f"{server.url}/dev/mail" in output and f"{server.url}/g/" in output
    assert (server.var_dir / "mail").is_dir() and (server.var_dir / "devserver.json").is_file()
    assert code == 0, output[-3000:]
    assert len(children) >= 2  # the worker and the web server
    time.sleep(0.2)
    assert [pid for pid in children if alive(pid)] == []


def test_the_demo_game_and_dev_admin_are_created_on_the_first_start_only(tmp_path, database_url, monkeypatch):
    from pbem.devserver import DevSettings, apply_environment, ensure_demo

    # A private copy of the environment: apply_environment() writes to it.
    monkeypatch.setattr(os, "environ", {**os.environ, "DATABASE_URL": database_url})
    settings = DevSettings(var_dir=tmp_path, web_port=5999, catcher_port=8999, reload=False)
    apply_environment(settings)

    first, second = ensure_demo(settings), ensure_demo(settings)

    engine = make_engine(database_url)
    try:
        with session_scope(engine) as session:
            games = session.exec(select(func.count()).select_from(Game)).one()
    finally:
        engine.dispose()
    assert games == 1 and first["game_id"] == second["game_id"]
    assert first["admin_password"] == second["admin_password"]
    assert second["game_url"].startswith("http://127.0.0.1:5999/g/")


def test_make_run_explains_a_taken_port_and_starts_nothing(tmp_path, database_url):
    import socket

    server = DevServer(tmp_path, database_url)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", server.port))
        taken.listen()
        result = subprocess.run([sys.executable, "-m", "pbem.devserver"], cwd=PROJECT_ROOT, env=server.env,
                                capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert f"port {server.port} on 127.0.0.1 is taken" in result.stderr and "KORSAR_WEB_PORT" in result.stderr
    assert not (server.var_dir / "devserver.json").exists()
