"""What one seat may see (I5): its own hand, its partner's, and public facts.

Nothing secret leaves through ``player_view``: other sides' hands appear only
as sizes and the draw pile only as a count. ``admin_view`` adds every hand.
"""
from __future__ import annotations

from typing import Any

from engine import rules
from engine.cards import COLOURS, KIND_CODES
from engine.state import PLAYED_KIND_SHIFT, PLAYED_SEAT_MASK, GameState, Ship, hand_codes


def table_json(state: GameState) -> list[dict[str, Any]]:
    """The public table: each ship, the sides fighting for it, who leads it."""
    return [_ship_json(state, sh) for sh in state.table]


def _ship_json(state: GameState, sh: Ship) -> dict[str, Any]:
    cards_of: dict[int, list[str]] = {}
    for p in sh.played:
        cards_of.setdefault(state.side_of[p & PLAYED_SEAT_MASK], []).append(
            KIND_CODES[p >> PLAYED_KIND_SHIFT])
    sides = []
    for side in sorted(set(cards_of) | {s for s, lead in enumerate(sh.lead_seat) if lead >= 0}):
        cards = cards_of.get(side, [])
        if not cards:
            continue  # a side whose only card (the admiral) was replaced has left the fight
        colour = sh.colour[side]
        sides.append({
            "side": side,
            "seats": [s for s in range(state.n_seats) if state.side_of[s] == side],
            "colour": COLOURS[colour] if colour >= 0 else None,
            "strength": sh.strength[side],
            "cards": cards,
            "lead_seat": sh.lead_seat[side],
        })
    leader = None
    if sh.leader_kind >= 0:
        leader = {"card": KIND_CODES[sh.leader_kind], "seat": sh.leader_seat,
                  "side": sh.leader_side}
    winner = sh.winner
    return {
        "id": sh.id, "owner": sh.owner, "value": sh.value,
        "on_hold_for": sh.hold_for if sh.hold_for >= 0 else None,
        "sides": sides,
        "leader": leader,
        "strongest_side": winner if winner >= 0 and sh.played else None,
        "taker": sh.taker if sh.taker >= 0 else None,
    }


def out_of_game(state: GameState) -> list[str]:
    """Cards out of the game (discards, replaced captains and admiral, the cards left on
    captured or settled ships), sorted: every one was shown when played, so a reader
    that deals the unseen cards (a search bot) can leave them out."""
    return sorted(KIND_CODES[k] for k in state.out)


def _public(state: GameState) -> dict[str, Any]:
    n = state.n_seats
    return {
        "players": list(state.players),
        "teams": state.teams,
        "options": state.options.to_json(),
        "team_of": [s // 2 for s in range(n)] if state.teams else None,
        "version": state.version,
        "to_move": state.to_move,
        "finished": state.finished,
        "hand_sizes": list(state.hand_size),
        "draw_pile": len(state.pile),
        "table": table_json(state),
        "score_piles": [sorted(p) for p in state.score_piles],
        "out_of_game": out_of_game(state),
        "captured_gold": list(state.gold),
        **_scores(state),
        "winners": rules.winners(state),
    }


def _scores(state: GameState) -> dict[str, Any]:
    """One public score per seat and side, the same for every reader (R6.3, I5): while the game
    runs the captured gold (the hands are secret), once it is over the final score."""
    if state.finished:
        return {"scores": rules.scores(state), "team_scores": rules.team_scores(state)}
    teams = [state.gold[2 * t] + state.gold[2 * t + 1] for t in range(state.n_sides)] if state.teams else None
    return {"scores": list(state.gold), "team_scores": teams}


def _hand_gold(state: GameState, seat: int) -> list[int]:
    """The gold values of the merchant ships in ``seat``'s hand, sorted."""
    return sorted(int(c[1:]) for c in hand_codes(state, seat) if c[0] == "M")


def _hand_penalties(view: dict[str, Any], state: GameState, visible: set[int | None]) -> None:
    """``hand_merchants`` / ``hand_penalty``: what the merchant ships in a hand would cost at the
    end, only for the hands in ``visible`` (every hand once it is over: they are shown then)."""
    n = state.n_seats
    shown = set(range(n)) if state.finished else visible
    merchants = [_hand_gold(state, s) if s in shown else None for s in range(n)]
    view["hand_merchants"] = merchants
    view["hand_penalty"] = [None if m is None else sum(m) for m in merchants]


def player_view(state: GameState, seat: int) -> dict[str, Any]:
    """JSON-ready view for ``seat``: only what that seat may see (docs/engine-api.md).

    Every score counts only captured gold until the game ends (the hands are secret);
    ``hand_penalty`` gives the viewer's (and partner's) hand cost."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_seats:
        raise ValueError(f"There is no seat {seat!r} in this game.")
    partner = rules.partner_of(state, seat)
    view = {"seat": seat, **_public(state)}
    view["partner"] = partner
    view["hand"] = hand_codes(state, seat)
    view["partner_hand"] = hand_codes(state, partner) if partner is not None else None
    view["legal_moves"] = rules.legal_moves(state, seat)
    _hand_penalties(view, state, {seat, partner})
    return view


def admin_view(state: GameState) -> dict[str, Any]:
    """Everything public plus every hand (for admins and tests, never for players)."""
    view = {"seat": None, **_public(state)}
    view["partner"] = None
    view["hand"] = []
    view["partner_hand"] = None
    view["hands"] = [hand_codes(state, s) for s in range(state.n_seats)]
    view["legal_moves"] = rules.legal_moves(state)
    _hand_penalties(view, state, set(range(state.n_seats)))
    return view

