"""A real mail client replies to a real turn email: Debian's mutt (installed by .ci/run) opens the
turn email the game sent (kept by the tests' SMTP server, written to an mbox), hits reply with
the move typed above its quote (mutt quotes with ">" under an attribution line, in
format=flowed, with a signature), and sends it over SMTP to the Procfile's `inbound` process.
In English, French and Vietnamese, the move is played and the answer says so in the seat's
words."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from game_helpers import make_cfg
from smtp_fakes import free_port
from sqlmodel import select
from test_inbound_process import ROOT, procfile_command

from pbem import i18n
from pbem.db import make_engine, session_scope
from pbem.devserver import wait_for_port
from pbem.games import service
from pbem.mail.delivery import deliver_due
from pbem.models import Game

MUTT, SCRIPT = shutil.which("mutt"), shutil.which("script")
ANN, BOB = "ann@example.com", "bob@example.com"

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(MUTT is None, reason="mutt is not installed (apt-get install mutt; .ci/run does)"),
              pytest.mark.skipif(SCRIPT is None, reason="script (util-linux) is needed to give mutt a terminal")]

# What a player of each language types, and the attribution line their mutt writes above the quote.
MOVES = {"en": "draw", "fr": "je pioche", "vi": "rút bài"}
ATTRIBUTIONS = {"en": "On %d, %n wrote:", "fr": "Le %d, %n a écrit :", "vi": "Vào %d, %n đã viết:"}

MUTTRC = """\
set folder="{home}" spoolfile="{home}/turn.mbox" mbox_type=mbox header_cache=""
set editor="{home}/type-the-move"
set include=yes fast_reply=yes reply_to=yes edit_headers=no askcc=no askbcc=no
set attribution="{attribution}"
set signature="{home}/signature" sig_dashes=yes
set text_flowed=yes charset=utf-8 send_charset=utf-8
set from="Ann <{sender}>" use_from=yes realname="Ann" hostname=example.com
set smtp_url="smtp://127.0.0.1:{port}/" ssl_starttls=no ssl_force_tls=no
set record="" postpone=no abort_unmodified=no quit=yes move=no confirmappend=no mark_old=no wait_key=no
"""
# mutt's $editor: the move goes above what mutt wrote (the attribution, the quote, the signature).
EDITOR = """#!/bin/sh
{ cat "$(dirname "$0")/move.txt"; echo; cat "$1"; } > "$1.typed" && mv "$1.typed" "$1"
"""


def write_mbox(path: Path, raw: bytes) -> None:
    """One message in an mbox (mboxrd: a body line starting with "From " gets a ">")."""
    body = re.sub(rb"(?m)^(>*From )", rb">\1", raw.replace(b"\r\n", b"\n"))
    path.write_bytes(b"From korsar@korsar.test Tue Dec  1 10:00:00 2026\n" + body.rstrip(b"\n") + b"\n\n")


def mutt_replies(home: Path, turn: bytes, move: str, lang: str, port: int) -> None:
    """mutt, under a terminal of its own (script), replies to `turn` with `move` and sends it."""
    home.mkdir()
    write_mbox(home / "turn.mbox", turn)
    (home / "move.txt").write_text(move + "\n", encoding="utf-8")
    (home / "signature").write_text("Ann\n", encoding="utf-8")
    editor = home / "type-the-move"
    editor.write_text(EDITOR)
    editor.chmod(0o755)
    (home / "muttrc").write_text(MUTTRC.format(home=home, attribution=ATTRIBUTIONS[lang], sender=ANN,
                                               port=port), encoding="utf-8")
    command = f"{MUTT} -n -d 2 -F {home}/muttrc -e 'push ryq'"  # reply, send (y), quit
    env = {**os.environ, "HOME": str(home), "TERM": "xterm", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    # stdin stays open (and empty) until mutt is done: an EOF would reach mutt as a key.
    mutt = subprocess.Popen([SCRIPT, "-qec", command, "/dev/null"], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        assert mutt.wait(timeout=60) == 0, _debug(home)
    finally:
        if mutt.poll() is None:
            mutt.kill()
            mutt.wait()
        assert mutt.stdin is not None
        mutt.stdin.close()


def _debug(home: Path) -> str:
    logs = sorted(home.glob(".muttdebug*"))
    return logs[-1].read_text(errors="replace")[-3000:] if logs else "(no mutt debug log)"


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_mutt_replies_to_a_turn_email_through_the_inbound_process_and_the_move_is_played(
        database_url, smtp_server, tmp_path, lang):
    cfg = make_cfg(database_url, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port)
    db = make_engine(database_url)
    with session_scope(db) as session:
        game_id = service.create_game(session, cfg, [f"Ann <{ANN}> [{lang}]", f"Bob <{BOB}>"], seed=11).id
    deliver_due(db, cfg)
    [turn] = [raw for raw, msg in zip(smtp_server.raw, smtp_server.messages)
              if str(msg["Reply-To"]).startswith(f"play+{game_id}-0-0-")]  # Ann's turn email
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": cfg.SECRET_KEY, "BASE_URL": cfg.BASE_URL,
           "MAIL_FROM": cfg.MAIL_FROM, "KORSAR_ENV": "testing", "INBOUND_PORT": str(port), "IMAP_URL": ""}
    log = tmp_path / "inbound.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(procfile_command("inbound"), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert wait_for_port("127.0.0.1", port, 120, proc), log.read_text()[-2000:]
        mutt_replies(tmp_path / "mutt", turn, MOVES[lang], lang, port)
        with session_scope(db) as session:
            version = session.exec(select(Game.version).where(Game.id == game_id)).one()
        assert version == 1, log.read_text()[-2000:]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    before = len(smtp_server.to(ANN))
    deadline = time.monotonic() + 120  # generous on a loaded machine: the loop ends when it is done
    while time.monotonic() < deadline and len(smtp_server.to(ANN)) == before:
        deliver_due(db, cfg)
        time.sleep(0.05)
    [answer] = smtp_server.to(ANN)[before:]
    with i18n.using(lang):
        played = i18n.gettext("%(game)s: played: %(move)s", game="",
                              move=i18n.in_sentence(i18n.gettext("Draw a card")))
    subject = " ".join(str(answer["Subject"]).split())  # (the catalog's no-break spaces may be plain ones)
    assert subject.endswith(" ".join(played.split())), (subject, played)
    db.dispose()


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_a_mutt_reply_that_only_quotes_the_turn_email_plays_nothing(database_url, smtp_server, tmp_path, lang):
    """Nothing typed above mutt's quote of the turn email (its moves, hand and links): no move."""
    cfg = make_cfg(database_url, SMTP_HOST=smtp_server.host, SMTP_PORT=smtp_server.port)
    db = make_engine(database_url)
    with session_scope(db) as session:
        game_id = service.create_game(session, cfg, [f"Ann <{ANN}> [{lang}]", f"Bob <{BOB}>"], seed=11).id
    deliver_due(db, cfg)
    [turn] = [raw for raw, msg in zip(smtp_server.raw, smtp_server.messages)
              if str(msg["Reply-To"]).startswith(f"play+{game_id}-0-0-")]
    port = free_port()
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": cfg.SECRET_KEY, "BASE_URL": cfg.BASE_URL,
           "MAIL_FROM": cfg.MAIL_FROM, "KORSAR_ENV": "testing", "INBOUND_PORT": str(port), "IMAP_URL": ""}
    log = tmp_path / "inbound.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(procfile_command("inbound"), cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        assert wait_for_port("127.0.0.1", port, 120, proc), log.read_text()[-2000:]
        mutt_replies(tmp_path / "mutt", turn, "", lang, port)
        with session_scope(db) as session:
            version = session.exec(select(Game.version).where(Game.id == game_id)).one()
        assert version == 0, log.read_text()[-2000:]
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    db.dispose()
