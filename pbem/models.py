"""The stored data: games (with a state snapshot), seats, the move log, and the email outbox.

All datetimes are naive UTC. Deadlines and reminder times live here, not in a scheduler.
"""
from __future__ import annotations

from datetime import datetime, timezone
from enum import StrEnum
from typing import Optional

from pydantic import NaiveDatetime
from sqlalchemy import Column, Index, Text, UniqueConstraint, func
from sqlalchemy import true as sa_true
from sqlmodel import Field, SQLModel, col


def utcnow() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class GameStatus:
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"
    ABORTED = "aborted"
    ALL = (RUNNING, PAUSED, FINISHED, ABORTED)


class OnTimeout(StrEnum):
    """What happens when a player lets the time for a move run out (Game/Proposal.on_timeout;
    worded once: pbem/letters/invitations.py ON_TIMEOUT_WORDS)."""

    AUTOPLAY = "autoplay"
    """A bot plays that one move for them, and the game goes on."""
    PAUSE = "pause"
    """The game pauses until an admin resumes it."""
    BOT = "bot"
    """A bot takes over their seat for the rest of the game."""


# A new game's clock unless its creator chose otherwise (pbem/games/settings.py GameSettings).
DEFAULT_DEADLINE_HOURS = 72.0
DEFAULT_REMINDERS = "50,85"  # percent of the deadline


class Game(SQLModel, table=True):
    __table_args__ = (
        Index("ix_game_status_deadline", "status", "deadline_at"),
        Index("ix_game_status_reminder", "status", "next_reminder_at"),
        Index("ix_game_status_bot_due", "status", "bot_due_at"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    name: str = Field(default="", max_length=200)
    status: str = Field(default=GameStatus.RUNNING, max_length=16)  # led by the ix_game_status_* indexes
    teams: bool = False
    options_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    seed: Optional[int] = None
    deck_json: str = Field(sa_column=Column(Text, nullable=False))
    # The engine's state as JSON: a move never replays the whole log.
    state_json: str = Field(sa_column=Column(Text, nullable=False))
    # Number of moves applied; also the optimistic lock of the row.
    version: int = 0
    to_move: Optional[int] = None
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    updated_at: NaiveDatetime = Field(default_factory=utcnow)
    finished_at: Optional[NaiveDatetime] = None
    turn_started_at: Optional[NaiveDatetime] = None
    # Root Message-ID of the game's email thread.
    thread_id: str = Field(default="", max_length=255)

    # Clocks (see pbem/games/clocks): all UTC, all found by indexed queries.
    deadline_hours: float = DEFAULT_DEADLINE_HOURS
    reminders: str = Field(default=DEFAULT_REMINDERS, max_length=100)  # percent of the deadline
    on_timeout: str = Field(default=OnTimeout.AUTOPLAY, max_length=16)  # an OnTimeout
    deadline_at: Optional[NaiveDatetime] = None
    next_reminder_at: Optional[NaiveDatetime] = None
    reminders_sent: int = 0
    bot_due_at: Optional[NaiveDatetime] = None
    paused_at: Optional[NaiveDatetime] = None
    # Individual games: may a player's words in a reply reach the whole table (pbem/inbound)?
    table_talk: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


class SeatKind:
    HUMAN = "human"
    BOT = "bot"


class Seat(SQLModel, table=True):
    __table_args__ = (UniqueConstraint("game_id", "position", name="uq_seat_game_position"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found through uq_seat_game_position
    position: int
    name: str = Field(max_length=100)
    email: Optional[str] = Field(default=None, max_length=254)
    kind: str = Field(default=SeatKind.HUMAN, max_length=8)  # human | bot
    bot: Optional[str] = Field(default=None, max_length=16)  # engine bot name when kind == bot
    # A human seat handed to a bot (timeout policy "bot" or an admin) keeps its email.
    handed_to_bot: bool = False
    team: Optional[int] = None
    # Changing it invalidates every link issued to this seat (e.g. new email address).
    link_nonce: str = Field(default="", max_length=32)
    timezone: str = Field(default="UTC", max_length=64)
    # Move count of the game when this seat was last sent a turn email ("since your last turn").
    last_seen_version: int = 0
    unsubscribed: bool = False  # reminders and event emails off (turn emails always go)
    digest: bool = False  # daily digest instead of per-event emails
    vacation_start: Optional[NaiveDatetime] = None
    vacation_end: Optional[NaiveDatetime] = None
    vacation_days_used: float = 0.0
    timeouts: int = 0
    # "Play my forced moves for me": a turn with one legal move (a draw, mostly) is played at
    # once by the service, and the seat's next email says so (pbem/games/service.py).
    play_forced: bool = Field(default=True, sa_column_kwargs={"server_default": sa_true()})
    # What the player reads, emails and pages (pbem/i18n.py LANGUAGES: en | fr | vi).
    language: str = Field(default="en", max_length=8, sa_column_kwargs={"server_default": "en"})
    # The player left the game (resigned from the seat page): a bot plays the seat and the
    # address gets no more mail about this game (pbem/games/lifecycle.py leave_game).
    left_game: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})


class MoveRecord(SQLModel, table=True):
    __tablename__ = "move"
    __table_args__ = (UniqueConstraint("game_id", "number", name="uq_move_game_number"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found through uq_move_game_number
    number: int  # 1-based; the game's version after this move
    seat: int
    move_json: str = Field(sa_column=Column(Text, nullable=False))
    # The engine's public events of this move (captures, game over), as JSON.
    events_json: str = Field(default="[]", sa_column=Column(Text, nullable=False))
    source: str = Field(default="player", max_length=16)  # player | bot | timeout | forced | admin
    created_at: NaiveDatetime = Field(default_factory=utcnow)


class OutboxStatus:
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"
    # Never sent on purpose (last_error says why): a reminder whose turn was over at delivery.
    CANCELLED = "cancelled"


class OutboxMessage(SQLModel, table=True):
    """One email to one recipient, written in the same transaction as its cause."""

    __tablename__ = "outbox"
    __table_args__ = (Index("ix_outbox_status_next", "status", "next_attempt_at"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: Optional[int] = Field(default=None, foreign_key="game.id")  # ix_outbox_game_created
    seat_id: Optional[int] = Field(default=None, foreign_key="seat.id")
    kind: str = Field(max_length=32)  # welcome | turn | reminder | game_over | ...
    to_addr: str = Field(max_length=254)
    subject: str = Field(max_length=300)
    text_body: str = Field(sa_column=Column(Text, nullable=False))
    html_body: str = Field(sa_column=Column(Text, nullable=False))
    message_id: str = Field(max_length=255, unique=True)
    in_reply_to: Optional[str] = Field(default=None, max_length=255)
    references: Optional[str] = Field(default=None, sa_column=Column(Text))
    # Extra headers (List-Unsubscribe, ...) as a JSON object.
    headers_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    # An email written by the worker just before it is sent: the name of its writer
    # (pbem.mail.writers), NULL for a finished email; `params_json` is what that writer needs
    # (a JSON object). The text body meanwhile is only what the admin outbox page shows.
    deferred: Optional[str] = Field(default=None, max_length=32)
    params_json: Optional[str] = Field(default=None, sa_column=Column(Text))
    status: str = Field(default=OutboxStatus.PENDING, max_length=16)
    attempts: int = 0
    next_attempt_at: NaiveDatetime = Field(default_factory=utcnow)
    # Lease of the worker that is sending it (crash-safe claiming).
    claimed_by: Optional[str] = Field(default=None, max_length=64)
    claimed_until: Optional[NaiveDatetime] = None
    last_error: Optional[str] = Field(default=None, sa_column=Column(Text))
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    sent_at: Optional[NaiveDatetime] = None


# ---------------------------------------------------------------- admin dashboard (pbem/auth.py)
class AdminUser(SQLModel, table=True):
    __tablename__ = "admin_user"

    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = Field(max_length=254, unique=True)  # stored lower-case
    password_hash: str = Field(max_length=255)  # argon2id, see pbem/auth.py
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    last_login_at: Optional[NaiveDatetime] = None
    # Stored in the session cookie at login; a session of another generation is refused, so
    # incrementing it (logout, a new password) ends every session of this admin (pbem/auth.py).
    session_generation: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class AuditLog(SQLModel, table=True):
    """One admin action, written in the same transaction as the action itself."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_game_created", "game_id", "created_at"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    created_at: NaiveDatetime = Field(default_factory=utcnow, index=True)
    actor: str = Field(max_length=254)  # admin email, or "cli"
    action: str = Field(max_length=64)
    game_id: Optional[int] = Field(default=None, foreign_key="game.id")
    detail: str = Field(default="", sa_column=Column(Text, nullable=False))


class LoginAttempt(SQLModel, table=True):
    """Admin login attempts, counted per email and per IP to rate-limit across processes."""

    __tablename__ = "login_attempt"
    __table_args__ = (
        Index("ix_login_attempt_email_created", "email", "created_at"),
        Index("ix_login_attempt_ip_created", "ip", "created_at"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    email: str = Field(max_length=254)
    ip: str = Field(max_length=64)
    success: bool = False
    created_at: NaiveDatetime = Field(default_factory=utcnow)


# Sort keys of the admin games list (status filter + order by, served by an index).
Index("ix_game_status_created", col(Game.status), col(Game.created_at))
Index("ix_game_status_updated", col(Game.status), col(Game.updated_at))
Index("ix_game_created", col(Game.created_at))
Index("ix_game_updated", col(Game.updated_at))
Index("ix_game_deadline", col(Game.deadline_at))
Index("ix_game_turn_started", col(Game.turn_started_at))
Index("ix_outbox_game_created", col(OutboxMessage.game_id), col(OutboxMessage.created_at))
Index("ix_outbox_sent_at", col(OutboxMessage.sent_at))
# An address's seats in every game, whatever case it was typed in ("my games", leaving them all).
Index("ix_seat_email_lower", func.lower(col(Seat.email)))
Index("ix_outbox_to_addr_lower", func.lower(col(OutboxMessage.to_addr)))  # a bounce without a token


# ---------------------------------------------------------------- clocks: event notices (pbem/games/notices.py)
class NoticeStatus:
    PENDING = "pending"
    SENT = "sent"
    DROPPED = "dropped"  # the player unsubscribed before it went out


class Notice(SQLModel, table=True):
    """One event worth telling a player ("your ship was attacked", table news), waiting to be
    batched into one email (at most one attack email per seat per hour) or the daily digest."""

    __tablename__ = "notice"
    __table_args__ = (
        Index("ix_notice_status_due", "status", "due_at"),
        Index("ix_notice_seat_kind_sent", "seat_id", "kind", "sent_at"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat_id: int = Field(foreign_key="seat.id")
    kind: str = Field(max_length=16)  # attacked | news
    text: str = Field(sa_column=Column(Text, nullable=False))  # public information only
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    due_at: NaiveDatetime = Field(default_factory=utcnow)
    status: str = Field(default="pending", max_length=16)
    sent_at: Optional[NaiveDatetime] = None


# ---------------------------------------------------------------- replies by email (pbem/inbound)
class InboundMail(SQLModel, table=True):
    """One email received (SMTP or IMAP): its Message-ID once (a second delivery acts not), and
    its sender, counted to rate-limit floods across processes."""

    __tablename__ = "inbound_mail"
    __table_args__ = (Index("ix_inbound_mail_from_received", "from_addr", "received_at"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=255, unique=True)
    from_addr: str = Field(max_length=254)  # normalised: lower-case address
    game_id: Optional[int] = Field(default=None, foreign_key="game.id")
    outcome: str = Field(default="", max_length=32)  # played | refused | ignored: <why> ...
    received_at: NaiveDatetime = Field(default_factory=utcnow)


class TalkMessage(SQLModel, table=True):
    """A player's words to their partner (team games) or to the table (when the game allows it).
    Plain text, HTML stripped; `delivered_at` is set once it went out by email."""

    __tablename__ = "talk"
    __table_args__ = (Index("ix_talk_game_created", "game_id", "created_at"),)

    id: Optional[int] = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    seat: int  # the speaker's position
    to_team: Optional[int] = None  # the team that may read it; None: the whole table
    text: str = Field(sa_column=Column(Text, nullable=False))
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    delivered_at: Optional[NaiveDatetime] = None


# ---------------------------------------------------------------- languages (pbem/i18n.py)
class AddressPreference(SQLModel, table=True):
    """What an address chose, for all its games: its language (the last seat's), and from its
    "my games" page its time zone, reminders, digest and forced-move autoplay (None: not chosen,
    a new seat takes the defaults). The next game it joins starts with them."""

    __tablename__ = "address_preference"

    email: str = Field(primary_key=True, max_length=254)  # normalised: lower-case address
    language: str = Field(default="en", max_length=8)
    updated_at: NaiveDatetime = Field(default_factory=utcnow)
    timezone: Optional[str] = Field(default=None, max_length=64)
    reminders: Optional[bool] = None
    digest: Optional[bool] = None
    play_forced: Optional[bool] = None


# ---------------------------------------------------------------- self-service games (pbem/games/invitations.py)
class ProposalStatus:
    UNCONFIRMED = "unconfirmed"  # waiting for the creator's confirmation link (24 hours)
    INVITING = "inviting"  # invitations out; starts when every human has accepted
    STARTED = "started"  # game_id is the game
    CANCELLED = "cancelled"  # by its creator
    EXPIRED = "expired"  # never confirmed
    OPEN = (UNCONFIRMED, INVITING)


class Proposal(SQLModel, table=True):
    """A game a player set up at /new (or a rematch): its setup until every invited human has
    accepted, then the game it became. Nobody but the creator is mailed before confirmation."""

    __tablename__ = "proposal"
    __table_args__ = (
        Index("ix_proposal_status_confirm_by", "status", "confirm_by"),
        Index("ix_proposal_creator_email", "creator_email"),
        UniqueConstraint("form_key", name="uq_proposal_form_key"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    status: str = Field(default=ProposalStatus.UNCONFIRMED, max_length=16)
    creator_email: str = Field(max_length=254)  # normalised: lower-case address
    creator_position: int = 0  # the creator's seat (a rematch keeps the seats' order)
    # Binds the creator's links (confirm, manage); a new one retires them.
    nonce: str = Field(max_length=32)
    language: str = Field(default="en", max_length=8)  # the creator's
    name: str = Field(default="", max_length=200)
    teams: bool = False
    options_json: str = Field(default="{}", sa_column=Column(Text, nullable=False))
    deadline_hours: float = DEFAULT_DEADLINE_HOURS
    reminders: str = Field(default=DEFAULT_REMINDERS, max_length=100)
    on_timeout: str = Field(default=OnTimeout.AUTOPLAY, max_length=16)  # an OnTimeout
    table_talk: bool = False
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    confirm_by: NaiveDatetime  # the confirmation link's expiry
    confirmed_at: Optional[NaiveDatetime] = None
    updated_at: NaiveDatetime = Field(default_factory=utcnow)
    game_id: Optional[int] = Field(default=None, foreign_key="game.id")
    rematch_of: Optional[int] = Field(default=None, foreign_key="game.id")
    # One proposal per /new form, however many times and however fast it is sent: a digest of
    # the form's nonce, its creator and its content (pbem/games/proposals.py form_key). NULL
    # for rematches and admins' games.
    form_key: Optional[str] = Field(default=None, max_length=64)


class InvitationStatus:
    WAITING = "waiting"  # the proposal is not confirmed yet: nothing sent
    INVITED = "invited"  # the invitation email is queued or sent
    ACCEPTED = "accepted"  # the creator's own seat and bots are accepted from the start
    DECLINED = "declined"
    EXPIRED = "expired"  # not answered in INVITATION_DAYS
    OPEN = (WAITING, INVITED)


class Invitation(SQLModel, table=True):
    """One seat of a proposal: the creator, a bot, or an invited human and their answer."""

    __tablename__ = "invitation"
    __table_args__ = (
        UniqueConstraint("proposal_id", "position", name="uq_invitation_proposal_position"),
        Index("ix_invitation_status_expires", "status", "expires_at"),
        Index("ix_invitation_email_created", "email", "created_at"),
    )

    id: Optional[int] = Field(default=None, primary_key=True)
    proposal_id: int = Field(foreign_key="proposal.id")
    position: int
    name: str = Field(max_length=100)
    email: Optional[str] = Field(default=None, max_length=254)  # normalised; None for a bot
    kind: str = Field(default=SeatKind.HUMAN, max_length=8)  # human | bot
    bot: Optional[str] = Field(default=None, max_length=16)
    status: str = Field(default=InvitationStatus.WAITING, max_length=16)
    # Binds this invitation's links; replacing the invitee retires the old ones.
    nonce: str = Field(max_length=32)
    language: str = Field(default="en", max_length=8)
    # Somebody chose `language` for this invitee (the creator's `[fr]`, the address's remembered
    # choice, a rematch's seat); False: it is the creator's, a guess, and the invitation page
    # speaks the browser's language (the one the invitee reads it in is kept when they accept).
    language_chosen: bool = Field(default=True, sa_column_kwargs={"server_default": sa_true()})
    created_at: NaiveDatetime = Field(default_factory=utcnow)
    invited_at: Optional[NaiveDatetime] = None
    expires_at: Optional[NaiveDatetime] = None
    answered_at: Optional[NaiveDatetime] = None
    # The creator typed this address (the /new form, a replacement, an admin's form): the only
    # addresses the creator's pages show back. A rematch's are not (names stand for people).
    creator_typed: bool = Field(default=True, sa_column_kwargs={"server_default": sa_true()})


class Suppression(SQLModel, table=True):
    """An address that asked never to be emailed again: no path queues mail to it, and the
    worker cancels anything queued before (pbem/mail/outbox.py, pbem/mail/delivery.py)."""

    __tablename__ = "suppression"

    email: str = Field(primary_key=True, max_length=254)  # normalised: lower-case address
    # The mailbox (pbem.addresses.canonical_key: no +tag, no Gmail dots): what the never-list
    # compares, so hal+korsar@ is refused once hal@ said never (pbem/mail/suppression.py add).
    key: str = Field(max_length=254, index=True)
    created_at: NaiveDatetime = Field(default_factory=utcnow)


class RateEvent(SQLModel, table=True):
    """One counted action (a game started, an invitation, a link requested), by kind and key
    (an address or an IP), so the limits hold across processes (pbem/games/limits.py)."""

    __tablename__ = "rate_event"
    __table_args__ = (Index("ix_rate_event_kind_key_created", "kind", "key", "created_at"),
                      Index("ix_rate_event_created", "created_at"))  # the sweep forgets old ones

    id: Optional[int] = Field(default=None, primary_key=True)
    kind: str = Field(max_length=32)
    key: str = Field(max_length=254)
    created_at: NaiveDatetime = Field(default_factory=utcnow)


class AddressStanding(SQLModel, table=True):
    """What one mailbox (`pbem.addresses.canonical_key`) has told us about mail it did not ask
    for itself (pbem/games/unasked_mail.py): it answered once (confirmed a game or accepted an
    invitation: its daily budget of such mail grows), or "I did not ask for this" (nobody's
    request mails it any more; its games go on)."""

    __tablename__ = "address_standing"

    key: str = Field(primary_key=True, max_length=254)
    answered_at: Optional[NaiveDatetime] = None
    blocked_at: Optional[NaiveDatetime] = None
