"""Determinizations: full core states consistent with one seat's view.

A bot sees a view, never the state. ``Sampler(view)`` rebuilds the public part
of the game as a core state once (table, score piles, own and partner hands,
seat to move, options) and works out the unseen cards: the 78 cards minus every
card the view shows (own and partner hands, the table, score piles and the cards
out of the game). ``sample(rng)`` deals those unseen cards at random into the
other sides' hands (sizes from the view) and the draw pile, so each sample is
one possible truth the search can play out on the fast core.
"""
from __future__ import annotations

import random
from typing import Any

from engine.cards import CODE_KIND, KIND_COUNTS, N_KINDS
from engine.state import GameState, Options, Ship, add_to_hand, empty_state, recount_capturable


def _ship_record(ship: dict[str, Any], n_sides: int) -> dict[str, Any]:
    """A view's ship as state_to_json writes it; a pirate's seat is its side's lead seat
    (the core only reads pirates' sides), a captain's or the admiral's is its own."""
    leader = ship["leader"]
    cards = []
    lead = [-1] * n_sides
    for s in ship["sides"]:
        lead[s["side"]] = s["lead_seat"]
        for code in s["cards"]:
            is_leader = leader is not None and code == leader["card"] and s["side"] == leader["side"]
            cards.append([leader["seat"] if is_leader else s["lead_seat"], code])
    hold = ship["on_hold_for"]
    return {"id": ship["id"], "owner": ship["owner"], "value": ship["value"], "cards": cards,
            "lead": lead, "hold": -1 if hold is None else hold}


class Sampler:
    """The public state of ``view`` and random deals of the cards it does not show."""

    def __init__(self, view: dict[str, Any]) -> None:
        seat = view["seat"]
        partner = view["partner"]
        st = empty_state(list(view["players"]), bool(view["teams"]),
                         Options.from_json(view["options"]), [])
        st.seat = view["to_move"]
        st.version = view["version"]
        seen = [0] * N_KINDS
        for who, codes in ((seat, view["hand"]), (partner, view["partner_hand"] or [])):
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
        st = self.template.clone()
        cards = self.unseen[:]
        rng.shuffle(cards)
        at = 0
        for seat, size in zip(self.hidden_seats, self.hidden_sizes):
            for kind in cards[at:at + size]:
                add_to_hand(st, seat, kind)
            at += size
        st.pile = cards[at:]
        return st
