"""`make run`: the whole product on one machine with no manual step.

It sets development defaults (SQLite under var/, SMTP to the local catcher, BASE_URL on
127.0.0.1), upgrades the database, starts the mail catcher (in this process), the worker and
the web server (child processes), creates a demo game on the first start (you against two
bots) and prints where to look. Ctrl-C (or SIGTERM) stops every child.

Settable for tests or a second copy: KORSAR_VAR_DIR, KORSAR_WEB_PORT, KORSAR_CATCHER_PORT,
KORSAR_WEB_RELOAD=0 (no code reloader). Any DATABASE_URL in the environment is kept; the
SMTP settings always point at the catcher, so `make run` never mails real people.
"""
from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from pbem.config import var_dir

DEMO_PLAYERS = ["You <you@korsar.test>", "bot:greedy", "bot:random"]
ADMIN_EMAIL = "admin@korsar.localhost"


@dataclass(frozen=True)
class DevSettings:
    var_dir: Path
    web_port: int
    catcher_port: int
    reload: bool
    host: str = "127.0.0.1"

    @classmethod
    def from_env(cls) -> "DevSettings":
        env = os.environ
        return cls(var_dir=var_dir(env).resolve(),
                   web_port=int(env.get("KORSAR_WEB_PORT") or 5000),
                   catcher_port=int(env.get("KORSAR_CATCHER_PORT") or 8025),
                   reload=env.get("KORSAR_WEB_RELOAD", "1") not in {"0", "false", "no"})

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.web_port}"

    @property
    def state_file(self) -> Path:
        return self.var_dir / "devserver.json"


def apply_environment(s: DevSettings) -> None:
    """Development defaults in os.environ (the children inherit them)."""
    env = os.environ
    env.setdefault("DATABASE_URL", f"sqlite:///{s.var_dir / 'korsar.sqlite3'}")
    env.setdefault("BASE_URL", s.base_url)
    env.setdefault("WORKER_POLL_SECONDS", "1")
    env.setdefault("BOT_DELAY_SECONDS", "3")
    env.update(KORSAR_ENV="development", KORSAR_MAIL_DIR=str(s.var_dir / "mail"),
               SMTP_HOST=s.host, SMTP_PORT=str(s.catcher_port), SMTP_TLS="none",
               SMTP_USER="", SMTP_PASSWORD="", PYTHONUNBUFFERED="1")


def flask_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "flask", "--app", "pbem", *args]


def port_is_free(host: str, port: int) -> bool:
    with socket.socket() as sock:
        # Like the servers themselves: a port in TIME_WAIT after a restart is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
    return True


def wait_for_port(host: str, port: int, timeout: float, proc: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with socket.create_connection((host, port), timeout=0.5):
                return True
        except OSError:
            time.sleep(0.1)
    return False


def prepare_database(url: str) -> None:
    """What `flask --app pbem init-db` does (migrations), without a second interpreter."""
    from pbem.migrations import upgrade_database

    print(f"korsar dev: {upgrade_database(url)}", flush=True)


# ---------------------------------------------------------------- the demo game
def _load_state(s: DevSettings) -> dict[str, Any]:
    try:
        return json.loads(s.state_file.read_text())
    except (OSError, ValueError):
        return {}


def ensure_demo(s: DevSettings) -> dict[str, Any]:
    """Create the demo game and a dev admin on the first start; return what to print."""
    from pbem.config import Config
    from pbem.db import make_engine, session_scope
    from pbem.models import Game, Seat

    cfg = Config.from_env()
    engine = make_engine(cfg.DATABASE_URL)
    state = _load_state(s)
    try:
        with session_scope(engine) as session:
            game = session.get(Game, state["game_id"]) if "game_id" in state else None
            if game is None:
                from pbem.auth import record_audit
                from pbem.games.service import create_game
                from pbem.games.settings import GameSettings

                game = create_game(session, cfg, DEMO_PLAYERS, GameSettings(name="Demo: you against two bots"))
                # In the audit log like a game made on the dashboard (same action, same detail).
                record_audit(session, "devserver", "create_game", game_id=game.id,
                             detail=f"{game.name} ({len(DEMO_PLAYERS)} players)")
                state["game_id"] = game.id
            assert game.id is not None  # a stored game has its id
            seat = session.exec(_seat_query(Seat, game.id)).first()
            state["game_url"] = _game_url(cfg, seat) if seat is not None else None
            if "admin_password" not in state:
                state.update(_create_dev_admin(session))
    finally:
        engine.dispose()
    s.state_file.write_text(json.dumps(state, indent=2))
    return state


def _seat_query(seat_model: Any, game_id: int) -> Any:
    from sqlmodel import select

    return select(seat_model).where(seat_model.game_id == game_id, seat_model.position == 0)


def _game_url(cfg: Any, seat: Any) -> str:
    from pbem.links import seat_url, sign_seat

    return seat_url(cfg, sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce))


def _create_dev_admin(session: Any) -> dict[str, str]:
    try:
        from pbem.auth import create_admin
    except ImportError:
        return {}
    password = secrets.token_urlsafe(12)
    create_admin(session, ADMIN_EMAIL, password)
    return {"admin_email": ADMIN_EMAIL, "admin_password": password}


# ---------------------------------------------------------------- the processes
class Children:
    """The worker and web processes, each in its own process group (so the web server's
    reloader child goes too) and stopped SIGTERM first, SIGKILL if they linger."""

    def __init__(self) -> None:
        self.procs: dict[str, subprocess.Popen] = {}

    def start(self, name: str, args: list[str]) -> subprocess.Popen:
        proc = subprocess.Popen(args, start_new_session=True)
        self.procs[name] = proc
        return proc

    def exited(self) -> str | None:
        return next((name for name, p in self.procs.items() if p.poll() is not None), None)

    def stop(self, timeout: float = 10.0) -> None:
        for proc in self.procs.values():
            _signal_group(proc, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        for proc in self.procs.values():
            try:
                proc.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.procs.values():
            _signal_group(proc, signal.SIGKILL)  # stragglers and grandchildren alike
            proc.wait()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Stop(Exception):
    pass


def _raise_stop(signum: int, _frame: FrameType | None) -> None:
    raise _Stop(signal.Signals(signum).name)


def main() -> int:
    from pbem.mail.catcher import start_catcher

    s = DevSettings.from_env()
    s.var_dir.mkdir(parents=True, exist_ok=True)
    for port, variable in ((s.web_port, "KORSAR_WEB_PORT"), (s.catcher_port, "KORSAR_CATCHER_PORT")):
        if not port_is_free(s.host, port):
            print(f"korsar dev: port {port} on {s.host} is taken (another `make run`?). "
                  f"Stop it, or choose another port with {variable}=...", file=sys.stderr)
            return 2
    apply_environment(s)
    signal.signal(signal.SIGTERM, _raise_stop)
    # Ctrl-C stops everything even when a parent started us with SIGINT ignored (a shell's
    # background job), which Python would otherwise keep ignoring.
    signal.signal(signal.SIGINT, _raise_stop)
    print(f"korsar dev: database {os.environ['DATABASE_URL']}", flush=True)
    prepare_database(os.environ["DATABASE_URL"])
    catcher = start_catcher(Path(os.environ["KORSAR_MAIL_DIR"]), host=s.host, port=s.catcher_port)
    children = Children()
    code = 0
    try:
        children.start("worker", flask_command("worker"))
        inbound_port = int(os.environ.get("INBOUND_PORT") or 2525)
        if port_is_free(s.host, inbound_port):  # replies by email (the dev inbox's Reply form)
            children.start("inbound", flask_command("inbound"))
        else:
            print(f"korsar dev: port {inbound_port} is taken: no reply receiver (set INBOUND_PORT=...)", flush=True)
        web_args = ["run", "--host", s.host, "--port", str(s.web_port), "--debug"]
        web = children.start("web", flask_command(*web_args, *([] if s.reload else ["--no-reload"])))
        try:
            demo = ensure_demo(s)  # while the children boot; the worker mails it on its next poll
        except Exception as exc:  # the rest of the dev setup is still worth having
            print(f"korsar dev: could not create the demo game: {type(exc).__name__}: {exc}", flush=True)
            demo = {}
        if not wait_for_port(s.host, s.web_port, 30, web):
            raise RuntimeError(f"the web server did not start on {s.base_url}")
        _print_banner(s, demo)
        while (name := children.exited()) is None:
            time.sleep(0.5)
        print(f"korsar dev: the {name} process stopped; stopping everything", flush=True)
        code = 1
    except (KeyboardInterrupt, _Stop):
        print("\nkorsar dev: stopping", flush=True)
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # finish cleaning up whatever comes
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        children.stop()
        catcher.stop()
    return code


def _print_banner(s: DevSettings, demo: dict[str, Any]) -> None:
    lines = [
        "",
        "Korsar by mail is running (Ctrl-C stops everything).",
        f"  Home page (start a game):      {s.base_url}/",
        f"  Dev inbox (every email sent):  {s.base_url}/dev/mail",
    ]
    if demo.get("game_url"):
        lines.append(f"  Your demo game page:           {demo['game_url']}")
        lines.append("  Your turn emails arrive in the dev inbox; their links play your moves.")
    if demo.get("admin_password"):
        lines.append(f"  Admin dashboard:               {s.base_url}/admin  "
                     f"({demo['admin_email']} / {demo['admin_password']})")
    lines.append(f"  Mail catcher (SMTP):           {s.host}:{s.catcher_port}")
    lines.append(f"  Replies by email (SMTP):       {s.host}:{os.environ.get('INBOUND_PORT') or 2525}"
                 " (the dev inbox's Reply form sends there)")
    lines.append(f"  Data:                          {s.var_dir}")
    print("\n".join(lines) + "\n", flush=True)


if __name__ == "__main__":
    sys.exit(main())
