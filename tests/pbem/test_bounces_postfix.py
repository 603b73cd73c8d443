"""A real MTA end to end (issue 26): Debian's Postfix is the worker's relay and refuses one
recipient's domain after taking the email (its `error` transport), so the DSN it writes itself
goes to the email's envelope sender, our signed bounce address, which Postfix delivers to our
inbound SMTP receiver: the player is marked undeliverable. Skipped where Postfix is not
installed (.ci/run installs it) or the test does not run as root (Postfix's master needs it)."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from bounce_helpers import bounces_of, is_undeliverable
from game_helpers import cfg_of, db_of, outbox, start_game
from smtp_fakes import free_port

from pbem.devserver import wait_for_port
from pbem.inbound import smtp as inbound_smtp
from pbem.mail.delivery import deliver_due

POSTFIX = shutil.which("postfix") or ("/usr/sbin/postfix" if os.path.exists("/usr/sbin/postfix") else None)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(POSTFIX is None, reason="Postfix is not installed (apt-get install postfix: .ci/run)"),
    pytest.mark.skipif(os.geteuid() != 0, reason="Postfix's master process must start as root"),
]
REFUSED = "refuse.test"  # the domain Postfix takes mail for and then bounces


def _main_cf(root: Path) -> str:
    return "\n".join([
        "compatibility_level = 3.6", f"queue_directory = {root}/queue", f"data_directory = {root}/data",
        "mail_owner = postfix", "setgid_group = postdrop", "myhostname = mta.postfix.test",
        "mydomain = postfix.test", "mydestination =", "inet_interfaces = 127.0.0.1", "inet_protocols = ipv4",
        "mynetworks = 127.0.0.0/8", "smtpd_relay_restrictions = permit_mynetworks, reject",
        "smtp_dns_support_level = disabled", "default_transport = discard:",
        f"transport_maps = texthash:{root}/conf/transport",
        "maillog_file = /dev/stdout", "alias_maps =", "alias_database =", "local_recipient_maps =",
        "smtp_tls_security_level = none", "smtpd_tls_security_level = none",
        "smtpd_reject_unlisted_recipient = no",  # take the mail, then bounce it: a DSN of its own
        ""])


@pytest.fixture
def postfix(receiver_port: int) -> Iterator[int]:
    """A Postfix instance of its own (config, queue) on a free port, relaying korsar.test to us."""
    root = Path(tempfile.mkdtemp(prefix="korsar-postfix-"))  # under /tmp: the postfix user reads it
    root.chmod(0o755)
    port = free_port()
    for name in ("conf", "data", "queue"):
        (root / name).mkdir()
    shutil.chown(root / "data", "postfix")
    (root / "conf" / "main.cf").write_text(_main_cf(root))
    (root / "conf" / "transport").write_text(f"{REFUSED} error:5.1.1 No such user here\n"
                                             f"korsar.test smtp:[127.0.0.1]:{receiver_port}\n")
    master = Path("/etc/postfix/master.cf").read_text().splitlines()
    (root / "conf" / "master.cf").write_text("\n".join(
        f"127.0.0.1:{port} inet n - n - - smtpd" if line.startswith("smtp ") and " inet " in line else line
        for line in master) + "\n")
    conf = str(root / "conf")
    subprocess.run([POSTFIX, "-c", conf, "set-permissions"], check=False, capture_output=True, timeout=60)
    log = open(root / "postfix.log", "wb")
    proc = subprocess.Popen([POSTFIX, "-c", conf, "start-fg"], stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_for_port("127.0.0.1", port, 60, proc), (root / "postfix.log").read_text()[-2000:]
        yield port
    finally:
        subprocess.run([POSTFIX, "-c", conf, "stop"], check=False, capture_output=True, timeout=60)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        if os.environ.get("KEEP_POSTFIX"):
            print(f"Postfix's files: {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def receiver_port(app) -> Iterator[int]:
    controller = inbound_smtp.controller(db_of(app), cfg_of(app), host="127.0.0.1", port=free_port())
    controller.start()
    yield controller.port
    controller.stop()


def test_postfix_bounces_a_refused_player_and_its_dsn_marks_them_undeliverable(app, postfix):
    cfg = cfg_of(app)
    cfg.SMTP_HOST, cfg.SMTP_PORT = "127.0.0.1", postfix
    hal = f"hal@{REFUSED}"
    game_id = start_game(app, [f"Hal <{hal}>", "Bob <bob@example.com>"])
    report = deliver_due(db_of(app), cfg)  # Postfix takes both (250), then its error transport bounces Hal's
    assert report.sent == report.claimed, [(r.to_addr, r.last_error) for r in outbox(app, game_id)]
    assert {row.status for row in outbox(app, game_id, to_addr=hal)} == {"sent"}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not is_undeliverable(db_of(app), hal):
        time.sleep(0.2)
    assert is_undeliverable(db_of(app), hal), "Postfix's DSN did not reach the receiver"
    time.sleep(1)  # Hal's other email's DSN (each email bounces on its own)
    bounces = bounces_of(db_of(app), hal)
    assert bounces and all(b.kind == "permanent" and "5.1.1" in b.reason for b in bounces)
    assert [b.undeliverable for b in bounces].count(True) == 1  # marked once
    assert {b.outbox_id for b in bounces} <= {row.id for row in outbox(app, game_id, to_addr=hal)}
    assert not is_undeliverable(db_of(app), "bob@example.com")
