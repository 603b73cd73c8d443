"""The emails a game causes, queued in the caller's transaction (never sent from here).

One small function per kind of email builds its context and renders it through
`pbem/mail/render.py`. `seat_context` is the shared part (hand, table, piles, move links,
what happened since the seat's last turn) other kinds (reminders, digests) reuse.
Bot seats and seats without an address get no email.
"""
from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import engine
from engine.view_types import PlayerView
from sqlalchemy import bindparam, func, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, col, select

from pbem import links
import pbem.i18n as i18n
from pbem.schedule import local_time_text
from pbem.letters.send import build, queue, wants_mail
from pbem.letters.analysis import analysis_notice
from pbem.letters.unsubscribe import unsubscribe_url
from pbem.config import Config
from pbem.db import write
from pbem.present.board import board
from pbem.present.final import final_result
from pbem.present.names import named_view, reader_names
from pbem.present.phrases import event_sentences, present_moves
from pbem.present.ratings import change_lines
from pbem.models_ratings import changes_of_game
from pbem.letters.forced import played_for_you
from pbem.letters.heard import take_unread
from pbem.store import load_state
from pbem.mail.outbox import Email, OutboxRow
from pbem.models import Game, GameStatus, MoveRecord, OutboxMessage, Seat, utcnow


def reply_to(cfg: Config, game: Game, seat: Seat) -> str:
    """The signed address a reply to an email about the game as it is now goes to (pbem/inbound)."""
    return links.reply_address(cfg, game.id, seat.position, seat.link_nonce, game.version)  # type: ignore[arg-type]  # stored: its id is set


def talk_reply_to(cfg: Config, game: Game, seat: Seat) -> str:
    """The signed address a reply to a talk email goes to: its words are passed on (pbem/inbound)."""
    return links.talk_address(cfg, game.id, seat.position, seat.link_nonce, game.version)  # type: ignore[arg-type]  # stored: its id is set


def seat_page_url(cfg: Config, seat: Seat) -> str:
    """The seat's private game page, signed for its current link nonce."""
    return links.seat_url(cfg, links.sign_seat(cfg, seat.game_id, seat.position, seat.link_nonce))


def move_links(cfg: Config, game: Game, seat: Seat, view: PlayerView) -> list[dict[str, Any]]:
    """One signed link per legal move of the seat: the presenter's move (`number`, `text`,
    `outcome`, `move`, pbem/present/phrases.py) with its `url` and `token`."""
    out = []
    for mv in present_moves(view):
        token = links.sign_move(cfg, game.id, seat.position, seat.link_nonce,  # type: ignore[arg-type]  # stored: its id is set
                                view["version"], mv["move"])
        out.append({**mv, "url": links.move_url(cfg, token), "token": token})
    return out


def move_events(session: Session, game: Game) -> list[list[dict[str, Any]]]:
    """The stored events of every move, oldest first."""
    records = session.exec(select(MoveRecord.events_json).where(
        MoveRecord.game_id == game.id).order_by(col(MoveRecord.number)))
    return [json.loads(events or "[]") for events in records]


def history(moves: list[list[dict[str, Any]]], view: PlayerView, since: int, *,
            with_end: bool = True) -> list[str]:
    """What happened after move `since`, in sentences addressed to the viewer (the words of a
    capture depend on the whole game, `moves`: was the ship fought over?). `with_end=False`
    leaves out the game-over sentence (the game-over email gives the scores once, in its table)."""
    if not with_end:
        moves = [[e for e in events if e.get("kind") != "game_over"] for events in moves]
    sentences = event_sentences(moves, view["players"], view["seat"])
    return [line for move in sentences[since:] for line in move]


# "Since your last turn" shows the newest lines only: a game that ended on a run of forced draws
# (or a long absence) would otherwise fill a phone screen many times over.
SINCE_SHOWN = 20


def game_seats(session: Session, game: Game) -> list[Seat]:
    """The seats of `game` in position order."""
    return list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.position))).all())


def seat_context(session: Session, cfg: Config, game: Game, seat: Seat, state: engine.GameState,
                 *, since: int | None = None, with_moves: bool = True,
                 seats: list[Seat] | None = None, with_end: bool = True) -> dict[str, Any]:
    """Everything the emails about one seat show: board, move links, news since `since`, the
    forced turns played for the seat meanwhile (`partials/played_for_you.*`). `seats`: the
    game's (read if not given), whose names the reader reads (pbem/present/names.py)."""
    view = named_view(engine.player_view(state, seat.position), seats or game_seats(session, game))
    mark = seat.last_seen_version if since is None else since
    game_url = seat_page_url(cfg, seat)
    moves = move_events(session, game)
    since_lines = history(moves, view, mark, with_end=with_end)
    return {
        "played_for_you": played_for_you(session, game, view, mark),
        "prefs_url": f"{game_url}/prefs",  # where "play my forced moves for me" is switched
        "game": {"id": game.id, "name": game.name, "teams": game.teams},
        "board": board(view),
        "moves": move_links(cfg, game, seat, view) if with_moves else [],
        "since": since_lines[-SINCE_SHOWN:],
        "since_earlier": max(0, len(since_lines) - SINCE_SHOWN),  # the game page shows them all
        "game_url": game_url,
        "deadline_at": game.deadline_at,
        "deadline_local": local_time_text(game.deadline_at, seat) if game.deadline_at else None,
        # Every email to a player says how to stop it (templates' footer, base.txt/base.html).
        "unsubscribe_url": unsubscribe_url(cfg, seat),
        "rules_url": links.rules_url(cfg),  # the rules page (pbem/web/rules.py)
        "final": final_result(view, moves) if view["finished"] else None,
    }


@i18n.speaking_to("seat")
def queue_welcome(session: Session, cfg: Config, game: Game, seat: Seat, state: engine.GameState,
                  *, first: bool = False) -> OutboxRow | None:
    context = seat_context(session, cfg, game, seat, state, with_moves=False)
    return queue(session, cfg, "welcome", seat, context, game=game, first=first)


def queue_turn_email(session: Session, cfg: Config, game: Game, seat: Seat,
                     state: engine.GameState, *, now: datetime | None = None) -> OutboxRow | None:
    """The "your turn" email, queued to be written at delivery (`DEFERRED_TURN_TEXT`, see
    `deferred_turn_email`, which moves the seat's "since your last turn" mark)."""
    if seat.handed_to_bot or not wants_mail(seat):
        return None
    return _queue_deferred_turn(session, cfg, game, seat, state, now=now)


# ---------------------------------------------------------------- turn emails, written at delivery
# The text of a turn email not written yet (what the admin outbox page shows for it).
DEFERRED_TURN_TEXT = ("This turn email is written from the game as it stands just before it is "
                      "sent: the player's hand, the table and fresh move links.")


_SEATS = Seat.__table__  # type: ignore[attr-defined]  # SQLModel declares no __table__
# The seat's "since your last turn" mark moves when a turn email is written to be sent, never
# back (a resend of an older turn), and not when one is cancelled: its news were never read.
_MARK_SEEN = (update(_SEATS).where(_SEATS.c.id == bindparam("b_id"),
                                   _SEATS.c.last_seen_version < bindparam("b_version"))
              .values(last_seen_version=bindparam("b_version")))


def _queue_deferred_turn(session: Session, cfg: Config, game: Game, seat: Seat,
                         state: engine.GameState, *, now: datetime | None = None) -> OutboxRow | None:
    since = seat.last_seen_version
    if since >= state.version:  # this turn's email again (a resend): it keeps that turn's news
        since = _before_own_last_move(session, game, seat, state.version)
    return queue(session, cfg, "turn", seat, {"game": {"name": game.name}, "board": {"you": seat.name}},
                 game=game, write_at_delivery=DEFERRED_TURN_TEXT,
                 params={"version": state.version, "since": since}, now=now)


def _before_own_last_move(session: Session, game: Game, seat: Seat, version: int) -> int:
    """The "since" mark of a turn the seat was told of already: its news start just before the
    seat's own last move (what happened since the player last played, that move included), as
    in the turn email first written for it."""
    last = session.exec(select(func.max(MoveRecord.number)).where(
        MoveRecord.game_id == game.id, MoveRecord.seat == seat.position,
        MoveRecord.number <= version)).one()
    return max(0, (last or 1) - 1)


def turn_mark(params: dict[str, Any]) -> tuple[int, int] | None:
    """(version the turn email is for, "since" mark) of a turn email not written yet."""
    try:
        return int(params["version"]), int(params["since"])
    except (KeyError, ValueError, TypeError):
        return None


def turn_stale_reason(game: Game | None, seat: Seat | None, row: OutboxMessage,
                      params: dict[str, Any]) -> str | None:
    """Why a queued turn email must not go out any more (its turn is over), or None."""
    mark = turn_mark(params)
    if mark is None:
        return "the turn email lost its turn mark"
    if game is None or seat is None or game.status != GameStatus.RUNNING:
        return "the game is no longer running"
    if game.version != mark[0] or game.to_move != seat.position:
        return "the turn was over before the turn email went out"
    if (seat.email or "").lower() != row.to_addr.lower():
        return "the player's email address changed"
    if seat.handed_to_bot or not wants_mail(seat):
        return "the bot plays this seat now"
    return None


@i18n.speaking_to("seat")
def deferred_turn_email(session: Session, cfg: Config, game: Game, seat: Seat,
                        params: dict[str, Any]) -> Email:
    """The full turn email from the game as it is now (fresh links; news since the mark). The
    seat's mark moves to this turn: the next turn email's news start here."""
    mark = turn_mark(params)
    assert mark is not None
    state = load_state(game)
    seats = game_seats(session, game)
    context = seat_context(session, cfg, game, seat, state, since=mark[1], seats=seats)
    context["heard"] = take_unread(session, game, seats, seat, utcnow())
    email = build(cfg, "turn", seat, context, headers={"Reply-To": reply_to(cfg, game, seat)})
    write(session, _MARK_SEEN, {"b_id": seat.id, "b_version": mark[0]})
    set_committed_value(seat, "last_seen_version", max(seat.last_seen_version, mark[0]))
    return email


def queue_game_start(session: Session, cfg: Config, game: Game, seats: list[Seat],
                     state: engine.GameState, *, turn_email: bool = True) -> None:
    """Welcome every human; the first welcome opens the thread; then the first turn email
    (`turn_email=False`: that turn is forced and played for its seat at once)."""
    first = True
    for seat in seats:
        if queue_welcome(session, cfg, game, seat, state, first=first) is not None:
            first = False
    if state.to_move is not None and turn_email:
        queue_turn_email(session, cfg, game, seats[state.to_move], state)


# The text of a game-over email not written yet (what the admin outbox page shows for it).
DEFERRED_GAME_OVER_TEXT = ("This email is written just before it is sent: the final scores and "
                           "the winners, from the finished game.")


def queue_game_over(session: Session, cfg: Config, game: Game, seats: list[Seat],
                    state: engine.GameState) -> None:
    """Final scores and winners to every player with an address, written at delivery
    (`game_over_email`): the last move costs what any move costs."""
    for seat in seats:
        if wants_mail(seat):
            queue(session, cfg, "game_over", seat, {"game": {"name": game.name}}, game=game,
                  write_at_delivery=DEFERRED_GAME_OVER_TEXT)


def address_stale_reason(seat: Seat | None, row: OutboxMessage) -> str | None:
    """Why a queued timeout or game-over email must not go out any more, or None: its seat is
    gone or moved to another address (a fresh game link must never reach the old one)."""
    if seat is None:
        return "the seat no longer exists"
    if (seat.email or "").lower() != row.to_addr.lower():
        return "the player's email address changed"
    return None


@i18n.speaking_to("seat")
def game_over_email(session: Session, cfg: Config, game: Game, seat: Seat) -> Email:
    """The full game-over email, from the finished game."""
    state = load_state(game)
    context = seat_context(session, cfg, game, seat, state, with_moves=False, with_end=False)
    # "Play again with the same players": the seat's rematch page (a GET that only asks).
    context["rematch_url"] = f"{seat_page_url(cfg, seat)}/rematch"
    context["analysis"] = analysis_notice(session, cfg, game, seat)  # when it is ready, its link
    context["rating_changes"] = change_lines(changes_of_game(session, game.id or 0),  # partials/rating_changes.*
                                             dict(enumerate(reader_names(game_seats(session, game)))),
                                             you=seat.position)
    return build(cfg, "game_over", seat, context)
