"""A partner's short words not emailed yet (pbem/games/talk.py keeps them): the next email the
seat gets carries them (`heard` in partials/reply_notes.*), each once."""
from __future__ import annotations

from datetime import datetime

from sqlmodel import Session, col, select

from pbem.models import Game, Seat, TalkMessage


def take_unread(session: Session, game: Game, seats: list[Seat], seat: Seat, now: datetime) -> list[dict[str, str]]:
    """The partner's short messages not emailed yet, for the email `seat` gets now, marked as
    emailed in the caller's transaction (so a retried delivery shows them again)."""
    if not game.teams:
        return []
    names = {s.position: s.name for s in seats}
    rows = session.exec(select(TalkMessage).where(
        TalkMessage.game_id == game.id, TalkMessage.to_team == seat.team, TalkMessage.seat != seat.position,
        col(TalkMessage.delivered_at).is_(None)).order_by(col(TalkMessage.id))).all()
    for row in rows:
        row.delivered_at = now
        session.add(row)
    return [{"who": names.get(r.seat, "?"), "text": r.text} for r in rows]
