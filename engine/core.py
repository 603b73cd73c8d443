"""The rules core: legal moves and move application on ints, in place.

This is the only implementation of the rules. The public API in rules.py
validates, copies the state and translates ints to dicts around it; the bench
and the bots' fast path call it directly. Speed matters here (a random
4-player game must cost well under a millisecond), hence precomputed move
tables, bitmasks and the absence of per-move objects.

A move is an int: ``ship << 5 | kind``. Ship 0 means "no target": a merchant
kind is played in front of the player, any other kind is discarded.
``DRAW`` (31) draws a card.
"""
from __future__ import annotations

from engine.cards import ADMIRAL, KIND_COLOUR, KIND_STRENGTH, KIND_VALUE, N_MERCHANT_KINDS
from engine.state import GameState, Ship, recount_capturable

DRAW = 31
MAX_SHIPS = 25  # R1.1: ship numbers are never reused, so ids stay in 1..25

# Event records (tuples) the core appends when asked; rules.py turns them into Events.
E_DRAW, E_MERCHANT, E_PIRATE, E_CAPTAIN, E_ADMIRAL, E_DISCARD, E_CAPTURE, E_HOLD, E_OVER = \
    range(9)


def _bits(mask: int) -> tuple[int, ...]:
    return tuple(b for b in range(mask.bit_length()) if mask >> b & 1)


# Merchant plays for each 7-bit mask of merchant kinds in hand.
MERCHANT_MOVES: tuple[tuple[int, ...], ...] = tuple(_bits(m) for m in range(128))
# Discards for the non-merchant kinds 7..16 and 17..27 present in hand.
DISCARD_LO: tuple[tuple[int, ...], ...] = tuple(
    tuple(7 + b for b in _bits(m)) for m in range(1 << 10))
DISCARD_HI: tuple[tuple[int, ...], ...] = tuple(
    tuple(17 + b for b in _bits(m)) for m in range(1 << 11))
# Plays of one colour on one ship: index ship << 7 | colour << 5 | mask, where the
# mask's bits 0..3 are the strengths 1..4 in hand and bit 4 the captain.
TARGET_MOVES: tuple[tuple[int, ...], ...] = tuple(
    tuple((i >> 7) << 5 | (7 + 5 * ((i >> 5) & 3) + b) for b in _bits(i & 31))
    for i in range((MAX_SHIPS + 1) << 7))
COLOURS_OF: tuple[tuple[int, ...], ...] = tuple(_bits(m) for m in range(16))


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
    if km & 127:
        out += MERCHANT_MOVES[km & 127]
    g = km >> 7  # bits 0..19: five kinds per colour; bit 20: the admiral
    if g:
        table = st.table
        if table:
            side = st.side_of[seat]
            for sh in table:
                base = sh.id << 7
                c = sh.colour[side]
                if c >= 0:  # our colour here: its pirates and its captain
                    out += TARGET_MOVES[base | c << 5 | (g >> 5 * c) & 31]
                else:  # any free colour, pirates only (R4.2, R4.5)
                    for c in COLOURS_OF[sh.free]:
                        m = (g >> 5 * c) & 15
                        if m:
                            out += TARGET_MOVES[base | c << 5 | m]
                if g >> 20 and sh.owner == seat:
                    out.append(sh.id << 5 | ADMIRAL)
        if not pile:
            out += DISCARD_LO[g & 1023]
            out += DISCARD_HI[g >> 10]
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
            ev.append((E_DRAW, seat))
    else:
        kind = move & 31
        hand[kind] -= 1
        if not hand[kind]:
            st.kinds_mask[seat] ^= 1 << kind
        st.hand_size[seat] -= 1
        ship_id = move >> 5
        if ship_id:
            sh = st.ships[ship_id]
            if KIND_STRENGTH[kind]:
                _play_pirate(st, sh, seat, kind, ev)
            else:
                _play_leader(st, sh, seat, kind, ev)
        elif kind < N_MERCHANT_KINDS:
            st.last_ship = ship_id = st.last_ship + 1
            sh = Ship(ship_id, seat, KIND_VALUE[kind], st.n_sides)
            st.table.append(sh)
            st.ships[ship_id] = sh
            st.capturable[seat] += 1
            if ev is not None:
                ev.append((E_MERCHANT, seat, ship_id, sh.value))
        else:
            st.out.append(kind)
            if ev is not None:
                ev.append((E_DISCARD, seat, kind))
    if not st.pile and 0 in st.hand_size:
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
        sh.free ^= 1 << colour
        if sh.lead[side] < 0:
            sh.lead[side] = seat
    v = sh.strength[side] + KIND_STRENGTH[kind]
    sh.strength[side] = v
    if v > sh.best:
        sh.best = v
        sh.pwin = side
    elif v == sh.best:
        sh.pwin = -1  # R5.2: a tie for the highest strength
    sh.played.append(kind << 3 | seat)
    if ev is not None:
        ev.append((E_PIRATE, seat, kind, sh.id, sh.owner, sh.value))
    if first and st.waiting:
        strongest_other = max(x for s, x in enumerate(sh.strength) if s != side)
        if v < strongest_other:
            _put_on_hold(st, sh, seat, ev)
    _retake(st, sh)


def _play_leader(st: GameState, sh: Ship, seat: int, kind: int, ev: list | None) -> None:
    """A captain (R4.5) or the admiral (R4.6); it replaces the one before (R4.7)."""
    side = st.side_of[seat]
    replaced = sh.leader
    if replaced >= 0:
        played = sh.played
        played.remove(replaced << 3 | sh.leader_seat)
        st.out.append(replaced)
    if kind == ADMIRAL and sh.lead[side] < 0:
        sh.lead[side] = seat
    sh.leader = kind
    sh.leader_side = side
    sh.leader_seat = seat
    sh.played.append(kind << 3 | seat)
    if ev is not None:
        ev.append((E_ADMIRAL if kind == ADMIRAL else E_CAPTAIN, seat, kind, sh.id, sh.owner,
                   sh.value, replaced))
    _retake(st, sh)


def _retake(st: GameState, sh: Ship) -> None:
    """Recompute who would capture the ship, keeping the per-seat counts right."""
    w = sh.leader_side
    if w < 0:
        w = sh.pwin
    taker = sh.lead[w] if w >= 0 else -1
    old = sh.taker
    if taker != old:
        sh.taker = taker
        if sh.hold < 0:
            if old >= 0:
                st.capturable[old] -= 1
            if taker >= 0:
                st.capturable[taker] += 1


def _put_on_hold(st: GameState, sh: Ship, seat: int, ev: list | None) -> None:
    if sh.hold < 0:
        st.holds += 1
        if sh.taker >= 0:
            st.capturable[sh.taker] -= 1
    sh.hold = seat
    if ev is not None:
        ev.append((E_HOLD, sh.id, seat))


def start_turn(st: GameState, ev: list | None = None) -> None:
    """R5.1 for the seat to move: lift its holds (R7), then take what it has won."""
    seat = st.seat
    if st.holds:
        for sh in st.table:
            if sh.hold == seat:
                sh.hold = -1
                st.holds -= 1
                if sh.taker >= 0:
                    st.capturable[sh.taker] += 1
    if not st.capturable[seat]:
        return
    keep = []
    for sh in st.table:
        if sh.taker == seat and sh.hold < 0:
            _capture(st, sh, ev, False)
        else:
            keep.append(sh)
    st.table = keep


def _capture(st: GameState, sh: Ship, ev: list | None, settlement: bool) -> None:
    """R5.3: the merchant ship to the taker's score pile, the rest out of the game."""
    seat = sh.taker
    st.score_piles[seat].append(sh.value)
    st.gold[seat] += sh.value
    if sh.hold < 0:
        st.capturable[seat] -= 1
    else:
        st.holds -= 1
    out = st.out
    for p in sh.played:
        out.append(p >> 3)
    del st.ships[sh.id]
    if ev is not None:
        ev.append((E_CAPTURE, seat, sh.id, sh.owner, sh.value, settlement))


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
        sh.hold = -1
    recount_capturable(st)
    st.winner_list = winners_of(st)
    if ev is not None:
        ev.append((E_OVER,))


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

