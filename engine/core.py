"""The rules core: legal moves and move application on ints, in place.

This is the only implementation of the rules. The public API in rules.py
validates, copies the state and translates ints to dicts around it; the bench
and the bots' fast path call it directly. Speed matters here (a random
4-player game must cost well under a millisecond), hence precomputed move
tables, bitmasks and the absence of per-move objects.

A move is an int: ``ship << SHIP_SHIFT | kind``. Ship 0 means "no target": a
merchant kind is played in front of the player, any other kind is discarded.
``DRAW`` draws a card.

Where each rule is decided (shared/korsar-rules.md):

- R3.1, R3.2 what a turn may do: ``legal_moves``; R3.3 ship numbers: ``step``
- R4.1-R4.4 pirates, one colour per side and ship: ``legal_moves``, ``_play_pirate``
- R4.5 captain, R4.6 admiral: ``legal_moves``, ``_play_leader``
- R4.7 the last captain or admiral counts: ``_play_leader``
- R5.1 the capture check: ``start_turn``; R5.1b, R5.2 strictly strongest, ties:
  ``_play_pirate``, ``_retake``
- R5.3 what a capture does: ``_capture``
- R5.4 a team's ship goes to the partner who led: ``_retake`` (``lead_seat``)
- R5.5 an owner wins back an attacked ship like anyone: ``_retake``
- R6.1 the end: ``step``; R6.2 final settlement: ``finish``
- R6.3 scores: ``seat_scores``, ``side_scores``; R6.4 winners: ``winners_of``
- R7 waiting time: ``_play_pirate`` (put on hold), ``start_turn`` (lifted)
"""
from __future__ import annotations

from typing import NamedTuple

from engine.cards import ADMIRAL, CAPTAIN_OFFSET, FIRST_COLOUR_KIND, KIND_COLOUR, \
    KIND_STRENGTH, KIND_VALUE, KINDS_PER_COLOUR, N_MERCHANT_KINDS
from engine.state import ALL_COLOURS, PLAYED_KIND_SHIFT, GameState, Ship, recount_capturable

# ---------------------------------------------------------------- bit layouts
# A move: the target ship above the card kind (kinds 0..27 fit in 5 bits).
SHIP_SHIFT = 5
KIND_MASK = (1 << SHIP_SHIFT) - 1
DRAW = KIND_MASK  # 31: no card kind, no ship
MAX_SHIPS = 25  # R1.1: ship numbers are never reused, so ids stay in 1..25

# A hand's kinds mask has one bit per kind present (cards.py). Its low bits are the
# merchant kinds; shifted down by FIRST_COLOUR_KIND, it is the "colour bits": five
# bits per colour (strengths 1..4, then the captain), then the admiral.
MERCHANT_BITS = (1 << N_MERCHANT_KINDS) - 1
COLOUR_GROUP = (1 << KINDS_PER_COLOUR) - 1  # one colour's pirates and captain
PIRATE_BITS = (1 << CAPTAIN_OFFSET) - 1  # one colour's pirates only
ADMIRAL_BIT = ADMIRAL - FIRST_COLOUR_KIND  # 20, in the colour bits
# Discards are looked up in two tables: the first two colours, then the rest.
DISCARD_LO_BITS = 2 * KINDS_PER_COLOUR
DISCARD_LO_MASK = (1 << DISCARD_LO_BITS) - 1
DISCARD_HI_BITS = ADMIRAL_BIT + 1 - DISCARD_LO_BITS

# TARGET_MOVES index: ship << TARGET_SHIP_SHIFT | colour << TARGET_COLOUR_SHIFT | group,
# where group is a colour's COLOUR_GROUP bits in hand (bit 4: its captain).
TARGET_COLOUR_SHIFT = KINDS_PER_COLOUR
TARGET_SHIP_SHIFT = TARGET_COLOUR_SHIFT + 2  # four colours: 2 bits


# ---------------------------------------------------------------- event records
# What the core appends to ``ev`` when asked; rules.py turns them into Events.
class DrawRecord(NamedTuple):
    seat: int


class MerchantRecord(NamedTuple):
    seat: int
    ship: int
    value: int


class PirateRecord(NamedTuple):
    seat: int
    kind: int
    ship: int
    owner: int
    value: int
    attack: bool  # the ship belongs to another side than the player's


class LeaderRecord(NamedTuple):
    """A captain or the admiral."""

    seat: int
    kind: int
    ship: int
    owner: int
    value: int
    replaced: int  # kind of the captain or admiral it replaced (R4.7), -1 for none
    attack: bool


class DiscardRecord(NamedTuple):
    seat: int
    kind: int


class CaptureRecord(NamedTuple):
    seat: int
    ship: int
    owner: int
    value: int
    settlement: bool  # taken by the final settlement (R6.2)


class HoldRecord(NamedTuple):
    ship: int
    seat: int


class GameOverRecord(NamedTuple):
    pass


# ---------------------------------------------------------------- move tables
def _bits(mask: int) -> tuple[int, ...]:
    return tuple(b for b in range(mask.bit_length()) if mask >> b & 1)


# Merchant plays for each mask of merchant kinds in hand.
MERCHANT_MOVES: tuple[tuple[int, ...], ...] = tuple(_bits(m) for m in range(MERCHANT_BITS + 1))
# Discards for the colour bits of the first two colours, and for the rest.
DISCARD_LO: tuple[tuple[int, ...], ...] = tuple(
    tuple(FIRST_COLOUR_KIND + b for b in _bits(m)) for m in range(1 << DISCARD_LO_BITS))
DISCARD_HI: tuple[tuple[int, ...], ...] = tuple(
    tuple(FIRST_COLOUR_KIND + DISCARD_LO_BITS + b for b in _bits(m))
    for m in range(1 << DISCARD_HI_BITS))
# Plays of one colour on one ship (see TARGET_MOVES index above).
TARGET_MOVES: tuple[tuple[int, ...], ...] = tuple(
    tuple((i >> TARGET_SHIP_SHIFT) << SHIP_SHIFT
          | (FIRST_COLOUR_KIND + KINDS_PER_COLOUR * ((i >> TARGET_COLOUR_SHIFT) & 3) + b)
          for b in _bits(i & COLOUR_GROUP))
    for i in range((MAX_SHIPS + 1) << TARGET_SHIP_SHIFT))
# The colours in a mask of free colours (Ship.free_colours).
COLOURS_OF: tuple[tuple[int, ...], ...] = tuple(_bits(m) for m in range(ALL_COLOURS + 1))


def legal_moves(st: GameState) -> list[int]:
    """Moves of the seat to move, each once, in a fixed order (R3.1).

    Order: draw, merchants, then per ship in table order its pirates, captain
    and admiral, then discards. Empty once the game is over.
    """
    if st.finished:
        return []
    seat = st.seat
    km = st.kinds_mask[seat]
    pile = st.pile
    out = [DRAW] if pile else []
    if km & MERCHANT_BITS:  # R3.2: a merchant ship may always be played
        out += MERCHANT_MOVES[km & MERCHANT_BITS]
    g = km >> FIRST_COLOUR_KIND  # the colour bits
    if g:
        table = st.table
        if table:
            side = st.side_of[seat]
            for sh in table:
                base = sh.id << TARGET_SHIP_SHIFT
                c = sh.colour[side]
                if c >= 0:  # our colour here: its pirates and its captain (R4.2, R4.5)
                    out += TARGET_MOVES[base | c << TARGET_COLOUR_SHIFT
                                        | (g >> KINDS_PER_COLOUR * c) & COLOUR_GROUP]
                else:  # any free colour, pirates only (R4.2, R4.5)
                    for c in COLOURS_OF[sh.free_colours]:
                        m = (g >> KINDS_PER_COLOUR * c) & PIRATE_BITS
                        if m:
                            out += TARGET_MOVES[base | c << TARGET_COLOUR_SHIFT | m]
                if g >> ADMIRAL_BIT and sh.owner == seat:  # R4.6: own ships only
                    out.append(sh.id << SHIP_SHIFT | ADMIRAL)
        if not pile:  # R3.1: discard only once the draw pile is empty
            out += DISCARD_LO[g & DISCARD_LO_MASK]
            out += DISCARD_HI[g >> DISCARD_LO_BITS]
    return out


def step(st: GameState, move: int, ev: list | None = None) -> None:
    """Apply a LEGAL move of the seat to move in place, then end the turn.

    The caller guarantees legality (``move in legal_moves(st)``). After the
    action: the end check (R6.1) and, if the game goes on, the next seat's
    capture check (R5.1). Event records are appended to ``ev`` if given.
    """
    seat = st.seat
    st.version += 1
    st.history.append(move)
    hand = st.hands[seat]
    if move == DRAW:
        kind = st.pile.pop()
        if not hand[kind]:
            st.kinds_mask[seat] |= 1 << kind
        hand[kind] += 1
        st.hand_size[seat] += 1
        if ev is not None:
            ev.append(DrawRecord(seat))
    else:
        kind = move & KIND_MASK
        hand[kind] -= 1
        if not hand[kind]:
            st.kinds_mask[seat] ^= 1 << kind
        st.hand_size[seat] -= 1
        ship_id = move >> SHIP_SHIFT
        if ship_id:
            sh = st.ships[ship_id]
            if KIND_STRENGTH[kind]:
                _play_pirate(st, sh, seat, kind, ev)
            else:
                _play_leader(st, sh, seat, kind, ev)
        elif kind < N_MERCHANT_KINDS:
            st.last_ship = ship_id = st.last_ship + 1  # R3.3: never reused
            sh = Ship(ship_id, seat, KIND_VALUE[kind], st.n_sides)
            st.table.append(sh)
            st.ships[ship_id] = sh
            st.capturable[seat] += 1
            if ev is not None:
                ev.append(MerchantRecord(seat, ship_id, sh.value))
        else:
            st.out.append(kind)
            if ev is not None:
                ev.append(DiscardRecord(seat, kind))
    if not st.pile and 0 in st.hand_size:  # R6.1
        finish(st, ev)
        return
    seat += 1
    if seat == st.n_seats:
        seat = 0
    st.seat = seat
    if st.capturable[seat] or st.holds:
        start_turn(st, ev)


def _play_pirate(st: GameState, sh: Ship, seat: int, kind: int, ev: list | None) -> None:
    side = st.side_of[seat]
    first = sh.colour[side] < 0
    if first:  # R4.2: the side takes this colour on this ship
        colour = KIND_COLOUR[kind]
        sh.colour[side] = colour
        sh.free_colours ^= 1 << colour
        if sh.lead_seat[side] < 0:
            sh.lead_seat[side] = seat  # R5.4: this seat led its side here
    v = sh.strength[side] + KIND_STRENGTH[kind]
    sh.strength[side] = v
    if v > sh.best_strength:
        sh.best_strength = v
        sh.best_side = side
    elif v == sh.best_strength:
        sh.best_side = -1  # R5.2: a tie for the highest strength
    sh.played.append(kind << PLAYED_KIND_SHIFT | seat)
    if ev is not None:
        ev.append(PirateRecord(seat, kind, sh.id, sh.owner, sh.value,
                               st.side_of[sh.owner] != side))
    if first and st.waiting:
        # R7: a side's first pirate here leaves it weaker than the strongest other side
        strongest_other = max(x for s, x in enumerate(sh.strength) if s != side)
        if v < strongest_other:
            _put_on_hold(st, sh, seat, ev)
    _retake(st, sh)


def _play_leader(st: GameState, sh: Ship, seat: int, kind: int, ev: list | None) -> None:
    """A captain (R4.5) or the admiral (R4.6); it replaces the one before (R4.7)."""
    side = st.side_of[seat]
    replaced = sh.leader_kind
    if replaced >= 0:
        sh.played.remove(replaced << PLAYED_KIND_SHIFT | sh.leader_seat)
        st.out.append(replaced)
    if kind == ADMIRAL and sh.lead_seat[side] < 0:
        sh.lead_seat[side] = seat  # R5.4: the owner leads unless the partner already does
    sh.leader_kind = kind
    sh.leader_side = side
    sh.leader_seat = seat
    sh.played.append(kind << PLAYED_KIND_SHIFT | seat)
    if ev is not None:
        ev.append(LeaderRecord(seat, kind, sh.id, sh.owner, sh.value, replaced,
                               st.side_of[sh.owner] != side))
    _retake(st, sh)


def _retake(st: GameState, sh: Ship) -> None:
    """Recompute who would capture the ship, keeping the per-seat counts right.

    R5.1b: the side of the counting captain or admiral, else the strictly strongest
    side; R5.4: of that side, the seat that led it here takes the ship. The owner has
    no other claim once the ship is attacked (R5.5).
    """
    w = sh.leader_side
    if w < 0:
        w = sh.best_side
    taker = sh.lead_seat[w] if w >= 0 else -1  # R5.4
    old = sh.taker
    if taker != old:
        sh.taker = taker
        if sh.hold_for < 0:
            if old >= 0:
                st.capturable[old] -= 1
            if taker >= 0:
                st.capturable[taker] += 1


def _put_on_hold(st: GameState, sh: Ship, seat: int, ev: list | None) -> None:
    """R7: no capture of the ship until ``seat``'s next turn (a later hold replaces it)."""
    if sh.hold_for < 0:
        st.holds += 1
        if sh.taker >= 0:
            st.capturable[sh.taker] -= 1
    sh.hold_for = seat
    if ev is not None:
        ev.append(HoldRecord(sh.id, seat))


def start_turn(st: GameState, ev: list | None = None) -> None:
    """R5.1 for the seat to move: lift its holds (R7), then take what it has won."""
    seat = st.seat
    if st.holds:  # R7: the hold ends at the start of that seat's turn, before the check
        for sh in st.table:
            if sh.hold_for == seat:
                sh.hold_for = -1
                st.holds -= 1
                if sh.taker >= 0:
                    st.capturable[sh.taker] += 1
    if not st.capturable[seat]:
        return
    keep = []
    for sh in st.table:
        if sh.taker == seat and sh.hold_for < 0:
            _capture(st, sh, ev, False)
        else:
            keep.append(sh)
    st.table = keep


def _capture(st: GameState, sh: Ship, ev: list | None, settlement: bool) -> None:
    """R5.3: the merchant ship to the taker's score pile, the rest out of the game."""
    seat = sh.taker
    st.score_piles[seat].append(sh.value)
    st.gold[seat] += sh.value
    if sh.hold_for < 0:
        st.capturable[seat] -= 1
    else:
        st.holds -= 1
    out = st.out
    for p in sh.played:
        out.append(p >> PLAYED_KIND_SHIFT)
    del st.ships[sh.id]
    if ev is not None:
        ev.append(CaptureRecord(seat, sh.id, sh.owner, sh.value, settlement))


def finish(st: GameState, ev: list | None = None) -> None:
    """End of the game (R6.1): final settlement (R6.2), then the winners (R6.4)."""
    st.finished = True
    if st.resolve:
        keep = []
        for sh in st.table:
            if sh.taker >= 0:  # holds no longer count
                _capture(st, sh, ev, True)
            else:
                keep.append(sh)
        st.table = keep
    for sh in st.table:
        sh.hold_for = -1
    recount_capturable(st)
    st.winner_list = winners_of(st)
    if ev is not None:
        ev.append(GameOverRecord())


def seat_scores(st: GameState) -> list[int]:
    """R6.3: gold captured minus gold of the merchant ships still in hand."""
    return [st.gold[s] - sum(h[k] * KIND_VALUE[k] for k in range(N_MERCHANT_KINDS))
            for s, h in enumerate(st.hands)]


def side_scores(st: GameState) -> list[int]:
    """Score per side: per seat alone, per team in team play."""
    per_seat = seat_scores(st)
    if not st.teams:
        return per_seat
    return [per_seat[2 * t] + per_seat[2 * t + 1] for t in range(st.n_sides)]


def winners_of(st: GameState) -> list[int]:
    """R6.4: the sides with the highest score (seats alone, team indices in teams)."""
    scores = side_scores(st)
    best = max(scores)
    return [s for s, v in enumerate(scores) if v == best]
