"""The one presenter of a game's board, shaped for templates (emails, player pages, the admin).

`board(engine.player_view(state, seat))` is what one seat sees: built ONLY from the player view,
so nothing a seat may not see can reach a template. `admin_board(engine.admin_view(state))` is
the admin's picture, made of the same pieces (one card, ship, side, player and team shape) plus
every hand. `move_log(records, view)` is the move log in words for either viewer.

Cards carry their colour as a word as well as a colour (colour-blind players). The colour word is
`engine.colour_of`; pages colour it with the classes of pbem/static/colours.css (`card-green`,
`colour-green`, `side-green`), emails inline `CardView.bg` / `.fg` from `_CARD_STYLE` below.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import engine

# Background and text colour of each colour word of `engine.colour_of` (the same values as
# pbem/static/colours.css, for the emails' inline styles); the word is always printed too.
_CARD_STYLE: dict[str, tuple[str, str]] = {
    "green": ("#2e7d32", "#ffffff"),
    "blue": ("#1565c0", "#ffffff"),
    "red": ("#c62828", "#ffffff"),
    "black": ("#212121", "#ffffff"),
    "white": ("#ffffff", "#212121"),
    "merchant": ("#f5e6c8", "#3e2723"),
}
_NO_COLOUR_STYLE = ("#eeeeee", "#212121")  # a side with no colour yet (only the Admiral)


@dataclass(frozen=True)
class CardView:
    code: str
    name: str
    colour: str  # `engine.colour_of`: "green", ..., "white" (the Admiral), "merchant"

    @property
    def bg(self) -> str:
        return _CARD_STYLE[self.colour][0]

    @property
    def fg(self) -> str:
        return _CARD_STYLE[self.colour][1]


def card(code: str) -> CardView:
    return CardView(code, engine.card_name(code), engine.colour_of(code))


def colour_style(colour: str | None) -> tuple[str, str]:
    """Background and text colour of a side's colour word ("blue"); grey for none (only the Admiral)."""
    if colour is None or colour not in _CARD_STYLE or colour == "merchant":
        return _NO_COLOUR_STYLE
    return _CARD_STYLE[colour]


Names = Callable[[int | None], str]


def _side(side: dict[str, Any], ship: dict[str, Any], name: Names) -> dict[str, Any]:
    colour = side["colour"]
    bg, fg = colour_style(colour)
    return {
        "who": " & ".join(name(s) for s in side["seats"]),
        "colour": colour,  # the colour word, None while only the Admiral fights for the side
        "colour_name": colour.capitalize() if colour else "no colour",
        "css": colour or "none",  # the page classes: colour-<css>, side-<css>
        "bg": bg, "fg": fg,
        "strength": side["strength"],
        "cards": [card(c) for c in side["cards"]],
        "strongest": ship.get("strongest_side") == side["side"],
    }


def _ship(ship: dict[str, Any], name: Names, whose: Names) -> dict[str, Any]:
    leader = ship.get("leader")
    return {
        "id": ship["id"],
        "owner": name(ship["owner"]),
        "whose": whose(ship["owner"]),
        "value": ship["value"],
        "merchant": card(f"M{ship['value']}"),
        "on_hold_for": None if ship.get("on_hold_for") is None else name(ship["on_hold_for"]),
        "sides": [_side(side, ship, name) for side in ship["sides"]],
        "leader": None if leader is None else {"card": card(leader["card"]), "who": name(leader["seat"])},
    }


def _board(view: dict[str, Any], hands: list[list[str] | None], name: Names, whose: Names) -> dict[str, Any]:
    """The pieces every viewer shares; `hands[seat]` is the hand the viewer may see, or None."""
    me = view["seat"]
    players: list[str] = view["players"]
    team_of = view.get("team_of")
    partner = view.get("partner")
    team_play = view.get("team_scores") is not None
    people = [{
        "position": seat,
        "name": player,
        "label": "You" if seat == me else player,
        "is_you": seat == me,
        "is_partner": seat == partner,
        "team": team_of[seat] if team_of else None,
        "hand_size": view["hand_sizes"][seat],
        "hand": None if hands[seat] is None else [card(c) for c in hands[seat] or []],
        "pile": list(view["score_piles"][seat]),
        "score": view["scores"][seat],
        "to_move": seat == view["to_move"],
        "winner": not team_play and seat in view["winners"],
    } for seat, player in enumerate(players)]
    teams = None
    if team_play:
        teams = [{"index": t,
                  "members": [name(s) for s in range(len(players)) if team_of and team_of[s] == t],
                  "score": score,
                  "winner": t in view["winners"]}
                 for t, score in enumerate(view["team_scores"])]
    return {
        "players": people,
        "table": [_ship(ship, name, whose) for ship in view["table"]],
        "draw_pile": view["draw_pile"],
        "to_move": None if view["to_move"] is None else name(view["to_move"]),
        "finished": view["finished"],
        "teams": teams,
        "winners": engine.winner_names(view, [name(s) for s in range(len(players))]),
        "version": view["version"],
    }


def board(view: dict[str, Any]) -> dict[str, Any]:
    """What one seat sees, from `engine.player_view`: hand, partner's hand, table, players, scores."""
    me: int = view["seat"]
    players: list[str] = view["players"]
    partner = view.get("partner")

    def name(seat: int | None) -> str:
        return "nobody" if seat is None else ("you" if seat == me else players[seat])

    def whose(seat: int | None) -> str:
        return "your" if seat == me else f"{name(seat)}'s"

    hands: list[list[str] | None] = [None] * len(players)
    hands[me] = view["hand"]
    if partner is not None:
        hands[partner] = view.get("partner_hand") or []
    shared = _board(view, hands, name, whose)
    return {
        **shared,
        "seat": me,
        "you": players[me],
        "hand": shared["players"][me]["hand"],
        "partner": None if partner is None else {
            "position": partner, "name": players[partner], "hand": shared["players"][partner]["hand"]},
        "your_turn": view["to_move"] == me,
    }


def admin_board(view: dict[str, Any]) -> dict[str, Any]:
    """The admin's picture, from `engine.admin_view`: the same board with every hand (never for players)."""
    players: list[str] = view["players"]

    def name(seat: int | None) -> str:
        return "nobody" if seat is None else players[seat]

    def whose(seat: int | None) -> str:
        return f"{name(seat)}'s"

    return _board(view, list(view["hands"]), name, whose)


def move_log(records: list[Any], view: dict[str, Any]) -> list[dict[str, Any]]:
    """The stored moves in words for the viewer of `view` (a seat, or the admin):
    [{number, who, source, at, sentences}], newest last."""
    players: list[str] = view["players"]
    me = view["seat"]
    log = []
    for record in records:
        events = json.loads(record.events_json or "[]")
        sentences = [engine.describe_event(e, players, me) for e in events]
        if not sentences and me is None:  # the admin sees the stored move of a row without events
            sentences = [f"{players[record.seat]}: "
                         f"{json.dumps(json.loads(record.move_json), sort_keys=True)}"]
        log.append({"number": record.number, "who": players[record.seat], "source": record.source,
                    "at": record.created_at, "sentences": sentences})
    return log
