"""What one seat may see (I5): its own hand, its partner's, and public facts.

Nothing secret leaves through ``player_view``: other sides' hands appear only
as sizes and the draw pile only as a count. ``admin_view`` adds every hand.

Its inverse lives here too (as OpenSpiel's ``ResampleFromInfostate`` sits with the game):
``state_from_view(view)`` is one core state that shows ``view`` to its seat, and
``resample(view, rng)`` a random one of them, the unseen cards dealt anew; ``Sampler(view)``
rebuilds the public part once for a search that deals many samples.
"""
from __future__ import annotations

import random
from typing import Any

from engine import rules
from engine.cards import CODE_KIND, COLOURS, KIND_CODES, KIND_COUNTS, N_KINDS
from engine.state import (
    PLAYED_KIND_SHIFT,
    PLAYED_SEAT_MASK,
    GameState,
    Options,
    Ship,
    add_to_hand,
    empty_state,
    hand_codes,
    recount_capturable,
)
from engine.view_types import AdminView, LeaderView, PlayerView, PublicView, ShipView, SideView


def table_json(state: GameState) -> list[ShipView]:
    """The public table: each ship, the sides fighting for it, who leads it."""
    return [_ship_json(state, sh) for sh in state.table]


def _ship_json(state: GameState, sh: Ship) -> ShipView:
    cards_of: dict[int, list[str]] = {}
    for p in sh.played:
        cards_of.setdefault(state.side_of[p & PLAYED_SEAT_MASK], []).append(
            KIND_CODES[p >> PLAYED_KIND_SHIFT])
    sides: list[SideView] = []
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
    leader: LeaderView | None = None
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


def _public(state: GameState) -> PublicView:
    n = state.n_seats
    scores, team_scores = _scores(state)
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
        "scores": scores,
        "team_scores": team_scores,
        "winners": rules.winners(state),
    }


def _scores(state: GameState) -> tuple[list[int], list[int] | None]:
    """One public score per seat and side, the same for every reader (R6.3, I5): while the game
    runs the captured gold (the hands are secret), once it is over the final score."""
    if state.finished:
        return rules.scores(state), rules.team_scores(state)
    teams = [state.gold[2 * t] + state.gold[2 * t + 1] for t in range(state.n_sides)] if state.teams else None
    return list(state.gold), teams


def _hand_gold(state: GameState, seat: int) -> list[int]:
    """The gold values of the merchant ships in ``seat``'s hand, sorted."""
    return sorted(int(c[1:]) for c in hand_codes(state, seat) if c[0] == "M")


def _hand_merchants(state: GameState, visible: set[int | None]) -> list[list[int] | None]:
    """``hand_merchants``: the merchant ships in each hand, only for the hands in ``visible``
    (every hand once it is over: they are shown then); ``hand_penalty`` is their sums."""
    n = state.n_seats
    shown = set(range(n)) if state.finished else visible
    return [_hand_gold(state, s) if s in shown else None for s in range(n)]


def _penalties(merchants: list[list[int] | None]) -> list[int | None]:
    return [None if m is None else sum(m) for m in merchants]


def player_view(state: GameState, seat: int) -> PlayerView:
    """JSON-ready view for ``seat``: only what that seat may see (docs/engine-api.md).

    Every score counts only captured gold until the game ends (the hands are secret);
    ``hand_penalty`` gives the viewer's (and partner's) hand cost."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_seats:
        raise ValueError(f"There is no seat {seat!r} in this game.")
    partner = rules.partner_of(state, seat)
    merchants = _hand_merchants(state, {seat, partner})
    return {
        "seat": seat, **_public(state),
        "partner": partner,
        "hand": hand_codes(state, seat),
        "partner_hand": hand_codes(state, partner) if partner is not None else None,
        "legal_moves": rules.legal_moves(state, seat),
        "hand_merchants": merchants,
        "hand_penalty": _penalties(merchants),
    }


def admin_view(state: GameState) -> AdminView:
    """Everything public plus every hand (for admins and tests, never for players)."""
    merchants = _hand_merchants(state, set(range(state.n_seats)))
    return {
        "seat": None, **_public(state),
        "partner": None,
        "hand": [],
        "partner_hand": None,
        "hands": [hand_codes(state, s) for s in range(state.n_seats)],
        "legal_moves": rules.legal_moves(state),
        "hand_merchants": merchants,
        "hand_penalty": _penalties(merchants),
    }


def state_from_view(view: PlayerView) -> GameState:
    """One core state behind a seat's ``view`` (``player_view`` of it for that seat is ``view``):
    the unseen cards dealt in card order, first to the hidden hands, the rest to the pile."""
    sampler = Sampler(view)
    return sampler.deal(sampler.unseen)


def resample(view: PlayerView, rng: random.Random) -> GameState:
    """A random core state behind ``view``: the unseen cards shuffled by ``rng`` and dealt."""
    return Sampler(view).sample(rng)


def _ship_record(ship: ShipView, n_sides: int) -> dict[str, Any]:
    """A view's ship as state_to_json writes it; a pirate's seat is its side's lead seat
    (the core only reads pirates' sides), a captain's or the admiral's is its own."""
    leader = ship["leader"]
    cards = []
    lead = [-1] * n_sides
    for s in ship["sides"]:
        lead[s["side"]] = s["lead_seat"]
        for code in s["cards"]:
            is_leader = leader is not None and code == leader["card"] and s["side"] == leader["side"]
            cards.append([leader["seat"] if leader is not None and is_leader else s["lead_seat"], code])
    hold = ship["on_hold_for"]
    return {"id": ship["id"], "owner": ship["owner"], "value": ship["value"], "cards": cards,
            "lead": lead, "hold": -1 if hold is None else hold}


class Sampler:
    """Determinizations of a seat's view: its public state rebuilt once as a core state (table,
    score piles, own and partner hands, seat to move, options) and the unseen cards (the 78
    minus every card the view shows), dealt into the other sides' hands (sizes from the view)
    and the draw pile, so each deal is one possible truth a search can play out on the core."""

    def __init__(self, view: PlayerView) -> None:
        seat = view["seat"]
        partner = view["partner"]
        st = empty_state(list(view["players"]), bool(view["teams"]),
                         Options.from_json(view["options"]), [])
        if view["to_move"] is not None:  # None once the game is over: nothing left to play
            st.seat = view["to_move"]
        st.version = view["version"]
        seen = [0] * N_KINDS
        shown = [(seat, view["hand"])] + ([(partner, view["partner_hand"] or [])] if partner is not None else [])
        for who, codes in shown:
            for code in codes:
                add_to_hand(st, who, CODE_KIND[code])
                seen[CODE_KIND[code]] += 1
        st.table = [Ship.from_json(_ship_record(s, st.n_sides), st.side_of, st.n_sides)
                    for s in view["table"]]
        st.ships = {sh.id: sh for sh in st.table}
        for s in view["table"]:
            seen[CODE_KIND[f"M{s['value']}"]] += 1
            for side in s["sides"]:
                for code in side["cards"]:
                    seen[CODE_KIND[code]] += 1
        st.score_piles = [list(p) for p in view["score_piles"]]
        st.gold = [sum(p) for p in st.score_piles]
        for pile in st.score_piles:
            for value in pile:
                seen[CODE_KIND[f"M{value}"]] += 1
        st.out = [CODE_KIND[code] for code in view["out_of_game"]]
        for kind in st.out:
            seen[kind] += 1
        # Ships are numbered in play order and never reused (R3.3).
        st.last_ship = len(st.table) + sum(len(p) for p in st.score_piles)
        recount_capturable(st)
        self.template = st
        self.unseen = [k for k in range(N_KINDS) for _ in range(KIND_COUNTS[k] - seen[k])]
        self.hidden_seats = [s for s in range(st.n_seats) if s not in (seat, partner)]
        self.hidden_sizes = [view["hand_sizes"][s] for s in self.hidden_seats]
        self.pile_size = view["draw_pile"]
        if len(self.unseen) != sum(self.hidden_sizes) + self.pile_size or min(
                KIND_COUNTS[k] - seen[k] for k in range(N_KINDS)) < 0:
            raise ValueError("The view does not account for the 78 cards.")

    def sample(self, rng: random.Random) -> GameState:
        """A fresh state: the template with the unseen cards dealt at random."""
        cards = self.unseen[:]
        rng.shuffle(cards)
        return self.deal(cards)

    def deal(self, cards: list[int]) -> GameState:
        """A fresh state: the template with ``cards`` (the unseen ones, in some order) dealt to
        the hidden hands in seat order, the rest left as the draw pile."""
        st = self.template.clone()
        at = 0
        for seat, size in zip(self.hidden_seats, self.hidden_sizes):
            for kind in cards[at:at + size]:
                add_to_hand(st, seat, kind)
            at += size
        st.pile = cards[at:]
        return st
