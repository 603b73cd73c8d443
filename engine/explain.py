"""The rules' reasons, for readers: why a ship cannot be attacked or reinforced, who would take
a ship now, what a move will do. Pure functions of a view (``player_view``), returning small
records with a reason code and its parameters; the words are the caller's.

Reason codes (``Blocked.code``):
- ``no_pirates``: the hand holds no pirate ship (``ship`` None: nothing can be played on any
  ship; with a ship: only a captain elsewhere can);
- ``colour_missing``: the side plays ``colour`` on ``ship`` (R4.2) and the hand holds no card
  of that colour;
- ``colours_taken``: the side is not on ``ship`` yet and every colour the hand holds
  (``colours``) is used there by another side (R4.2);
- ``all_colours_taken``: the side is not on ``ship`` yet and all four colours fight there.

Outlook codes (``Outlook.code``, R5.1, R5.2, R5.4): ``unattacked`` (its owner takes it home at
their next turn), ``leads`` (``side`` would take it, ``seat`` takes it at the start of their
turn; ``by`` is "captain", "admiral" or "strength"), ``tied`` (nobody takes it), ``empty``
(only a replaced Admiral was on it: its owner takes it back like an unattacked ship).

Outcome codes (``Outcome.code``, what one legal move will do): ``new_ship`` (a merchant ship
in front of you), ``discard``, ``lead`` (your side will lead on ``ship``; ``seat`` takes it),
``tie`` (your side will tie for the lead: nobody takes it), ``behind`` (another side still
leads: ``leader_side``, with a captain or the Admiral when ``by`` says so).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.cards import ADMIRAL, CODE_KIND, COLOURS, KIND_COLOUR, KIND_IS_CAPTAIN, KIND_STRENGTH, colour_of
from engine.view_types import AnyView, PlayerView, ShipView


@dataclass(frozen=True)
class Blocked:
    """Why the viewer can play no pirate or captain on a ship (or anywhere, ``ship`` None)."""

    code: str
    ship: int | None = None
    colour: str | None = None
    colours: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outlook:
    """Who would take a ship if the capture checks ran now."""

    code: str
    side: int | None = None
    seat: int | None = None
    by: str | None = None
    strength: int | None = None
    tied_sides: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What a legal move will do to the ship it targets (or to the hand)."""

    code: str
    ship: int | None = None
    seat: int | None = None
    strength: int | None = None
    against: int | None = None
    leader_side: int | None = None
    by: str | None = None


def _side_of(view: AnyView, seat: int) -> int:
    team_of = view.get("team_of")
    return team_of[seat] if team_of else seat


def _is_pirate(code: str) -> bool:
    return KIND_STRENGTH[CODE_KIND[code]] > 0


def _has_colour(code: str) -> bool:
    """A pirate ship or a captain (R1.3): a card of one of the four colours."""
    return KIND_COLOUR[CODE_KIND[code]] >= 0


def blocked(view: PlayerView) -> list[Blocked]:
    """Why the viewer (``view["seat"]``) can attack or reinforce none of some ships, one reason
    per such ship in table order; ``no_pirates`` alone when the hand holds no pirate ship.
    It reads the hand only, whoever is to move (the answer is the same on the viewer's turn)."""
    hand: list[str] = view["hand"]
    side = _side_of(view, view["seat"])
    held = {colour_of(c) for c in hand if _is_pirate(c)}
    held_any = held | {colour_of(c) for c in hand if _has_colour(c)}  # captains too
    mine_of = {ship["id"]: next((sd["colour"] for sd in ship["sides"]
                                 if sd["side"] == side and sd["colour"]), None)
               for ship in view["table"]}
    if not held and not any(c in held_any for c in mine_of.values() if c):
        return [Blocked("no_pirates")] if view["table"] else []
    out = []
    for ship in view["table"]:
        mine = mine_of[ship["id"]]
        used = {sd["colour"] for sd in ship["sides"] if sd["colour"]}
        if mine is not None:
            if mine not in held_any:
                out.append(Blocked("colour_missing", ship["id"], colour=mine))
        elif len(used) == len(COLOURS):
            out.append(Blocked("all_colours_taken", ship["id"]))
        elif not held:
            out.append(Blocked("no_pirates", ship["id"]))
        elif held <= used:
            out.append(Blocked("colours_taken", ship["id"],
                               colours=tuple(c for c in COLOURS if c in held)))
    return out


def outlook(ship: ShipView) -> Outlook:
    """Who would take ``ship`` (one entry of ``view["table"]``) if the capture checks ran now."""
    sides = ship["sides"]
    if not sides:
        return Outlook("unattacked" if ship.get("leader") is None else "empty",
                       seat=ship["owner"])
    leader = ship.get("leader")
    strongest = ship.get("strongest_side")
    if leader is not None:
        by = "admiral" if leader["card"] == "AD" else "captain"
        return Outlook("leads", side=leader["side"], seat=ship.get("taker"), by=by)
    if strongest is not None:
        strength = next(sd["strength"] for sd in sides if sd["side"] == strongest)
        return Outlook("leads", side=strongest, seat=ship.get("taker"), by="strength",
                       strength=strength)
    best = max(sd["strength"] for sd in sides)
    return Outlook("tied", strength=best,
                   tied_sides=tuple(sd["side"] for sd in sides if sd["strength"] == best))


def outcome(view: PlayerView, move: dict[str, Any]) -> Outcome | None:
    """What a legal ``move`` of the viewer will do, or None when it is plain (a draw)."""
    action = move.get("action")
    if action == "draw":
        return None
    if action == "discard":
        return Outcome("discard")
    code: str = move["card"]
    target = move.get("target")
    if target is None:
        return Outcome("new_ship")
    ship = next(s for s in view["table"] if s["id"] == target)
    seat: int = view["seat"]
    side = _side_of(view, seat)
    strength = {sd["side"]: sd["strength"] for sd in ship["sides"]}
    lead_seat = {sd["side"]: sd["lead_seat"] for sd in ship["sides"]}
    leader = ship.get("leader")
    lead_side = leader["side"] if leader else None
    by = None if leader is None else ("admiral" if leader["card"] == "AD" else "captain")
    kind = CODE_KIND[code]
    if kind == ADMIRAL or KIND_IS_CAPTAIN[kind]:  # R4.5-R4.7: the last captain or Admiral counts
        lead_side, by = side, ("admiral" if kind == ADMIRAL else "captain")
        strength.setdefault(side, 0)
    else:
        strength[side] = strength.get(side, 0) + KIND_STRENGTH[kind]
    lead_seat.setdefault(side, seat)  # R5.4: the first of a side on a ship leads it there
    mine = strength[side]
    others = [v for s, v in strength.items() if s != side]
    best_other = max(others) if others else None
    if lead_side is not None:
        if lead_side == side:
            return Outcome("lead", target, seat=lead_seat[side], strength=mine, against=best_other,
                           by=by)
        return Outcome("behind", target, strength=mine, leader_side=lead_side, by=by)
    if best_other is None or mine > best_other:
        return Outcome("lead", target, seat=lead_seat[side], strength=mine, against=best_other,
                       by="strength")
    if mine == best_other:
        return Outcome("tie", target, strength=mine, against=best_other)
    top = max(strength, key=lambda s: (strength[s], -s))
    tied = sum(1 for v in others if v == best_other) > 1
    return Outcome("behind", target, strength=mine, against=best_other,
                   leader_side=None if tied else top, by="strength")
