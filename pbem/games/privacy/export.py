""""Download my data": everything held about an address as plain JSON data, its games as its
seat saw them (its own hand and its partner's while a game runs, the whole record once over),
other players by name only."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, false, or_
from sqlmodel import Session, col, select

import engine
from pbem.games.finish import is_over
from pbem.games.records import export_record, moves_of
from pbem.games.unasked_mail import pair_key
from pbem.mail import suppression
from pbem.models import (AddressStanding, Game, GameStatus, Notice, Proposal, RateEvent, Seat, TalkMessage, utcnow)
from pbem.models_analysis import AnalysisPreference
from pbem.models_mail import Bounce
from pbem.models_ratings import LeaderboardEntry, Rating, RatingChange
from pbem.present.board import move_log
from pbem.present.names import reader_names
from pbem.store import load_state

from pbem.games.privacy.held import audit_rows, held, invitations_of, is_creator, rows_of

FORMAT_VERSION = 1

def _when(value: datetime | None) -> str | None:
    return value.isoformat(timespec="seconds") + "Z" if value is not None else None


def _seat_json(seat: Seat) -> dict[str, Any]:
    return {"position": seat.position + 1, "name": seat.name, "team": seat.team, "language": seat.language,
            "timezone": seat.timezone, "unsubscribed": seat.unsubscribed, "digest": seat.digest,
            "play_forced": seat.play_forced, "vacation_start": _when(seat.vacation_start),
            "vacation_end": _when(seat.vacation_end), "vacation_days_used": seat.vacation_days_used,
            "timeouts": seat.timeouts, "handed_to_bot": seat.handed_to_bot, "left_game": seat.left_game}


def _game_json(session: Session, seat: Seat, game: Game, table: list[Seat]) -> dict[str, Any]:
    """One game as `seat` could see it: its own view while it runs (its partner's hand in team
    play, never another side's), the whole record once it is over. Players by name only."""
    assert game.id is not None
    state = load_state(game)
    view = engine.player_view(state, seat.position)
    records = moves_of(session, game.id)
    names = reader_names(table)
    over = is_over(game)
    entry: dict[str, Any] = {
        "game": game.id, "name": game.name, "status": game.status, "teams": game.teams,
        "created_at": _when(game.created_at), "finished_at": _when(game.finished_at),
        "players": names, "your_seat": _seat_json(seat),
        "moves": [{"number": m["number"], "player": m["who"], "source": m["source"], "at": _when(m["at"]),
                   "said": m["sentences"]} for m in move_log(records, view)],
        "winners": ([names[s] for s in engine.winners(state)] if not game.teams else
                    [[names[s] for s in range(len(names)) if s // 2 == team] for team in engine.winners(state)])
        if game.status == GameStatus.FINISHED else [],
    }
    if over:
        record = export_record(session, game.id)
        record["players"] = names
        entry["record"] = record
        entry["view"] = None
    else:
        entry["record"] = None
        entry["view"] = {k: view[k] for k in ("hand", "partner", "partner_hand", "hand_sizes", "draw_pile",
                                              "table", "score_piles", "scores", "team_scores", "to_move",
                                              "version")}
    return entry


def export_address(session: Session, email: str, *, now: datetime | None = None) -> dict[str, Any]:
    """Everything held about the address `email`, as plain JSON data (reads only)."""
    found = held(session, email)
    key = found.key
    seat_ids = [s.id for s, _g in found.seats]
    tables: dict[int, list[Seat]] = {}
    for other in session.exec(select(Seat).where(col(Seat.game_id).in_({s.game_id for s, _g in found.seats}))
                              .order_by(col(Seat.game_id), col(Seat.position))):
        tables.setdefault(other.game_id, []).append(other)
    talk_rows = session.exec(select(TalkMessage).where(
        or_(false(), *[and_(col(TalkMessage.game_id) == s.game_id, col(TalkMessage.seat) == s.position)
                       for s, _g in found.seats])).order_by(col(TalkMessage.id))).all()
    notices = session.exec(select(Notice).where(col(Notice.seat_id).in_(seat_ids)).order_by(col(Notice.id))).all()
    bounces = session.exec(select(Bounce).where(col(Bounce.key) == key).order_by(col(Bounce.id))).all()
    standing = session.get(AddressStanding, key)
    pairs = {pair_key(p.creator_email, i.email or "") for i, p in found.invitations}
    pairs |= {pair_key(p.creator_email, i.email) for p in found.proposals for i in invitations_of(session, p)
              if i.email}
    counted = session.exec(select(RateEvent).where(col(RateEvent.key).in_({key} | pairs))
                           .order_by(col(RateEvent.id))).all()
    never = suppression.listed_since(session, key)
    return {
        "format": FORMAT_VERSION, "address": email.strip(), "mailbox": key, "generated_at": _when(now or utcnow()),
        "games": [_game_json(session, s, g, tables[s.game_id]) for s, g in found.seats],
        "talk": [{"game": t.game_id, "at": _when(t.created_at), "to": "team" if t.to_team is not None else "table",
                  "text": t.text, "delivered_at": _when(t.delivered_at)} for t in talk_rows],
        "news": [{"game": n.game_id, "at": _when(n.created_at), "kind": n.kind, "text": n.text, "status": n.status}
                 for n in notices],
        "preferences": [{"language": p.language, "timezone": p.timezone, "reminders": p.reminders,
                         "digest": p.digest, "play_forced": p.play_forced, "updated_at": _when(p.updated_at)}
                        for p in found.preferences],
        "emails_sent": [{"at": _when(o.created_at), "sent_at": _when(o.sent_at), "kind": o.kind,
                         "subject": o.subject, "status": o.status, "game": o.game_id} for o in found.outbox],
        "replies": [{"at": _when(m.received_at), "outcome": m.outcome, "game": m.game_id} for m in found.inbound],
        "never_email": {"listed": never is not None, "since": _when(never)},
        "bounces": [{"at": _when(b.created_at), "kind": b.kind, "reason": b.reason,
                     "undeliverable": b.undeliverable, "cleared_at": _when(b.cleared_at)} for b in bounces],
        "standing": {"answered_at": _when(standing.answered_at) if standing else None,
                     "blocked_at": _when(standing.blocked_at) if standing else None},
        "proposals_made": [_proposal_json(session, p) for p in found.proposals],
        "invitations_received": [
            {"proposal": p.id, "game_name": p.name, "status": i.status, "position": i.position + 1,
             "name": i.name, "language": i.language, "created_at": _when(i.created_at),
             "invited_at": _when(i.invited_at), "answered_at": _when(i.answered_at), "game": p.game_id}
            for i, p in found.invitations if not is_creator(p, i, key)],
        "counted_actions": [{"kind": r.kind, "at": _when(r.created_at)} for r in counted],
        "login_attempts": [{"at": _when(a.created_at), "ip": a.ip, "success": a.success} for a in found.logins],
        "ratings": [{"mode": r.mode, "mu": r.mu, "sigma": r.sigma, "games": r.games, "wins": r.wins,
                     "updated_at": _when(r.updated_at)}
                    for r in session.exec(select(Rating).where(col(Rating.key) == key).order_by(col(Rating.mode)))],
        "rating_changes": [{"game": c.game_id, "mode": c.mode, "rank": c.rank, "won": c.won,
                            "mu_before": c.mu_before, "mu_after": c.mu_after, "at": _when(c.created_at)}
                           for c in session.exec(select(RatingChange).where(col(RatingChange.key) == key)
                                                 .order_by(col(RatingChange.id)))],
        "leaderboard": [{"display_name": e.display_name, "joined_at": _when(e.joined_at)}
                        for e in session.exec(select(LeaderboardEntry).where(col(LeaderboardEntry.key) == key))],
        "analysis_email": [{"ready_email": a.ready_email, "updated_at": _when(a.updated_at)}
                           for a in rows_of(session, AnalysisPreference, col(AnalysisPreference.email), key)],
        # An admin's action on the address: what and when (the line's detail may name others).
        "admin_actions": [{"at": _when(a.created_at), "action": a.action, "game": a.game_id}
                          for a in audit_rows(session, found.spellings)],
    }


def _proposal_json(session: Session, proposal: Proposal) -> dict[str, Any]:
    """A game the address set up: its settings and each seat's answer, by name (never an address)."""
    return {"proposal": proposal.id, "name": proposal.name, "status": proposal.status,
            "created_at": _when(proposal.created_at), "confirmed_at": _when(proposal.confirmed_at),
            "teams": proposal.teams, "deadline_hours": proposal.deadline_hours, "game": proposal.game_id,
            "seats": [{"position": i.position + 1, "name": i.name, "kind": i.kind, "status": i.status}
                      for i in invitations_of(session, proposal)]}
