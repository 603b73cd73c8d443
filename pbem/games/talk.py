"""Talk: a player's words to their partner (team games) or to the table (individual games whose
`table_talk` is on). Plain text (HTML stripped), limited in size and rate; a long message and
table talk go out by email at once, a partner's short one waits for the next email they get."""
from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, col, select

from pbem.config import Config
from pbem.games.names import BIDI_CONTROLS
from pbem.letters import replies
from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.models import Game, Seat, SeatKind, TalkMessage
from pbem.games.finish import is_over

MAX_TALK_CHARS = 1000
MAX_TALK_PER_HOUR = 20
LONG_TALK_CHARS = 280  # longer: emailed at once
_TAG = re.compile(r"<[^>]*>")

# Why words were not passed on (`Said.refused`: the msgid; `Said.refused_text`: in words).
NO_TABLE_TALK = lazy("Table talk is off in this game: your words were not passed on.")
TALK_ENDED = lazy("This game is over, and its talk with it: your words were not passed on.")
WRITER_LEFT = lazy("You have left this game: your words were not passed on.")
ONLY_BOTS = lazy("Only bots would read your words, so they were not passed on.")
PARTNER_IS_BOT = lazy("Your partner is a bot: it does not read messages, so your words were not passed on.")
BIDI_IN_TALK = lazy("Your words hold characters that change the direction of the text around them: "
                    "send them again without those characters (these words were not passed on).")
TOO_MUCH_TALK = lazy("You have sent %(count)s messages in the last hour: wait a little "
                     "before the next one (this one was not passed on).")


@dataclass(frozen=True)
class Said:
    """What became of a message: stored for `listeners`, or refused and why."""

    text: str = ""
    listeners: tuple[str, ...] = ()  # their names
    refused: str | None = None
    cut: bool = False  # shortened to MAX_TALK_CHARS
    to_table: bool = False  # table talk (every other player reads it), not a partner's

    @property
    def refused_text(self) -> str:
        """Why the words were not passed on, in the current language ("" if they were)."""
        return _(self.refused, count=MAX_TALK_PER_HOUR) if self.refused else ""


@dataclass(frozen=True)
class TalkLine:
    who: str
    text: str
    at: datetime
    to_team: bool


def clean(text: str) -> str:
    """Plain text: tags out, entities decoded, control characters out, spaces tidied."""
    text = html.unescape(_TAG.sub(" ", text))
    text = "".join(c for c in text if c == "\n" or c >= " ")
    return "\n".join(" ".join(line.split()) for line in text.split("\n")).strip()


def reorders(text: str) -> bool:
    """Does `text` hold a bidirectional control (pbem.games.names.BIDI_CONTROLS)? Talk refuses
    them as names do: they would turn the page or the email around the words, our own included."""
    return BIDI_CONTROLS.search(text) is not None


def _reads_talk(seat: Seat) -> bool:
    """A person who still plays: bots, seats handed to a bot and players who left read nothing."""
    return seat.kind == SeatKind.HUMAN and not seat.handed_to_bot and not seat.left_game


def _audience(game: Game, seats: list[Seat], seat: Seat) -> tuple[int | None, list[Seat]] | None:
    if game.teams:
        return seat.team, [s for s in seats if s.team == seat.team and s.position != seat.position
                           and _reads_talk(s)]
    if game.table_talk:
        return None, [s for s in seats if s.position != seat.position and _reads_talk(s)]
    return None


def refusal(game: Game, seats: list[Seat], seat: Seat) -> str | None:
    """Why `seat` cannot talk in `game` now (a msgid), or None: talk ends with the game and for a
    player who left, is off in an individual game without table talk, and goes to people only."""
    if is_over(game):
        return TALK_ENDED
    if seat.left_game:
        return WRITER_LEFT
    audience = _audience(game, seats, seat)
    if audience is None:
        return NO_TABLE_TALK
    if not audience[1]:
        return PARTNER_IS_BOT if game.teams else ONLY_BOTS
    return None


def say(session: Session, cfg: Config, game: Game, seats: list[Seat], seat: Seat, text: str,
        now: datetime) -> Said:
    """Store `seat`'s words for its partner (or the table) in the caller's transaction."""
    text = clean(text)
    if not text:
        return Said()
    if reorders(text):
        return Said(text=BIDI_CONTROLS.sub("", text), refused=BIDI_IN_TALK)
    refused = refusal(game, seats, seat)
    audience = _audience(game, seats, seat)
    if refused is not None or audience is None:
        return Said(text=text, refused=refused or NO_TABLE_TALK)
    recent = session.exec(select(func.count()).select_from(TalkMessage).where(
        TalkMessage.game_id == game.id, TalkMessage.seat == seat.position,
        col(TalkMessage.created_at) > now - timedelta(hours=1))).one()
    if recent >= MAX_TALK_PER_HOUR:
        return Said(text=text, refused=TOO_MUCH_TALK)
    cut = len(text) > MAX_TALK_CHARS
    if cut:
        text = text[: MAX_TALK_CHARS - 1].rstrip() + "…"
    to_team, listeners = audience
    # Table talk is emailed at once: one delivered_at cannot mark it read by several listeners.
    long = len(text) > LONG_TALK_CHARS or to_team is None
    session.add(TalkMessage(game_id=game.id, seat=seat.position, to_team=to_team, text=text,  # type: ignore[arg-type]  # stored: its id is set
                            created_at=now, delivered_at=now if long else None))
    if long:
        for listener in listeners:
            if not listener.unsubscribed:  # talk emails are news: the game page still shows them
                replies.queue_heard(session, cfg, game, listener, seat.name, text, to_table=to_team is None)
    session.flush()
    return Said(text=text, listeners=tuple(s.name for s in listeners), cut=cut, to_table=to_team is None)


def _readable_by(seat: Seat) -> ColumnElement[bool]:
    return or_(col(TalkMessage.to_team).is_(None), col(TalkMessage.to_team) == seat.team)


def visible(session: Session, game: Game, seats: list[Seat], seat: Seat, limit: int = 200) -> list[TalkLine]:
    """The talk `seat` may read (its team's and the table's), oldest first."""
    names = {s.position: s.name for s in seats}
    rows = session.exec(select(TalkMessage).where(TalkMessage.game_id == game.id, _readable_by(seat))
                        .order_by(col(TalkMessage.id).desc()).limit(limit)).all()
    return [TalkLine(names.get(r.seat, "?"), r.text, r.created_at, r.to_team is not None) for r in reversed(rows)]
