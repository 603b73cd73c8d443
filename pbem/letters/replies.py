"""The answers to a reply by email ("played: ...", "not played: why", "the game moved on",
the game is over or paused), and words passed to a partner at once. Queued in the caller's
transaction, to the seat's own address only, each with a fresh signed Reply-To."""
from __future__ import annotations

from typing import Any

import engine
from sqlmodel import Session

from pbem import links
import pbem.i18n as i18n
from pbem.config import Config
from pbem.letters import notify
from pbem.letters.send import queue
from pbem.letters.unsubscribe import unsubscribe_url
from pbem.mail.outbox import OutboxRow
from pbem.models import Game, GameStatus, Seat
from pbem.refusals import Refusal

PLAYED, REFUSED, TALK = "reply_played", "reply_refused", "talk_heard"


@i18n.speaking_to("seat")
def queue_answer(session: Session, cfg: Config, game: Game, seat: Seat, state: engine.GameState, *,
                 played: str | None = None, reason: str | Refusal | None = None, happened: list[str] | None = None,
                 since: int | None = None, notes: list[str] | None = None,
                 heard: list[dict[str, str]] | None = None) -> OutboxRow | None:
    """Answer `seat`'s reply: `played` (the move in words) or `reason` it was not played (a
    refusal worded here, in the seat's language); the seat's board now and its moves numbered
    again when it is to move."""
    if isinstance(reason, Refusal):
        reason = reason.text()
    playable = (game.status == GameStatus.RUNNING and state.to_move == seat.position
                and not seat.handed_to_bot)
    context: dict[str, Any] = notify.seat_context(session, cfg, game, seat, state,
                                                  since=state.version if since is None else since,
                                                  with_moves=playable)
    context.update(played=played, reason=reason, happened=happened or [], notes=notes or [],
                   heard=heard or [], status=game.status)
    headers = {"Reply-To": notify.reply_to(cfg, game, seat)}  # queue adds List-Unsubscribe
    return queue(session, cfg, PLAYED if played else REFUSED, seat, context, game=game, headers=headers)


@i18n.speaking_to("listener")
def queue_heard(session: Session, cfg: Config, game: Game, listener: Seat, speaker: str,
                text: str, *, to_table: bool = False) -> OutboxRow | None:
    """The words of `speaker` to `listener` at once: table talk, or a partner's long message
    (short ones wait for the next email). A reply to it is talk (its Reply-To is a talk address)."""
    context: dict[str, Any] = {
        "game": {"id": game.id, "name": game.name, "teams": game.teams},
        "board": {"you": listener.name}, "speaker": speaker, "text": text, "to_table": to_table,
        "game_url": notify.seat_page_url(cfg, listener), "rules_url": links.rules_url(cfg),
        "unsubscribe_url": unsubscribe_url(cfg, listener),
    }
    headers = {"Reply-To": notify.talk_reply_to(cfg, game, listener)}
    return queue(session, cfg, TALK, listener, context, game=game, headers=headers)
