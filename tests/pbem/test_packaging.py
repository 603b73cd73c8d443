"""Issue 13: the package as installed from a wheel (not editable, outside the checkout) creates a
game and delivers its emails, text and HTML, i.e. every file it reads at run time is shipped."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

CHECKOUT = Path(__file__).resolve().parents[2]
# Not part of a build: copying them would only be slow (or pick up another run's leftovers).
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__",
                                     ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "var",
                                     "test-artifacts", "tests", "benchmarks", "docs")
PIP_TIMEOUT = 240


def _pip(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The test venv's pip (whose cache makes a second run quick); a registry that cannot be
    reached skips the test, any other failure fails it."""
    result = subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], cwd=cwd,
                            capture_output=True, text=True, timeout=PIP_TIMEOUT)
    if result.returncode != 0:
        out = result.stdout + result.stderr
        offline = ("Could not find a version", "No matching distribution", "NewConnectionError",
                   "Failed to establish a new connection", "Temporary failure in name resolution",
                   "Network is unreachable", "ProxyError", "ConnectTimeout", "ReadTimeout")
        if any(word in out for word in offline):
            pytest.skip(f"pip cannot reach the package registry here (needed to install the wheel's "
                        f"dependencies): {out.strip().splitlines()[-1]}")
        raise AssertionError(f"pip {' '.join(args)} failed:\n{out}")
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv outside the checkout with the project's wheel (and its dependencies) in it;
    returns its python."""
    root = tmp_path_factory.mktemp("packaging")
    # Build from a copy of the sources: a build in the checkout would leave build/ there, whose
    # stale files a later build could ship.
    src = root / "src"
    shutil.copytree(CHECKOUT, src, ignore=NOT_SOURCES)
    wheels = root / "wheels"
    _pip("wheel", "--no-deps", "-q", "-w", str(wheels), str(src), cwd=root)
    (wheel,) = wheels.glob("korsar_pbem-*.whl")
    venv = root / "venv"
    # No pip inside the venv (ensurepip is slow): this pip installs into it with --python.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    python = venv / "bin" / "python"
    _pip("--python", str(python), "install", "-q", str(wheel), cwd=root)
    return python


def test_the_wheel_ships_every_runtime_file(installed: Path) -> None:
    root = installed.parents[2]
    (wheel,) = (root / "wheels").glob("korsar_pbem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for required in ("email_templates/welcome.html", "email_templates/welcome.txt",
                     "email_templates/welcome.subject.txt", "email_templates/partials/board.txt",
                     "email_templates/email.css", "pbem/templates/shared/board.html",
                     "pbem/templates/base.html", "pbem/static/korsar.css", "pbem/migrations/env.py",
                     "pbem/migrations/script.py.mako"):
        assert required in names, f"{required} is not in the wheel"
    assert any(n.startswith("pbem/migrations/versions/") and n.endswith(".py") for n in names)
    assert not any(n.startswith("tests/") for n in names)


def test_an_installed_package_creates_a_game_and_delivers_its_emails(
        installed: Path, tmp_path: Path, smtp_server) -> None:
    started = time.monotonic()
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("KORSAR_", "SMTP_", "PYTHON", "FLASK_")) and key not in {
               "DATABASE_URL", "BASE_URL", "SECRET_KEY", "MAIL_FROM", "VIRTUAL_ENV"}}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'korsar.sqlite3'}", SMTP_HOST=smtp_server.host,
               SMTP_PORT=str(smtp_server.port), BOT_DELAY_SECONDS="0", KORSAR_ENV="testing")

    def flask(*args: str) -> str:
        # cwd tmp_path: the checkout is not importable, only the installed package is.
        result = subprocess.run([str(installed), "-m", "flask", "--app", "pbem", *args], cwd=tmp_path, env=env,
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"flask {' '.join(args)} failed:\n{result.stdout}{result.stderr}"
        return result.stdout + result.stderr

    where = subprocess.run([str(installed), "-c", "import pbem; print(pbem.__file__)"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, check=True).stdout.strip()
    assert not Path(where).is_relative_to(CHECKOUT), f"pbem imported from the checkout: {where}"

    flask("init-db")
    flask("create-game", "--player", "Ann <ann@example.com>", "--player", "Bob <bob@example.com>")
    out = flask("worker", "--once")

    assert len(smtp_server.messages) >= 2, f"no email delivered; the worker said:\n{out}"
    assert {rcpt for _, rcpts in smtp_server.envelopes for rcpt in rcpts} >= {"ann@example.com",
                                                                                "bob@example.com"}
    for msg in smtp_server.messages:
        text = msg.get_body(preferencelist=("plain",))
        html = msg.get_body(preferencelist=("html",))
        assert text is not None and html is not None, f"{msg['Subject']!r} lacks a text or HTML part"
        text_body, html_body = text.get_content(), html.get_content()
        assert msg["Subject"].strip()
        assert "Ann" in text_body and "Bob" in text_body, text_body
        assert "<html" in html_body.lower() and "Ann" in html_body, html_body
        assert "TemplateNotFound" not in text_body + html_body
    assert (tmp_path / "korsar.sqlite3").exists()
    print(f"installed package: init-db, create-game, worker --once in {time.monotonic() - started:.1f}s")
