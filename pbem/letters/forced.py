"""What the emails say of the forced turns the service played for a seat ("play my forced moves
for me", `pbem.games.service.forced_move`): the seat's next email lists them
(`partials/played_for_you.*`), each once (after the seat's "since your last turn" mark)."""
from __future__ import annotations

import json
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from engine.view_types import PlayerView
from pbem.present.phrases import describe_move
from pbem.models import Game, MoveRecord

FORCED_SOURCE = "forced"  # MoveRecord.source of a move the service played for its seat

_FORCED_SINCE = (select(MoveRecord).where(
    MoveRecord.game_id == bindparam("game_id"), MoveRecord.seat == bindparam("seat"),
    MoveRecord.number > bindparam("since"), MoveRecord.source == FORCED_SOURCE)
    .order_by(col(MoveRecord.number)))


def played_for_you(session: Session, game: Game, view: PlayerView, since: int) -> list[dict[str, Any]]:
    """The viewer's forced turns played after move `since`: each move's number and the move in
    words as it read when it was played."""
    records = session.exec(_FORCED_SINCE, params={"game_id": game.id, "seat": view["seat"], "since": since})
    return [{"number": r.number, "text": move_as_played(json.loads(r.move_json), json.loads(r.events_json), view)}
            for r in records]


def move_as_played(move: dict[str, Any], events: list[dict[str, Any]], view: PlayerView) -> str:
    """`move` in words, the ship it went to as it was then: the move's own event names the
    ship's owner and gold (the ship may be captured since)."""
    ship = next(({"id": e["ship"], "owner": e.get("owner"), "value": e.get("value")} for e in events
                 if "ship" in e and e.get("ship") == move.get("target")), None)
    return describe_move(move, {**view, "table": [ship]} if ship is not None else view)
