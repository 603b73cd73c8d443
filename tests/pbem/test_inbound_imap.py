"""The IMAP poller against a real Dovecot (Debian's dovecot-imapd, installed by .ci/run) on
127.0.0.1, with a mailbox the test fills: a reply in it is played once and answered, the
poller waits with IDLE for the next one, a message it cannot handle goes to the quarantine
folder (or is flagged) and never stops the replies after it, and a database outage leaves every
message unseen for the next poll."""
from __future__ import annotations

import email.policy
import os
import pwd
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from game_helpers import cfg_of, db_of, deliver, start_game
from imap_tools import AND, BaseMailBox, MailBoxUnencrypted
from imap_tools.errors import MailboxMoveError
from smtp_fakes import free_port
from sqlalchemy.exc import DataError, OperationalError
from inbound_helpers import game_state, latest, new_mail, outbox_ids, reply_to

from pbem.db import make_engine
from pbem.devserver import wait_for_port
from pbem.inbound import imap
from pbem.inbound.bounds import MAX_MESSAGE_BYTES, Rejected

DOVECOT = shutil.which("dovecot") or ("/usr/sbin/dovecot" if os.path.exists("/usr/sbin/dovecot") else None)
ANN, BOB = "ann@example.com", "bob@example.com"
USER, PASSWORD = "korsar", "imap-test-password"

pytestmark = pytest.mark.skipif(DOVECOT is None, reason="Dovecot is not installed (apt-get install dovecot-imapd)")

CONFIG = """\
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
listen = 127.0.0.1
protocols = imap
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
first_valid_gid = 1
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/passwd
}}
userdb {{
  driver = static
  args = uid={uid} gid={gid} home={root}/home/%u
}}
mail_location = maildir:~/Maildir
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service anvil {{
  chroot =
}}
"""


@pytest.fixture
def dovecot():
    """A Dovecot of this test's own (config, mail and sockets in a temp dir); its IMAP port."""
    root = Path(tempfile.mkdtemp(prefix="korsar-dovecot-"))
    root.chmod(0o755)  # the mail user (not root: Dovecot refuses uid 0) walks into it
    uid, gid = (os.getuid(), os.getgid()) if os.getuid() else pwd.getpwnam("dovecot")[2:4]
    for sub in ("run", "state", "home"):
        (root / sub).mkdir()
    os.chown(root / "home", uid, gid)
    (root / "passwd").write_text(f"{USER}:{{PLAIN}}{PASSWORD}\n")
    port = free_port()
    (root / "dovecot.conf").write_text(CONFIG.format(root=root, uid=uid, gid=gid, port=port))
    proc = subprocess.Popen([DOVECOT, "-F", "-c", str(root / "dovecot.conf")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        if not wait_for_port("127.0.0.1", port, 15, proc):
            pytest.skip(f"Dovecot did not start: {proc.stderr.read().decode()[-500:] if proc.stderr else ''}")
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        shutil.rmtree(root, ignore_errors=True)


def _fill(port: int, *messages: bytes) -> None:
    with MailBoxUnencrypted("127.0.0.1", port).login(USER, PASSWORD) as box:
        for raw in messages:
            box.append(raw, "INBOX")


def _unseen(port: int) -> int:
    with MailBoxUnencrypted("127.0.0.1", port).login(USER, PASSWORD) as box:
        return len(list(box.fetch(AND(seen=False), mark_seen=False)))


def _subjects(port: int, folder: str) -> list[str]:
    """The Subjects of the messages in `folder` ([] when it does not exist)."""
    with MailBoxUnencrypted("127.0.0.1", port).login(USER, PASSWORD) as box:
        if not box.folder.exists(folder):
            return []
        box.folder.set(folder)
        return [m.subject for m in box.fetch(mark_seen=False, headers_only=True)]


def _flags(port: int) -> dict[str, set[str]]:
    with MailBoxUnencrypted("127.0.0.1", port).login(USER, PASSWORD) as box:
        return {m.subject: set(m.flags) for m in box.fetch(mark_seen=False, headers_only=True)}


def _poll(app, port: int, db=None) -> int:
    with imap.connect(imap.parse_imap_url(f"imap://{USER}:{PASSWORD}@127.0.0.1:{port}/INBOX")) as box:
        return imap.poll_once(db or db_of(app), cfg_of(app), box)


def _poison(kind: str, good: bytes) -> bytes:
    """A message the poller cannot handle, of `kind` (see `_poisoned`), made from a good reply."""
    raw = good.replace(b"Subject: ", b"X-Test-Poison: " + kind.encode() + b"\r\nSubject: POISON ", 1)
    raw = raw.replace(b"Message-ID: <", b"Message-ID: <poison-", 1)
    return raw + (b"x" * 76 + b"\r\n") * (MAX_MESSAGE_BYTES // 76) if kind == "too-large" else raw


POISONS = {  # what handle_message does with a poisoned message (too-large is never downloaded)
    "rejected": Rejected("12000 encoded words in the Subject"),
    "data-error": DataError("SELECT ... FOR UPDATE", {"id": 2**31}, Exception("integer out of range")),
    "bug": RuntimeError("a bug in the handler"),
}


@pytest.fixture
def poisoned(monkeypatch):
    """handle_message, except that it raises POISONS[kind] for a message marked X-Test-Poison."""
    real = imap.handle_message

    def handle(db, cfg, raw, **kwargs):  # type: ignore[no-untyped-def]
        for kind, exc in POISONS.items():
            if b"X-Test-Poison: " + kind.encode() in raw:
                raise exc
        assert b"X-Test-Poison" not in raw, "a message over the size bound was downloaded"
        return real(db, cfg, raw, **kwargs)

    monkeypatch.setattr(imap, "handle_message", handle)


def test_a_reply_in_the_imap_mailbox_is_played_once_and_answered(app, smtp_server, dovecot):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    reply = reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw").as_bytes()
    _fill(dovecot, reply, reply)  # delivered twice: acts once
    before = outbox_ids(app)
    with imap.connect(imap.parse_imap_url(f"imap://{USER}:{PASSWORD}@127.0.0.1:{dovecot}/INBOX")) as box:
        assert imap.poll_once(db_of(app), cfg_of(app), box) == 2
    assert game_state(app, game_id)[1].version == 1
    assert [r.kind for r in new_mail(app, before) if r.to_addr == ANN] == ["reply_played"]
    assert _unseen(dovecot) == 0


def test_the_poller_waits_with_idle_and_plays_a_reply_as_it_arrives(app, smtp_server, dovecot, monkeypatch):
    monkeypatch.setattr(imap, "IDLE_SECONDS", 0.5)  # so that it notices the stop soon
    game_id = start_game(app, [f"Ann <{ANN}> [fr]", f"Bob <{BOB}>"], seed=11)  # Ann writes French
    deliver(app)
    cfg = cfg_of(app)
    cfg.IMAP_URL = f"imap://{USER}:{PASSWORD}@127.0.0.1:{dovecot}/INBOX"
    stop = threading.Event()
    poller = threading.Thread(target=imap.poll_forever, args=(db_of(app), cfg, stop), daemon=True)
    poller.start()
    try:
        time.sleep(0.5)  # the poller is idling now
        _fill(dovecot, reply_to(latest(smtp_server, ANN), ANN, "piocher", lang="fr").as_bytes())
        deadline = time.monotonic() + 120  # generous on a loaded machine: the loop ends when it is done
        while time.monotonic() < deadline and game_state(app, game_id)[1].version == 0:
            time.sleep(0.05)
        assert game_state(app, game_id)[1].version == 1
    finally:
        stop.set()
        poller.join(timeout=60)
    assert not poller.is_alive()


def test_an_imap_url_is_read_into_host_port_user_and_folder():
    target = imap.parse_imap_url("imaps://play%40korsar.example:p%2Fss@imap.example.com/Replies")
    assert (target.host, target.port, target.tls, target.user, target.password, target.folder) == (
        "imap.example.com", 993, True, "play@korsar.example", "p/ss", "Replies")
    with pytest.raises(ValueError):
        imap.parse_imap_url("http://imap.example.com")


@pytest.mark.parametrize("kind", ["too-large", *POISONS])
def test_a_message_the_poller_cannot_handle_is_quarantined_and_the_reply_after_it_is_played(
        app, smtp_server, dovecot, poisoned, caplog, kind):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    good = reply_to(turn, ANN, "draw").as_bytes(policy=email.policy.SMTP)
    _fill(dovecot, _poison(kind, good), good)
    assert _poll(app, dovecot) == 2
    assert game_state(app, game_id)[1].version == 1
    assert _unseen(dovecot) == 0
    assert [s.startswith("POISON") for s in _subjects(dovecot, "Korsar-quarantine")] == [True]
    assert [s.startswith("POISON") for s in _subjects(dovecot, "INBOX")] == [False]
    assert "moved to Korsar-quarantine" in caplog.text
    assert str(turn["Reply-To"]).split("@")[0] not in caplog.text  # the uid and why, never the token
    _fill(dovecot, _poison(kind, good))  # the quarantine folder exists now: used as it is
    assert _poll(app, dovecot) == 1 and len(_subjects(dovecot, "Korsar-quarantine")) == 2


def test_a_reply_to_a_game_id_past_2_31_does_not_stop_the_replies_after_it(app, smtp_server, dovecot):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    huge = reply_to(turn, ANN, "draw")
    huge.replace_header("To", f"play+{2**31}-0-0-abcdefghijklmnop@korsar.test")  # PostgreSQL: DataError
    _fill(dovecot, huge.as_bytes(), reply_to(turn, ANN, "draw").as_bytes())
    assert _poll(app, dovecot) == 2
    assert game_state(app, game_id)[1].version == 1
    assert _unseen(dovecot) == 0


def test_where_the_quarantine_cannot_take_a_message_it_is_flagged_and_marked_seen(
        app, smtp_server, dovecot, poisoned, monkeypatch):
    def no_move(self, uid_list, destination_folder, chunks=None):  # type: ignore[no-untyped-def]
        raise MailboxMoveError("NO", "[CANNOT] not here")

    monkeypatch.setattr(BaseMailBox, "move", no_move)
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    good = reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw").as_bytes(policy=email.policy.SMTP)
    _fill(dovecot, _poison("bug", good), good)
    assert _poll(app, dovecot) == 2
    assert game_state(app, game_id)[1].version == 1
    flags = {subject.startswith("POISON"): found for subject, found in _flags(dovecot).items()}
    assert flags == {True: {"\\Flagged", "\\Seen"}, False: {"\\Seen"}}


@pytest.mark.parametrize("outage", ["closed-port", "operational-error"])
def test_a_database_outage_leaves_every_message_unseen_for_the_next_poll(
        app, smtp_server, dovecot, monkeypatch, outage):
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    turn = latest(smtp_server, ANN, "your turn")
    _fill(dovecot, reply_to(turn, ANN, "hello").as_bytes(), reply_to(turn, ANN, "draw").as_bytes())
    away = make_engine(f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/korsar")  # nobody listens
    if outage == "operational-error":  # the database went away in the middle of a handling
        def down(db, cfg, raw, **kwargs):  # type: ignore[no-untyped-def]
            raise OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly"))
        monkeypatch.setattr(imap, "handle_message", down)
        away = None
    with pytest.raises(imap.DatabaseAway):
        _poll(app, dovecot, db=away)
    assert _unseen(dovecot) == 2
    assert _subjects(dovecot, "Korsar-quarantine") == []
    monkeypatch.undo()
    assert _poll(app, dovecot) == 2  # the database is back
    assert game_state(app, game_id)[1].version == 1
    assert _unseen(dovecot) == 0


def test_the_poller_goes_on_after_a_database_outage(app, smtp_server, dovecot, monkeypatch):
    monkeypatch.setattr(imap, "IDLE_SECONDS", 0.5)
    monkeypatch.setattr(imap, "RETRY_SECONDS", 0.2)
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    _fill(dovecot, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "draw").as_bytes())
    real, failures = imap.handle_message, []

    def down_twice(db, cfg, raw, **kwargs):  # type: ignore[no-untyped-def]
        if len(failures) < 2:
            failures.append(1)
            raise OperationalError("SELECT 1", {}, Exception("the database system is starting up"))
        return real(db, cfg, raw, **kwargs)

    monkeypatch.setattr(imap, "handle_message", down_twice)
    cfg = cfg_of(app)
    cfg.IMAP_URL = f"imap://{USER}:{PASSWORD}@127.0.0.1:{dovecot}/INBOX"
    stop = threading.Event()
    poller = threading.Thread(target=imap.poll_forever, args=(db_of(app), cfg, stop), daemon=True)
    poller.start()
    try:
        deadline = time.monotonic() + 120  # generous on a loaded machine: the loop ends when it is done
        while time.monotonic() < deadline and game_state(app, game_id)[1].version == 0:
            time.sleep(0.05)
        assert game_state(app, game_id)[1].version == 1 and len(failures) == 2
    finally:
        stop.set()
        poller.join(timeout=60)
    assert not poller.is_alive()
