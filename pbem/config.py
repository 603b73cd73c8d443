"""Configuration read from the environment, with defaults that suit `make run`."""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from email.utils import parseaddr
from pathlib import Path
from urllib.parse import urlsplit

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# The package's own files (pbem/templates, pbem/static, pbem/migrations):
# shipped in the wheel, found next to this module wherever it is installed.
PACKAGE_DIR = Path(__file__).resolve().parent
VAR_DIR_ENV = "KORSAR_VAR_DIR"
ENVIRONMENTS = ("development", "testing", "production")
DEV_SECRET_KEY = "dev-only-secret-key-change-me"
MIN_SECRET_KEY_BYTES = 32
# At least this many different characters: a random hex key (16 symbols) passes, " ",
# "xxxx..." or "abcabc..." do not.
MIN_SECRET_KEY_SYMBOLS = 10
# Words that give away a hand-made or copied placeholder (looked for in the key's letters and
# digits, lower-cased): a random key of 64 characters contains one by chance about never.
SECRET_KEY_PLACEHOLDERS = ("changeme", "secret", "password", "passwd", "example", "placeholder",
                           "replaceme", "devonly", "insecure", "notforproduction")
MAKE_SECRET_KEY = 'python -c "import secrets; print(secrets.token_urlsafe(48))"'


def secret_key_weakness(key: str) -> str | None:
    """Why `key` is no production secret (None when it looks long and random enough)."""
    if not key.strip():
        return "only whitespace"
    if len(key.encode()) < MIN_SECRET_KEY_BYTES:
        return f"shorter than {MIN_SECRET_KEY_BYTES} bytes"
    if len(set(key)) < MIN_SECRET_KEY_SYMBOLS:
        return f"fewer than {MIN_SECRET_KEY_SYMBOLS} different characters"
    if key in (key + key)[1:-1]:
        return "a repeated pattern"
    letters = "".join(ch for ch in key.lower() if ch.isalnum())
    word = next((w for w in SECRET_KEY_PLACEHOLDERS if w in letters), None)
    if word is not None:
        return f"contains the placeholder word {word!r}"
    return None


# The hosts a BASE_URL is local with (development by default): exactly these, so that a name
# that merely starts like one (127.0.0.1.nip.io, localhost.example.com) is served to the world.
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def _is_loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in LOCAL_HOSTS


def var_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where local state lives by default (the SQLite file, the dev mail catcher's mail):
    $KORSAR_VAR_DIR; else var/ of the source checkout when run from one (`make run`, as
    always); else, for an installed package, var/ of the current directory (never
    site-packages)."""
    env = os.environ if environ is None else environ
    if env.get(VAR_DIR_ENV):
        return Path(env[VAR_DIR_ENV])
    if (PROJECT_ROOT / "pyproject.toml").is_file():
        return PROJECT_ROOT / "var"
    return Path.cwd() / "var"


def _default_database_url() -> str:
    return f"sqlite:///{var_dir() / 'korsar.sqlite3'}"


@dataclass
class Config:
    """Settings of one app or worker process. `from_env()` reads the documented variables."""

    DATABASE_URL: str = field(default_factory=_default_database_url)
    SECRET_KEY: str = DEV_SECRET_KEY
    # Older keys still accepted while rotating (comma separated in SECRET_KEY_FALLBACKS).
    SECRET_KEY_FALLBACKS: list[str] = field(default_factory=list)
    BASE_URL: str = "http://127.0.0.1:5000"
    SMTP_HOST: str = "127.0.0.1"
    SMTP_PORT: int = 8025
    SMTP_USER: str = ""
    SMTP_PASSWORD: str = ""
    SMTP_TLS: str = "none"  # none | starttls | ssl
    SMTP_TIMEOUT: float = 10.0
    MAIL_FROM: str = "Korsar by mail <korsar@localhost>"
    WORKER_POLL_SECONDS: float = 2.0
    BOT_DELAY_SECONDS: float = 3.0
    KORSAR_ENV: str = "development"  # development | production | testing
    DEV_INBOX: bool = True  # the dev-only mail catcher inbox pages
    # Clocks (pbem/games/clocks): extra addresses told when a game pauses on a timeout (besides admin accounts).
    ADMIN_EMAILS: list[str] = field(default_factory=list)
    VACATION_DAYS_PER_GAME: float = 14.0
    # Reverse proxies in front of gunicorn whose X-Forwarded-* headers are trusted (0: none).
    FORWARDED_HOPS: int = 0
    # /healthz shows its detail (outbox counts, oldest age) only to `Authorization: Bearer
    # <HEALTH_TOKEN>`; empty (the default): to nobody, everyone gets the ok/degraded verdict.
    HEALTH_TOKEN: str = ""
    # Replies by email (pbem/inbound): the SMTP receiver's address, the IMAP mailbox polled
    # instead (imap[s]://user:password@host[:port]/folder), and the domain of the signed
    # Reply-To addresses (play+<token>@REPLY_DOMAIN; empty: MAIL_FROM's domain).
    INBOUND_HOST: str = "127.0.0.1"
    INBOUND_PORT: int = 2525
    IMAP_URL: str = ""
    REPLY_DOMAIN: str = ""
    # The receiver offers STARTTLS with this certificate chain and key (PEM files; both or neither).
    INBOUND_TLS_CERT: str = ""
    INBOUND_TLS_KEY: str = ""
    # Where the IMAP poller moves a message it cannot handle (created if missing).
    IMAP_QUARANTINE: str = "Korsar-quarantine"
    # Self-service games (pbem/games/invitations.py): how long an invitation waits for its answer,
    # and the limits against abuse (pbem/games/limits.py), counted in the database per verified
    # creator per day, per invited address per day, and per address and per IP per hour for the
    # emails anyone can ask for (a new game's confirmation link, a "my games" link).
    INVITATION_DAYS: float = 7.0
    LIMIT_GAMES_PER_CREATOR_DAY: int = 10
    LIMIT_INVITATIONS_PER_CREATOR_DAY: int = 30
    LIMIT_INVITATIONS_PER_ADDRESS_DAY: int = 5
    LIMIT_LINKS_PER_ADDRESS_HOUR: int = 5
    LIMIT_LINKS_PER_IP_HOUR: int = 20
    # Emails an address did not ask for itself (a game's confirmation link, a "my games" link,
    # an invitation) per address and day: a stranger's requests mail it at most this much.
    # The larger number once the address has confirmed a game or accepted an invitation; an
    # invitation from someone it has played with counts only against that pair's daily number.
    LIMIT_UNASKED_PER_ADDRESS_DAY: int = 3
    LIMIT_UNASKED_PER_KNOWN_ADDRESS_DAY: int = 20
    LIMIT_INVITATIONS_PER_PAIR_DAY: int = 3
    # DKIM signing at delivery (pbem/mail/dkim.py), for a relay that does not sign: all three
    # set (the key as PEM text, or DKIM_PRIVATE_KEY_FILE naming its file), or none.
    DKIM_SELECTOR: str = ""
    DKIM_DOMAIN: str = ""
    DKIM_PRIVATE_KEY: str = ""
    DKIM_PRIVATE_KEY_FILE: str = ""
    # /metrics (Prometheus) answers only `Authorization: Bearer <METRICS_TOKEN>`; empty: 404.
    METRICS_TOKEN: str = ""
    # Keep no longer than needed (pbem/games/retention.py, the worker's `retention` job, every
    # RETENTION_EVERY_MINUTES; docs/privacy.md): the sender and Message-ID of a received email
    # after RETENTION_INBOUND_DAYS (its outcome row stays), the bodies of sent emails after
    # RETENTION_OUTBOX_BODY_DAYS (date, kind, subject, status stay), admin login attempts after
    # RETENTION_LOGIN_ATTEMPT_DAYS, expired or cancelled game proposals and their invitations
    # after RETENTION_PROPOSAL_DAYS, audit entries after RETENTION_AUDIT_DAYS. 0: kept forever.
    RETENTION_EVERY_MINUTES: float = 60.0
    RETENTION_INBOUND_DAYS: float = 30.0
    RETENTION_OUTBOX_BODY_DAYS: float = 90.0
    RETENTION_LOGIN_ATTEMPT_DAYS: float = 90.0
    RETENTION_PROPOSAL_DAYS: float = 30.0
    RETENTION_AUDIT_DAYS: float = 365.0

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> "Config":
        env = os.environ if environ is None else environ
        cfg = cls()
        for f in fields(cls):
            raw = env.get(f.name)
            if raw is None or raw == "":
                continue
            current = getattr(cfg, f.name)
            if isinstance(current, bool):
                value: object = raw.strip().lower() in {"1", "true", "yes", "on"}
            elif isinstance(current, int):
                value = int(raw)
            elif isinstance(current, float):
                value = float(raw)
            elif isinstance(current, list):
                value = [part.strip() for part in raw.split(",") if part.strip()]
            else:
                value = raw
            setattr(cfg, f.name, value)
        if not env.get("KORSAR_ENV") and not _is_loopback(cfg.BASE_URL):
            # Served to the world without saying so: behave as production (no dev inbox,
            # no development secret), never the other way round.
            cfg.KORSAR_ENV = "production"
        if cfg.KORSAR_ENV == "production":
            cfg.DEV_INBOX = env.get("DEV_INBOX", "").lower() in {"1", "true", "yes", "on"}
        cfg.validate(explicit_secret="SECRET_KEY" in env and env["SECRET_KEY"] != "")
        return cfg

    def validate(self, explicit_secret: bool = True) -> None:
        # A typo ("prod") must not quietly mean development: dev secret key and dev inbox.
        if self.KORSAR_ENV not in ENVIRONMENTS:
            raise ValueError(f"KORSAR_ENV must be one of {', '.join(ENVIRONMENTS)}, not {self.KORSAR_ENV!r}")
        if self.SMTP_TLS not in {"none", "starttls", "ssl"}:
            raise ValueError("SMTP_TLS must be one of none, starttls, ssl")
        if bool(self.INBOUND_TLS_CERT) != bool(self.INBOUND_TLS_KEY):
            raise ValueError("INBOUND_TLS_CERT and INBOUND_TLS_KEY must be set together (or neither)")
        if self.DKIM_PRIVATE_KEY_FILE and not self.DKIM_PRIVATE_KEY:
            self.DKIM_PRIVATE_KEY = Path(self.DKIM_PRIVATE_KEY_FILE).read_text(encoding="ascii")
        dkim = (self.DKIM_SELECTOR, self.DKIM_DOMAIN, self.DKIM_PRIVATE_KEY)
        if any(dkim) and not all(dkim):
            raise ValueError("DKIM_SELECTOR, DKIM_DOMAIN and DKIM_PRIVATE_KEY (or DKIM_PRIVATE_KEY_FILE) "
                             "must be set together (or none)")
        if self.KORSAR_ENV == "production" and (not explicit_secret or self.SECRET_KEY == DEV_SECRET_KEY):
            raise RuntimeError("SECRET_KEY must be set in production (KORSAR_ENV=production); "
                               f"make one with: {MAKE_SECRET_KEY}")
        if self.KORSAR_ENV == "production":
            # Sessions and emailed links are signed with these keys: a guessable one forges both.
            named = [("SECRET_KEY", self.SECRET_KEY)]
            named += [(f"SECRET_KEY_FALLBACKS[{i}]", key) for i, key in enumerate(self.SECRET_KEY_FALLBACKS)]
            for name, key in named:
                weakness = secret_key_weakness(key)
                if weakness:
                    raise RuntimeError(f"{name} is too weak for production ({weakness}): use a long "
                                       f"random key, made with: {MAKE_SECRET_KEY}")
        self.BASE_URL = self.BASE_URL.rstrip("/")

    @property
    def is_production(self) -> bool:
        return self.KORSAR_ENV == "production"


def reply_domain(cfg: Config) -> str:
    """The domain of our signed addresses: replies (play+, talk+) and bounces (bounce+)."""
    return (cfg.REPLY_DOMAIN or parseaddr(cfg.MAIL_FROM)[1].rpartition("@")[2] or "localhost").lower()
