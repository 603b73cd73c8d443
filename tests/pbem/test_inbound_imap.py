"""The IMAP poller against a real Dovecot (Debian's dovecot-imapd, installed by .ci/run) on
127.0.0.1, with a mailbox the test fills: a reply in it is played once and answered, and the
poller waits with IDLE for the next one."""
from __future__ import annotations

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
from imap_tools import AND, MailBoxUnencrypted
from smtp_fakes import free_port
from test_inbound_support import game_state, latest, new_mail, outbox_ids, reply_to

from pbem.devserver import wait_for_port
from pbem.inbound import imap

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
    game_id = start_game(app, [f"Ann <{ANN}>", f"Bob <{BOB}>"], seed=11)
    deliver(app)
    cfg = cfg_of(app)
    cfg.IMAP_URL = f"imap://{USER}:{PASSWORD}@127.0.0.1:{dovecot}/INBOX"
    stop = threading.Event()
    poller = threading.Thread(target=imap.poll_forever, args=(db_of(app), cfg, stop), daemon=True)
    poller.start()
    try:
        time.sleep(0.5)  # the poller is idling now
        _fill(dovecot, reply_to(latest(smtp_server, ANN, "your turn"), ANN, "piocher", lang="fr").as_bytes())
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and game_state(app, game_id)[1].version == 0:
            time.sleep(0.05)
        assert game_state(app, game_id)[1].version == 1
    finally:
        stop.set()
        poller.join(timeout=10)
    assert not poller.is_alive()


def test_an_imap_url_is_read_into_host_port_user_and_folder():
    target = imap.parse_imap_url("imaps://play%40korsar.example:p%2Fss@imap.example.com/Replies")
    assert (target.host, target.port, target.tls, target.user, target.password, target.folder) == (
        "imap.example.com", 993, True, "play@korsar.example", "p/ss", "Replies")
    with pytest.raises(ValueError):
        imap.parse_imap_url("http://imap.example.com")
