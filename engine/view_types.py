"""The shape of a view (docs/engine-api.md) as TypedDicts, so mypy checks every key a reader
uses. Plain types only, no engine import: the rules, the texts and the service can all use them.
"""
from __future__ import annotations

from typing import Any, TypedDict


class SideView(TypedDict):
    """One side fighting for a ship: its seats, colour, strength and cards."""

    side: int
    seats: list[int]
    colour: str | None
    strength: int
    cards: list[str]
    lead_seat: int


class LeaderView(TypedDict):
    """The captain or admiral leading a ship, and whose it is."""

    card: str
    seat: int
    side: int


class ShipView(TypedDict):
    """One ship on the table, as every reader sees it."""

    id: int
    owner: int
    value: int
    on_hold_for: int | None
    sides: list[SideView]
    leader: LeaderView | None
    strongest_side: int | None
    taker: int | None


class PublicView(TypedDict):
    """What every reader sees, the same for all (docs/engine-api.md)."""

    players: list[str]
    teams: bool
    options: dict[str, Any]
    team_of: list[int] | None
    version: int
    to_move: int | None
    finished: bool
    hand_sizes: list[int]
    draw_pile: int
    table: list[ShipView]
    score_piles: list[list[int]]
    out_of_game: list[str]
    captured_gold: list[int]
    scores: list[int]
    team_scores: list[int] | None
    winners: list[int]


class PlayerView(PublicView):
    """What one seat sees: the public part, its own and its partner's hands, its legal moves."""

    seat: int
    partner: int | None
    hand: list[str]
    partner_hand: list[str] | None
    legal_moves: list[dict[str, Any]]
    hand_merchants: list[list[int] | None]
    hand_penalty: list[int | None]


class AdminView(PublicView):
    """The admin's view: the public part and every hand (never for players)."""

    seat: None
    partner: None
    hand: list[str]
    partner_hand: None
    hands: list[list[str]]
    legal_moves: list[dict[str, Any]]
    hand_merchants: list[list[int] | None]
    hand_penalty: list[int | None]


AnyView = PlayerView | AdminView  # what a presenter shared by players and admins reads
