"""What one seat sees, shaped for templates (emails and pages): built ONLY from
`engine.player_view`, so nothing a seat may not see can reach a template.

Cards carry their colour as a word as well as a colour (colour-blind players).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import engine

# Background and text colour of each card colour (`engine.colour_of`); the word is always
# printed too.
_CARD_STYLE: dict[str, tuple[str, str, str]] = {
    "green": ("Green", "#2e7d32", "#ffffff"),
    "blue": ("Blue", "#1565c0", "#ffffff"),
    "red": ("Red", "#c62828", "#ffffff"),
    "black": ("Black", "#212121", "#ffffff"),
    "white": ("White", "#ffffff", "#212121"),
    "merchant": ("", "#f5e6c8", "#3e2723"),
}


@dataclass(frozen=True)
class CardView:
    code: str
    name: str
    colour: str  # "Blue", "White" (admiral), "" for merchant ships
    bg: str
    fg: str


def card(code: str) -> CardView:
    colour, bg, fg = _CARD_STYLE[engine.colour_of(code)]
    return CardView(code, engine.card_name(code), colour, bg, fg)


def colour_style(colour: str | None) -> tuple[str, str]:
    """Background and text colour of a colour word ("blue"); grey for none (only the Admiral)."""
    style = _CARD_STYLE.get(colour.lower()) if colour else None
    if style is None or not style[0]:
        return "#eeeeee", "#212121"
    return style[1], style[2]


def _side_label(view: dict[str, Any], side: dict[str, Any]) -> str:
    names = ["you" if s == view["seat"] else view["players"][s] for s in side["seats"]]
    return " & ".join(names)


def board(view: dict[str, Any]) -> dict[str, Any]:
    """The template context of a player view: hand, partner's hand, table, piles, scores."""
    me = view["seat"]
    players = view["players"]
    team_of = view.get("team_of")
    partner = view.get("partner")

    def name(seat: int | None) -> str:
        return "nobody" if seat is None else ("you" if seat == me else players[seat])

    def whose(seat: int) -> str:
        return "your" if seat == me else f"{players[seat]}'s"

    people = []
    for seat, player in enumerate(players):
        people.append({
            "position": seat,
            "name": player,
            "label": "You" if seat == me else player,
            "is_you": seat == me,
            "is_partner": seat == partner,
            "team": team_of[seat] if team_of else None,
            "hand_size": view["hand_sizes"][seat],
            "pile": list(view["score_piles"][seat]),
            "score": view["scores"][seat],
            "to_move": seat == view["to_move"],
        })
    table = []
    for ship in view["table"]:
        sides = []
        for side in ship["sides"]:
            bg, fg = colour_style(side["colour"])
            sides.append({
                "who": _side_label(view, side),
                "colour": side["colour"].capitalize() if side["colour"] else "no colour",
                "bg": bg, "fg": fg,
                "strength": side["strength"],
                "cards": [card(c) for c in side["cards"]],
                "strongest": ship.get("strongest_side") == side["side"],
            })
        leader = ship.get("leader")
        table.append({
            "id": ship["id"],
            "owner": name(ship["owner"]),
            "whose": whose(ship["owner"]),
            "value": ship["value"],
            "merchant": card(f"M{ship['value']}"),
            "on_hold_for": None if ship.get("on_hold_for") is None else name(ship["on_hold_for"]),
            "sides": sides,
            "leader": None if leader is None else {"card": card(leader["card"]),
                                                   "who": name(leader["seat"])},
        })
    teams = None
    if view.get("team_scores") is not None:
        teams = [{"index": t,
                  "members": [name(s) for s in range(len(players)) if team_of and team_of[s] == t],
                  "score": score}
                 for t, score in enumerate(view["team_scores"])]
    return {
        "seat": me,
        "you": players[me],
        "players": people,
        "hand": [card(c) for c in view["hand"]],
        "partner": None if partner is None else {
            "position": partner, "name": players[partner],
            "hand": [card(c) for c in view.get("partner_hand") or []]},
        "table": table,
        "draw_pile": view["draw_pile"],
        "to_move": None if view["to_move"] is None else name(view["to_move"]),
        "your_turn": view["to_move"] == me,
        "finished": view["finished"],
        "teams": teams,
        "winners": engine.winner_names(view, [name(s) for s in range(len(players))]),
        "version": view["version"],
    }


def move_log(records: list[Any], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The stored moves in words for the viewer: [{number, sentences}], newest last."""
    log = []
    for record in records:
        events = json.loads(record.events_json)
        log.append({"number": record.number,
                    "sentences": [engine.describe_event(e, view["players"], view["seat"])
                                  for e in events]})
    return log
