"""The admin's picture of a game, shaped for templates from `engine.admin_view` (every hand).

Templates never call the engine: card names and sentences are made here.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import engine

from pbem.models import MoveRecord, Seat

@dataclass(frozen=True)
class Card:
    code: str
    name: str
    css: str  # colour class, `engine.colour_of`; the name always says the colour too


def card(code: str) -> Card:
    return Card(code, engine.card_name(code), engine.colour_of(code))


def _names(players: list[str], seats: list[int]) -> str:
    return " & ".join(players[s] for s in seats)


def table_picture(view: dict[str, Any]) -> dict[str, Any]:
    """Hands, ships with their battles, score piles and scores of an admin view."""
    players: list[str] = view["players"]
    people = []
    for pos, name in enumerate(players):
        people.append({
            "position": pos,
            "name": name,
            "team": view["team_of"][pos] if view.get("team_of") else None,
            "hand": [card(c) for c in view["hands"][pos]],
            "pile": list(view["score_piles"][pos]),
            "score": view["scores"][pos],
            "to_move": pos == view["to_move"],
            "winner": (pos in view["winners"]) if not view.get("team_scores") else False,
        })
    ships = []
    for ship in view["table"]:
        leader = ship.get("leader")
        ships.append({
            "id": ship["id"],
            "owner": players[ship["owner"]],
            "value": ship["value"],
            "on_hold_for": None if ship.get("on_hold_for") is None else players[ship["on_hold_for"]],
            "leader": None if not leader else {"card": card(leader["card"]), "who": players[leader["seat"]]},
            "sides": [{
                "who": _names(players, side["seats"]),
                "colour": side["colour"] or "white",
                "strength": side["strength"],
                "cards": [card(c) for c in side["cards"]],
                "strongest": ship.get("strongest_side") == side["side"],
            } for side in ship["sides"]],
        })
    teams = None
    if view.get("team_scores") is not None:
        teams = [{"members": _names(players, [s for s, t in enumerate(view["team_of"]) if t == i]),
                  "score": score, "winner": i in view["winners"]}
                 for i, score in enumerate(view["team_scores"])]
    return {
        "people": people,
        "ships": ships,
        "draw_pile": view["draw_pile"],
        "teams": teams,
        "winners": engine.winner_names(view),  # names ("Ann & Bob" in team play); [] while running
        "finished": view["finished"],
        "to_move": None if view["to_move"] is None else players[view["to_move"]],
        "version": view["version"],
        "options": view.get("options", {}),
    }


def move_log(moves: list[MoveRecord], seats: list[Seat]) -> list[dict[str, Any]]:
    """Each stored move in words (its public events), newest last."""
    players = [s.name for s in sorted(seats, key=lambda s: s.position)]
    out = []
    for m in moves:
        events = json.loads(m.events_json or "[]")
        sentences = [engine.describe_event(e, players, None) for e in events]
        if not sentences:
            sentences = [f"{players[m.seat]}: {json.dumps(json.loads(m.move_json), sort_keys=True)}"]
        out.append({"number": m.number, "who": players[m.seat], "source": m.source,
                    "at": m.created_at, "sentences": sentences})
    return out
