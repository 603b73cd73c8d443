"""Signed links: one per legal move ("korsar.move") and one per seat's game page ("korsar.seat");
and the signed reply addresses of emails (`reply_address`: play+<token>@REPLY_DOMAIN).

A move token binds the game, the seat, the seat's link nonce, the state version it was issued
for and the move itself, so a link from an older email is recognisably stale and a changed
nonce (new email address) revokes every link of that seat. Tokens are signed with
itsdangerous; SECRET_KEY_FALLBACKS keep links of a rotated key working. A token that cannot be
used is a `LinkError`, the one refusal type (`pbem.refusals`) by its code.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from email.utils import parseaddr
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer

from pbem.config import Config, reply_domain
from pbem.i18n import lazy
from pbem.refusals import Refusal, declare_refusals

MOVE_SALT = "korsar.move"
SEAT_SALT = "korsar.seat"
# A turn can be extended and paused; the version check, not the age, is what retires a link.
MOVE_LINK_MAX_AGE = 60 * 24 * 3600


@dataclass(frozen=True)
class SeatToken:
    """A verified game-page token."""

    game_id: int
    position: int
    nonce: str


@dataclass(frozen=True)
class MoveToken:
    """A verified move-link token."""

    game_id: int
    position: int
    nonce: str
    version: int
    move: dict[str, Any]

    @property
    def seat(self) -> SeatToken:
        return SeatToken(self.game_id, self.position, self.nonce)


declare_refusals({
    "move_link_expired": (lazy("This move link has expired. Open your game page to see your moves now."), 410),
    "move_link_forged": (lazy("This link is damaged or was not made by us. "
                              "Copy the whole link from your email, or open your game page."), 400),
    "move_link_damaged": (lazy("This link is damaged. Open your game page from your latest email."), 400),
    "seat_link_forged": (lazy("This game page link is damaged or was not made by us. "
                              "Copy the whole link from your email."), 400),
    "seat_link_damaged": (lazy("This game page link is damaged. Copy the whole link from your email."), 400),
    "link_expired": (lazy("This link has expired."), 410),
    "link_forged": (lazy("This link is damaged or was not made by us. Copy the whole link from your email."), 400),
    "link_damaged": (lazy("This link is damaged. Copy the whole link from your email."), 400),
})


class LinkError(Refusal):
    """A token that cannot be used, by its code; `seat` is set when its signature proved who it
    was for."""

    def __init__(self, code: str, params: dict[str, Any] | None = None, *, seat: SeatToken | None = None) -> None:
        super().__init__(code, params)
        self.seat = seat


def _serializer(cfg: Config, salt: str) -> URLSafeTimedSerializer:
    # itsdangerous takes the keys oldest first and signs with the last one.
    keys = [*cfg.SECRET_KEY_FALLBACKS, cfg.SECRET_KEY]
    return URLSafeTimedSerializer(keys, salt=salt)


def sign_move(cfg: Config, game_id: int, position: int, nonce: str, version: int,
              move: dict[str, Any]) -> str:
    return str(_serializer(cfg, MOVE_SALT).dumps([game_id, position, nonce, version, move]))


def sign_seat(cfg: Config, game_id: int, position: int, nonce: str) -> str:
    return str(_serializer(cfg, SEAT_SALT).dumps([game_id, position, nonce]))


def move_url(cfg: Config, token: str) -> str:
    return f"{cfg.BASE_URL}/m/{token}"


def seat_url(cfg: Config, token: str) -> str:
    return f"{cfg.BASE_URL}/g/{token}"


def rules_url(cfg: Config) -> str:
    """The rules page (/rules), absolute: emails are written by the worker, outside any request."""
    return f"{cfg.BASE_URL}/rules"


def _parse_move(payload: object) -> MoveToken | None:
    if (isinstance(payload, list) and len(payload) == 5 and isinstance(payload[0], int)
            and isinstance(payload[1], int) and isinstance(payload[2], str)
            and isinstance(payload[3], int) and isinstance(payload[4], dict)):
        return MoveToken(payload[0], payload[1], payload[2], payload[3], payload[4])
    return None


def _parse_seat(payload: object) -> SeatToken | None:
    if (isinstance(payload, list) and len(payload) == 3 and isinstance(payload[0], int)
            and isinstance(payload[1], int) and isinstance(payload[2], str)):
        return SeatToken(payload[0], payload[1], payload[2])
    return None


def read_move(cfg: Config, token: str, max_age: int = MOVE_LINK_MAX_AGE) -> MoveToken:
    """The move token's content; LinkError (400 tampered, 410 expired) otherwise."""
    serializer = _serializer(cfg, MOVE_SALT)
    try:
        payload = serializer.loads(token, max_age=max_age)
    except SignatureExpired as exc:
        # The signature was good, so the (still encoded) payload says whose link it was.
        try:
            parsed = _parse_move(serializer.load_payload(exc.payload)) if exc.payload is not None else None
        except BadSignature:
            parsed = None
        raise LinkError("move_link_expired", seat=parsed.seat if parsed else None) from None
    except BadSignature:
        raise LinkError("move_link_forged") from None
    parsed = _parse_move(payload)
    if parsed is None:
        raise LinkError("move_link_damaged")
    return parsed


def read_seat(cfg: Config, token: str) -> SeatToken:
    """The game-page token's content (valid for the life of the game); LinkError otherwise."""
    try:
        payload = _serializer(cfg, SEAT_SALT).loads(token)
    except BadSignature:
        raise LinkError("seat_link_forged") from None
    parsed = _parse_seat(payload)
    if parsed is None:
        raise LinkError("seat_link_damaged")
    return parsed


# ---------------------------------------------------------------- self-service games
# A record token binds a row (a proposal, an invitation) and its nonce: a new nonce retires
# the row's links. An address token binds a lower-case email address.
CONFIRM_SALT = "korsar.confirm"  # the creator's confirmation link: single use (status), 24 hours
PROPOSAL_SALT = "korsar.proposal"  # the creator's page of a game being set up
INVITATION_SALT = "korsar.invitation"  # an invitee's accept / decline page
NEVER_SALT = "korsar.never"  # "never email me again"
MY_GAMES_SALT = "korsar.me"  # the "my games" page of an address
CONFIRM_MAX_AGE = 24 * 3600
MY_GAMES_MAX_AGE = 7 * 24 * 3600


@dataclass(frozen=True)
class RecordToken:
    """A verified token of one row: its id and the nonce it was signed with."""

    id: int
    nonce: str


def sign_record(cfg: Config, salt: str, record_id: int, nonce: str) -> str:
    return str(_serializer(cfg, salt).dumps([record_id, nonce]))


def _load(cfg: Config, salt: str, token: str, max_age: int | None) -> object:
    """A self-service token's payload; LinkError (400 damaged, 410 expired) otherwise."""
    try:
        return _serializer(cfg, salt).loads(token, max_age=max_age)
    except SignatureExpired:
        raise LinkError("link_expired") from None
    except BadSignature:
        raise LinkError("link_forged") from None


def read_record(cfg: Config, salt: str, token: str, max_age: int | None = None) -> RecordToken:
    """The token's row; LinkError (400 damaged, 410 expired) otherwise."""
    payload = _load(cfg, salt, token, max_age)
    if (isinstance(payload, list) and len(payload) == 2 and isinstance(payload[0], int)
            and not isinstance(payload[0], bool) and isinstance(payload[1], str)):
        return RecordToken(payload[0], payload[1])
    raise LinkError("link_damaged")


def sign_address(cfg: Config, salt: str, email: str) -> str:
    return str(_serializer(cfg, salt).dumps(email.strip().lower()))


def read_address(cfg: Config, salt: str, token: str, max_age: int | None = None) -> str:
    """The lower-case address the token was signed for; LinkError otherwise."""
    payload = _load(cfg, salt, token, max_age)
    if isinstance(payload, str) and "@" in payload:
        return payload
    raise LinkError("link_damaged")


def confirm_url(cfg: Config, proposal_id: int, nonce: str) -> str:
    return f"{cfg.BASE_URL}/p/{sign_record(cfg, CONFIRM_SALT, proposal_id, nonce)}/confirm"


def proposal_url(cfg: Config, proposal_id: int, nonce: str) -> str:
    return f"{cfg.BASE_URL}/p/{sign_record(cfg, PROPOSAL_SALT, proposal_id, nonce)}"


def invitation_url(cfg: Config, invitation_id: int, nonce: str) -> str:
    return f"{cfg.BASE_URL}/i/{sign_record(cfg, INVITATION_SALT, invitation_id, nonce)}"


def never_url(cfg: Config, email: str) -> str:
    return f"{cfg.BASE_URL}/never/{sign_address(cfg, NEVER_SALT, email)}"


def my_games_url(cfg: Config, email: str) -> str:
    return f"{cfg.BASE_URL}/me/{sign_address(cfg, MY_GAMES_SALT, email)}"


def never_headers(cfg: Config, email: str) -> dict[str, str]:
    """List-Unsubscribe for an email about no seat (a confirmation, an invitation, a "my games"
    link): its one-click POST puts the address on the suppression list (RFC 8058)."""
    return {"List-Unsubscribe": f"<{never_url(cfg, email)}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


# ---------------------------------------------------------------- reply addresses
# A reply token lives in an address's local part (play+<token>@REPLY_DOMAIN): at most 64
# characters, and mail systems may lower-case it. So it is short and lower-case: game, seat
# and version in digits, then 80 bits of HMAC over them and the seat's link nonce (base32).
REPLY_SALT = "korsar.reply"
REPLY_LOCAL_PREFIX = "play+"
# The Reply-To of a talk email (a partner's or the table's words): what a reply to it says is
# passed on, and no move is read from it. Signed with its own salt: a play token is no talk token.
TALK_SALT = "korsar.talk"
TALK_LOCAL_PREFIX = "talk+"
_REPLY_TOKEN = re.compile(r"^(\d{1,12})-(\d{1,3})-(\d{1,9})-([a-z2-7]{16})$")
MAX_REPLY_ID = 2**31 - 1
MAX_REPLY_POSITION = 15  # seats are numbered from 0; no game has more than 16


@dataclass(frozen=True)
class ReplyToken:
    """A reply address's token, parsed but not verified (`reply_signed` needs the seat's nonce)."""

    game_id: int
    position: int
    version: int
    mac: str
    talk: bool = False  # a talk address (talk+...): its words are passed on, no move is read


def _reply_mac(key: str, game_id: int, position: int, nonce: str, version: int, salt: str = REPLY_SALT) -> str:
    message = f"{salt}|{game_id}|{position}|{nonce}|{version}".encode()
    digest = hmac.new(key.encode(), message, hashlib.sha256).digest()
    return base64.b32encode(digest[:10]).decode().lower()


def sign_reply(cfg: Config, game_id: int, position: int, nonce: str, version: int) -> str:
    return f"{game_id}-{position}-{version}-{_reply_mac(cfg.SECRET_KEY, game_id, position, nonce, version)}"


def reply_address(cfg: Config, game_id: int, position: int, nonce: str, version: int) -> str:
    """The Reply-To of an email to a seat for the game at `version`."""
    return f"{REPLY_LOCAL_PREFIX}{sign_reply(cfg, game_id, position, nonce, version)}@{reply_domain(cfg)}"


def talk_address(cfg: Config, game_id: int, position: int, nonce: str, version: int) -> str:
    """The Reply-To of a talk email to a seat: a reply to it is words for the partner or table."""
    mac = _reply_mac(cfg.SECRET_KEY, game_id, position, nonce, version, TALK_SALT)
    return f"{TALK_LOCAL_PREFIX}{game_id}-{position}-{version}-{mac}@{reply_domain(cfg)}"


def parse_reply_address(cfg: Config, address: str) -> ReplyToken | None:
    """The token of one of our reply addresses (any case), or None for any other address."""
    local, _, domain = parseaddr(address)[1].lower().rpartition("@")
    prefix = next((p for p in (REPLY_LOCAL_PREFIX, TALK_LOCAL_PREFIX) if local.startswith(p)), None)
    if domain != reply_domain(cfg) or prefix is None:
        return None
    match = _REPLY_TOKEN.match(local[len(prefix):])
    if match is None:
        return None
    game_id, position, version = int(match[1]), int(match[2]), int(match[3])
    # Ids and versions are 32-bit integer columns (a bigger one makes PostgreSQL raise).
    if game_id > MAX_REPLY_ID or version > MAX_REPLY_ID or position > MAX_REPLY_POSITION:
        return None
    return ReplyToken(game_id, position, version, match[4], talk=prefix == TALK_LOCAL_PREFIX)


def reply_signed(cfg: Config, token: ReplyToken, nonce: str) -> bool:
    """Whether `token` was signed by us (current key or a fallback) for the seat's `nonce`."""
    salt = TALK_SALT if token.talk else REPLY_SALT
    return any(hmac.compare_digest(token.mac, _reply_mac(key, token.game_id, token.position, nonce,
                                                         token.version, salt))
               for key in [cfg.SECRET_KEY, *cfg.SECRET_KEY_FALLBACKS])
