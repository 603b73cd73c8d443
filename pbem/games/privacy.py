"""A person's rights over what we hold about their address (issue 27): take it with them
(`export_address`: everything that names the mailbox, and of its games only what its seat could
see) and have it erased (`erase_address`: from every table; its seats in the records keep a
neutral name, its running seats go to a bot).

Erasure and the never-list: the person is asked (a checkbox "and never email me again"). Ticked,
or the address already on the list, one row of the mailbox's keyed hash stays on it
(`suppression.forget`), so every path that refuses a listed address still refuses it, in any
spelling; unticked and not listed, nothing of it stays, and it is a new address to us (the rules
of mail nobody asked for apply to it again). Rows erased while the worker sends them are simply
gone when it marks them (an email already handed to the relay still arrives).

An address is found by its mailbox (`pbem.addresses.canonical_key`), as the never-list and the
limits count it: `Ann+korsar@Example.com` and `ann@example.com` are one person. The entries
(/me, the admin's dashboard, the CLI) hand an address; nothing here logs it, and the audit row
of an erasure names it by a prefix of its keyed hash only (`address_tag`).
"""
from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import quote, quote_plus

from sqlalchemy import String, Text, and_, false, func, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import Session, SQLModel, col, delete, select

import engine
from pbem import i18n
from pbem.addresses import canonical_key
from pbem.auth import record_audit
from pbem.config import Config
from pbem.games import lifecycle
from pbem.games.errors import GameError
from pbem.games.finish import is_over
from pbem.games.invitations import cancel, decline
from pbem.games.records import export_record, moves_of
from pbem.games.seated import SeatedGame
from pbem.games.service import lock_game_with_seats
from pbem.games.unasked_mail import pair_key
from pbem.i18n import gettext as _
from pbem.mail import suppression
from pbem.models import (AddressPreference, AddressStanding, AdminUser, AuditLog, Game, GameStatus, InboundMail,
                         Invitation, InvitationStatus, LoginAttempt, Notice, OutboxMessage, Proposal, ProposalStatus,
                         RateEvent, Seat, SeatKind, TalkMessage, utcnow)
from pbem.models_mail import Bounce
from pbem.present.board import move_log
from pbem.present.names import reader_names
from pbem.store import load_state

FORMAT_VERSION = 1
ERASED = "[erased]"  # what stands in other people's rows where the address (or its local part) was
MIN_DISTINCTIVE_LOCAL = 6  # a local part this long is also looked for alone ("zebulon" yes, "ann" no)
TAG_LENGTH = 12  # hex digits of the keyed hash that name an erased address in the audit log

Row = TypeVar("Row", bound=SQLModel)


# ---------------------------------------------------------------- finding an address's rows
def _like(text: str) -> str:
    """`text` matched literally by LIKE (escape character backslash)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _near(column: Any, key: str) -> Any:
    """A condition that holds for every stored spelling of the mailbox `key` (and a few others,
    which `canonical_key` then tells apart): its local part, or that and a +tag, at its domain;
    on Gmail with the dots taken out (of the domain too)."""
    local, _at, domain = key.rpartition("@")
    value = func.lower(column)
    if domain == "gmail.com":
        value, domains = func.replace(value, ".", ""), ["gmailcom", "googlemailcom"]
    else:
        domains = [domain]
    return or_(*[value.like(f"{_like(local)}{tag}@{_like(d)}", escape="\\") for d in domains for tag in ("", "+%")])


def _rows(session: Session, model: type[Row], column: Any, key: str) -> list[Row]:
    """The rows of `model` whose address `column` is the mailbox `key` (any case, +tag, dots)."""
    return [row for row in session.exec(select(model).where(_near(column, key))).all()
            if canonical_key(getattr(row, column.key) or "") == key]


@dataclass
class Held:
    """Every row that names one mailbox, found once for the export and for the erasure."""

    key: str
    seats: list[tuple[Seat, Game]]
    invitations: list[tuple[Invitation, Proposal]]
    proposals: list[Proposal]
    outbox: list[OutboxMessage]
    inbound: list[InboundMail]
    preferences: list[AddressPreference]
    logins: list[LoginAttempt]

    @property
    def spellings(self) -> set[str]:
        """Every spelling of the address found in its rows, lower case."""
        found = {s.email for s, _g in self.seats} | {i.email for i, _p in self.invitations}
        found |= {p.creator_email for p in self.proposals} | {o.to_addr for o in self.outbox}
        found |= {m.from_addr for m in self.inbound} | {p.email for p in self.preferences}
        found |= {a.email for a in self.logins}
        return {f.lower() for f in found if f} | {self.key}


def _audit_rows(session: Session, spellings: Iterable[str]) -> list[AuditLog]:
    """The admin's audit lines whose detail names one of `spellings` (an action on the address)."""
    wanted = sorted(set(spellings))
    if not wanted:
        return []
    return list(session.exec(select(AuditLog).where(or_(*[func.lower(col(AuditLog.detail)).contains(w, autoescape=True)
                                                          for w in wanted])).order_by(col(AuditLog.id))))


def held(session: Session, email: str) -> Held:
    key = canonical_key(email)
    seats = [s for s in _rows(session, Seat, col(Seat.email), key) if s.kind == SeatKind.HUMAN]
    games = {g.id: g for g in session.exec(select(Game).where(col(Game.id).in_({s.game_id for s in seats})))}
    invitations = _rows(session, Invitation, col(Invitation.email), key)
    proposal_ids = {i.proposal_id for i in invitations}
    proposals = {p.id: p for p in session.exec(select(Proposal).where(col(Proposal.id).in_(proposal_ids)))}
    return Held(
        key=key,
        seats=sorted(((s, games[s.game_id]) for s in seats), key=lambda sg: (sg[1].created_at, sg[0].game_id)),
        invitations=[(i, proposals[i.proposal_id]) for i in sorted(invitations, key=lambda i: i.id or 0)],
        proposals=sorted(_rows(session, Proposal, col(Proposal.creator_email), key), key=lambda p: p.id or 0),
        outbox=sorted(_rows(session, OutboxMessage, col(OutboxMessage.to_addr), key), key=lambda o: o.id or 0),
        inbound=sorted(_rows(session, InboundMail, col(InboundMail.from_addr), key), key=lambda m: m.id or 0),
        preferences=_rows(session, AddressPreference, col(AddressPreference.email), key),
        logins=_rows(session, LoginAttempt, col(LoginAttempt.email), key),
    )


# ---------------------------------------------------------------- take it with you
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
    pairs |= {pair_key(p.creator_email, i.email) for p in found.proposals for i in _invitations_of(session, p)
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
            for i, p in found.invitations if not _is_creator(p, i, key)],
        "counted_actions": [{"kind": r.kind, "at": _when(r.created_at)} for r in counted],
        "login_attempts": [{"at": _when(a.created_at), "ip": a.ip, "success": a.success} for a in found.logins],
        # An admin's action on the address: what and when (the line's detail may name others).
        "admin_actions": [{"at": _when(a.created_at), "action": a.action, "game": a.game_id}
                          for a in _audit_rows(session, found.spellings)],
    }


def _is_creator(proposal: Proposal, row: Invitation, key: str) -> bool:
    return row.position == proposal.creator_position and canonical_key(proposal.creator_email or "-") == key


def _invitations_of(session: Session, proposal: Proposal) -> list[Invitation]:
    return list(session.exec(select(Invitation).where(Invitation.proposal_id == proposal.id)
                             .order_by(col(Invitation.position))))


def _proposal_json(session: Session, proposal: Proposal) -> dict[str, Any]:
    """A game the address set up: its settings and each seat's answer, by name (never an address)."""
    return {"proposal": proposal.id, "name": proposal.name, "status": proposal.status,
            "created_at": _when(proposal.created_at), "confirmed_at": _when(proposal.confirmed_at),
            "teams": proposal.teams, "deadline_hours": proposal.deadline_hours, "game": proposal.game_id,
            "seats": [{"position": i.position + 1, "name": i.name, "kind": i.kind, "status": i.status}
                      for i in _invitations_of(session, proposal)]}


# ---------------------------------------------------------------- erase me
def address_tag(cfg: Config, email: str) -> str:
    """How the audit log names an erased address: a prefix of its mailbox's keyed hash."""
    hashed = suppression.hashed_key(canonical_key(email), cfg.SECRET_KEY)
    assert hashed is not None
    return "#" + hashed.removeprefix(suppression.HASHED_PREFIX)[:TAG_LENGTH]


@dataclass(frozen=True)
class Erased:
    """What an erasure did, in counts (nothing that names the address)."""

    tag: str
    seats: int
    games_handed_to_bots: int
    rows_deleted: int
    never_kept: bool


def former_name(position: int) -> str:
    """The neutral name an erased player's seat keeps, in the current language."""
    return _("Former player %(number)s", number=position + 1)


def _language_of(found: Held) -> str:
    for pref in found.preferences:
        if pref.language in i18n.LANGUAGES:
            return pref.language
    latest = max((s for s, _g in found.seats), key=lambda s: s.id or 0, default=None)
    return latest.language if latest is not None and latest.language in i18n.LANGUAGES else i18n.DEFAULT


def _leave_running_games(session: Session, cfg: Config, found: Held, now: datetime) -> int:
    """Each seat in a game under way is left (a bot plays it, the table is told), each game
    locked once, in one order."""
    left = 0
    for game_id in sorted({s.game_id for s, g in found.seats if not is_over(g)}):
        game, seats = lock_game_with_seats(session, game_id)
        if is_over(game):
            continue
        for seat in seats:
            if seat.kind == SeatKind.HUMAN and canonical_key(seat.email or "") == found.key and not seat.left_game:
                lifecycle.leave_game(session, cfg, SeatedGame(game, seats, seat), now=now)
                left += 1
    return left


def _close_invitations(session: Session, cfg: Config, found: Held, now: datetime) -> None:
    """Its open invitations are declined (their creators told), its open proposals cancelled."""
    for row, proposal in found.invitations:
        if _is_creator(proposal, row, found.key) or proposal.status not in ProposalStatus.OPEN:
            continue
        if row.status == InvitationStatus.INVITED:
            decline(session, cfg, proposal, row, now=now)
        elif row.status == InvitationStatus.WAITING:
            row.status = InvitationStatus.DECLINED
            session.add(row)
    for proposal in found.proposals:
        if proposal.status in ProposalStatus.OPEN:
            cancel(session, cfg, proposal, now=now)


def _rename_seat(seat: Seat, game: Game, name: str) -> None:
    """The seat keeps its place in the record under `name`, with no address and no live link."""
    seat.name, seat.email, seat.link_nonce = name, None, secrets.token_hex(8)
    seat.unsubscribed, seat.digest = True, False
    state = json.loads(game.state_json)
    if isinstance(state.get("players"), list) and seat.position < len(state["players"]):
        state["players"][seat.position] = name
        game.state_json = json.dumps(state)


def _needles(found: Held) -> tuple[list[str], list[str]]:
    """Every form the address may take inside other rows' text, lower case: the spellings (also
    url-encoded), and apart its local parts long enough to be its own (a default name)."""
    forms: set[str] = set()
    parts: set[str] = set()
    for spelling in found.spellings:
        forms |= {spelling, quote(spelling, safe=""), quote_plus(spelling), quote(spelling, safe="@+")}
        local = spelling.partition("@")[0]
        parts |= {p for p in {local, local.split("+", 1)[0]} if len(p) >= MIN_DISTINCTIVE_LOCAL}
    return sorted(forms, key=len, reverse=True), sorted(parts - forms, key=len, reverse=True)


def _text_columns() -> Iterable[tuple[Any, Any]]:
    for table in SQLModel.metadata.sorted_tables:
        for column in table.columns:
            if isinstance(getattr(column.type, "impl", column.type), (String, Text)):  # and SQLModel's AutoString
                yield table, column


def _pattern(forms: list[str], parts: list[str]) -> re.Pattern[str]:
    """The forms anywhere; a local part only where it is not the start of another address
    (`zebulon@other.example` is somebody else's)."""
    alternatives = [re.escape(f) for f in forms]
    alternatives += [re.escape(p) + r"(?![\w.+%-]*(?:@|%40))" for p in parts]
    return re.compile("|".join(alternatives), re.IGNORECASE)


def _fewest(needles: Iterable[str]) -> list[str]:
    """The needles none of the others is part of: a row holding any needle holds one of these."""
    unique = sorted(set(needles), key=len)
    kept: list[str] = []
    for needle in unique:
        if not any(k in needle for k in kept):
            kept.append(needle)
    return kept


def scrub(session: Session, forms: Iterable[str], parts: Iterable[str] = (), replacement: str = ERASED) -> int:
    """Every text column of every table: each of `forms` and `parts` (any case, see `_pattern`)
    becomes `replacement`. One scan per table (its text columns together); returns the number
    of values changed."""
    forms, parts = list(forms), list(parts)
    needles = _fewest(forms + parts)  # ASCII (an address's local part is: pbem.addresses)
    if not needles:
        return 0
    pattern = _pattern(forms, parts)
    postgresql = session.get_bind().dialect.name == "postgresql"
    by_table: dict[Any, list[Any]] = {}
    for table, column in _text_columns():
        by_table.setdefault(table, []).append(column)
    changed = 0
    for table, columns in by_table.items():
        keys = list(table.primary_key.columns)

        def holds(column: Any) -> Any:  # any case: ILIKE, and SQLite's LIKE ignores the case of ASCII
            return or_(*[(column.ilike if postgresql else column.like)(f"%{_like(n)}%", escape="\\")
                         for n in needles])
        for row in session.execute(sa_select(*keys, *columns).where(or_(*[holds(c) for c in columns]))).all():
            ids, values = row[:len(keys)], row[len(keys):]
            new = {c.name: pattern.sub(replacement, v) for c, v in zip(columns, values) if v}
            new = {c.name: new[c.name] for c, v in zip(columns, values) if v and new[c.name] != v}
            if new:
                session.execute(update(table).where(*[k == v for k, v in zip(keys, ids)]).values(new))
                changed += len(new)
    return changed


def erase_address(session: Session, cfg: Config, email: str, *, never: bool, actor: str,
                  now: datetime | None = None) -> Erased:
    """Erase the address `email` from every table, in the caller's transaction: running seats
    are left to bots (the table told), open invitations declined and proposals cancelled, its
    seats keep "Former player N" (in its language) for the others, its talk, news, mail both
    ways, preferences, counts, standing, bounces and logins go. The never-list keeps the
    mailbox's keyed hash if it was on it, or if `never`. Audited by `actor`, without the address."""
    now = now or utcnow()
    found = held(session, email)
    if not found.key or "@" not in found.key:
        raise GameError("write_an_address")
    tag = address_tag(cfg, email)
    forms, parts = _needles(found)
    left = _leave_running_games(session, cfg, found, now)
    _close_invitations(session, cfg, found, now)
    session.flush()
    found = held(session, email)  # with the rows the leaving and the declines queued
    pairs = {pair_key(p.creator_email, i.email or "") for i, p in found.invitations}
    pairs |= {pair_key(p.creator_email, i.email) for p in found.proposals for i in _invitations_of(session, p)
              if i.email}
    with i18n.using(_language_of(found)):
        for seat, game in found.seats:
            _rename_seat(seat, game, former_name(seat.position))
            session.add(seat)
            session.add(game)
        for row, _proposal in found.invitations:
            row.email, row.name = None, former_name(row.position)
            session.add(row)
    for proposal in found.proposals:
        proposal.creator_email = ""
        session.add(proposal)
    deleted = 0

    def gone(statement: Any) -> None:
        nonlocal deleted
        deleted += session.execute(statement).rowcount or 0  # type: ignore[attr-defined]

    for seat, _game in found.seats:
        gone(delete(TalkMessage).where(col(TalkMessage.game_id) == seat.game_id,
                                       col(TalkMessage.seat) == seat.position))
    seat_ids = [s.id for s, _g in found.seats]
    gone(delete(Notice).where(col(Notice.seat_id).in_(seat_ids)))
    outbox_ids = [o.id for o in found.outbox]
    gone(delete(Bounce).where(col(Bounce.key) == found.key))
    session.execute(update(Bounce).where(col(Bounce.outbox_id).in_(outbox_ids)).values(outbox_id=None))
    gone(delete(OutboxMessage).where(col(OutboxMessage.id).in_(outbox_ids)))
    gone(delete(InboundMail).where(col(InboundMail.id).in_([m.id for m in found.inbound])))
    gone(delete(AddressPreference).where(col(AddressPreference.email).in_([p.email for p in found.preferences])))
    gone(delete(LoginAttempt).where(col(LoginAttempt.id).in_([a.id for a in found.logins])))
    gone(delete(RateEvent).where(col(RateEvent.key).in_({found.key} | pairs)))
    gone(delete(AddressStanding).where(col(AddressStanding.key) == found.key))
    # An admin account of that mailbox goes too (its audit lines keep "[erased]" as their actor).
    gone(delete(AdminUser).where(col(AdminUser.id).in_([a.id for a in _rows(session, AdminUser, col(AdminUser.email),
                                                                           found.key)])))
    kept = suppression.forget(session, found.key, secret=cfg.SECRET_KEY, keep=never, now=now)
    session.flush()
    scrub(session, forms, parts)
    record_audit(session, actor, "erase_address", detail=f"erased address {tag}", now=now)
    return Erased(tag=tag, seats=len(found.seats), games_handed_to_bots=left, rows_deleted=deleted, never_kept=kept)


@dataclass(frozen=True)
class Found:
    """What an erasure of an address would touch, in counts (the admin's confirmation)."""

    seats: int
    games_under_way: int
    emails: int
    replies: int
    invitations: int
    proposals: int
    never_listed: bool

    @property
    def anything(self) -> bool:
        return any((self.seats, self.emails, self.replies, self.invitations, self.proposals, self.never_listed))


def what_is_held(session: Session, email: str) -> Found:
    """The counts of the rows that name `email` (reads only)."""
    found = held(session, email)
    return Found(seats=len(found.seats), games_under_way=sum(1 for _s, g in found.seats if not is_over(g)),
                 emails=len(found.outbox), replies=len(found.inbound), invitations=len(found.invitations),
                 proposals=len(found.proposals), never_listed=suppression.listed_since(session, found.key) is not None)
