"""The game state: plain data the rules core changes in place, and its JSON form.

A ``GameState`` is treated as opaque outside the engine except for the
read-only attributes in docs/engine-api.md. Inside, everything the rules
core touches on every move is an int or a list of ints, so a move costs a few
list operations and copying a state is cheap:

- a hand is a list of 28 counts (one per card kind, see cards.py) plus a
  bitmask of the kinds present, which is what legal-move generation reads;
- the draw pile is a list of kinds with the top card at the END (``pop()``);
- each merchant ship on the table is a ``Ship`` with per-side lists.
"""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any

from engine.cards import CODE_KIND, KIND_CODES, KIND_COLOUR, KIND_STRENGTH, N_KINDS
from engine.errors import ConfigError

STATE_FORMAT = 1


class EndSettlement(StrEnum):
    """What happens to the merchant ships still on the table when the game ends (R6.2)."""

    RESOLVE = "resolve"
    """Each goes to whoever would capture it now (the printed rules)."""
    NONE = "none"
    """They score for nobody."""


END_SETTLEMENTS = tuple(EndSettlement)


@dataclass(frozen=True)
class Options:
    """Game options, each field with its choices and its default: the final settlement (R6.2)
    and the waiting-time house rule (R7). Their JSON form is ``to_json``'s, as stored games hold it."""

    end_settlement: EndSettlement = EndSettlement.RESOLVE
    waiting_time: bool = False
    """R7: a ship may wait for the seat that attacked it (2 or 3 players alone)."""

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The options' names, in declaration order: their JSON keys."""
        return tuple(f.name for f in fields(cls))

    def to_json(self) -> dict[str, Any]:
        return {"end_settlement": str(self.end_settlement), "waiting_time": self.waiting_time}

    @classmethod
    def from_json(cls, d: object) -> Options:
        """Options from a JSON object; missing keys take the defaults."""
        if d is None:
            return cls()
        if not isinstance(d, dict):
            raise ConfigError("Options must be an object.")
        unknown = set(d) - set(cls.names())
        if unknown:
            raise ConfigError(f"Unknown option {sorted(unknown)[0]!r}.")
        settlement = d.get("end_settlement", cls.end_settlement)
        waiting = d.get("waiting_time", cls.waiting_time)
        check_settlement(settlement)
        if not isinstance(waiting, bool):
            raise ConfigError(f"waiting_time must be true or false, not {waiting!r}.")
        return cls(EndSettlement(settlement), waiting)


def check_settlement(value: object) -> None:
    """ConfigError unless ``value`` is one of the EndSettlement choices."""
    if value not in END_SETTLEMENTS:
        raise ConfigError(
            f"end_settlement must be \"resolve\" or \"none\", not {value!r}.")


# A card on a ship is one int, ``kind << PLAYED_KIND_SHIFT | seat`` (seats are 0..7).
PLAYED_KIND_SHIFT = 3
PLAYED_SEAT_MASK = (1 << PLAYED_KIND_SHIFT) - 1
ALL_COLOURS = 15  # bitmask of the four colours (bit = colour index, see cards.COLOURS)


class Ship:
    """A merchant ship on the table and the battle around it.

    Lists indexed by side: ``colour`` (the side's one colour here, R4.2; -1 = none
    yet), ``strength`` (skulls of that side's pirates, R4.4), ``lead_seat`` (the seat
    that played the side's first card here, the one who takes the ship for a team,
    R5.4; -1 = none). ``played`` holds ``kind << PLAYED_KIND_SHIFT | seat`` for every
    card on the ship, in play order. ``leader_kind``/``leader_side``/``leader_seat``:
    the captain or admiral that counts (R4.7), -1 for none. ``best_strength`` is the
    highest pirate strength and ``best_side`` the side holding it alone (-1 on a tie,
    R5.2). ``taker`` is the seat a capture check would give the ship to now (-1 =
    nobody), kept up to date after every card; ``hold_for`` the seat the ship waits
    for (R7, -1 = not on hold).
    """

    __slots__ = ("id", "owner", "value", "colour", "free_colours", "strength",
                 "lead_seat", "played", "leader_kind", "leader_side", "leader_seat",
                 "best_strength", "best_side", "taker", "hold_for")

    def __init__(self, ship_id: int, owner: int, value: int, n_sides: int) -> None:
        self.id = ship_id
        self.owner = owner
        self.value = value
        self.colour = [-1] * n_sides
        self.free_colours = ALL_COLOURS  # bitmask of colours no side has here yet
        self.strength = [0] * n_sides
        self.lead_seat = [-1] * n_sides
        self.played: list[int] = []
        self.leader_kind = -1  # kind of the captain or admiral that counts (R4.7)
        self.leader_side = -1
        self.leader_seat = -1
        self.best_strength = 0
        self.best_side = -1
        self.taker = owner  # an unattacked ship goes to its owner (R5.1a)
        self.hold_for = -1  # seat the ship waits for (R7), -1 = not on hold

    def clone(self) -> Ship:
        c = Ship.__new__(Ship)
        c.id = self.id
        c.owner = self.owner
        c.value = self.value
        c.colour = self.colour[:]
        c.free_colours = self.free_colours
        c.strength = self.strength[:]
        c.lead_seat = self.lead_seat[:]
        c.played = self.played[:]
        c.leader_kind = self.leader_kind
        c.leader_side = self.leader_side
        c.leader_seat = self.leader_seat
        c.best_strength = self.best_strength
        c.best_side = self.best_side
        c.taker = self.taker
        c.hold_for = self.hold_for
        return c

    @property
    def winner(self) -> int:
        """Side that would capture the ship now (R5.1b), -1 for none."""
        return self.leader_side if self.leader_side >= 0 else self.best_side

    def key(self) -> tuple:
        return (self.id, self.owner, self.value, tuple(self.lead_seat), tuple(self.played),
                self.hold_for)

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "owner": self.owner, "value": self.value,
                "cards": [[p & PLAYED_SEAT_MASK, KIND_CODES[p >> PLAYED_KIND_SHIFT]]
                          for p in self.played],
                "lead": self.lead_seat[:], "hold": self.hold_for}

    @classmethod
    def from_json(cls, d: dict[str, Any], side_of: tuple[int, ...], n_sides: int) -> Ship:
        """Rebuild a ship; everything but cards, leads and hold is derived again."""
        sh = cls(int(d["id"]), int(d["owner"]), int(d["value"]), n_sides)
        sh.lead_seat = [int(x) for x in d["lead"]]
        sh.hold_for = int(d["hold"])
        for seat, code in d["cards"]:
            kind = CODE_KIND[code]
            side = side_of[seat]
            sh.played.append(kind << PLAYED_KIND_SHIFT | seat)
            if KIND_STRENGTH[kind]:
                colour = KIND_COLOUR[kind]
                sh.colour[side] = colour
                sh.free_colours &= ~(1 << colour)
                sh.strength[side] += KIND_STRENGTH[kind]
            else:
                sh.leader_kind, sh.leader_side, sh.leader_seat = kind, side, seat
        best = max(sh.strength)
        sh.best_strength = best
        holders = [s for s, v in enumerate(sh.strength) if v == best]
        sh.best_side = holders[0] if best > 0 and len(holders) == 1 else -1
        w = sh.winner
        sh.taker = sh.owner if not sh.played else (sh.lead_seat[w] if w >= 0 else -1)
        return sh


@dataclass(eq=False, repr=False, slots=True)
class GameState:
    """One game of Korsar. Read-only outside the engine (see docs/engine-api.md)."""

    players: list[str]
    teams: bool
    options: Options
    deck: list[str]
    version: int = 0
    seat: int = 0  # seat whose turn it is (kept after the end; see to_move)
    finished: bool = False
    n_seats: int = 0
    n_sides: int = 0
    side_of: tuple[int, ...] = ()
    hands: list[list[int]] = field(default_factory=list)
    kinds_mask: list[int] = field(default_factory=list)
    hand_size: list[int] = field(default_factory=list)
    pile: list[int] = field(default_factory=list)
    table: list[Ship] = field(default_factory=list)
    ships: dict[int, Ship] = field(default_factory=dict)
    last_ship: int = 0
    score_piles: list[list[int]] = field(default_factory=list)
    gold: list[int] = field(default_factory=list)
    out: list[int] = field(default_factory=list)  # kinds out of the game
    history: list[int] = field(default_factory=list)  # moves as core ints
    winner_list: list[int] = field(default_factory=list)
    holds: int = 0  # number of ships on hold
    capturable: list[int] = field(default_factory=list)  # per seat: unheld ships it would take
    waiting: bool = False
    resolve: bool = True

    @property
    def to_move(self) -> int | None:
        """Seat whose turn it is, None once the game is over."""
        return None if self.finished else self.seat

    def clone(self) -> GameState:
        """An independent copy (what the public apply_move changes)."""
        table = [sh.clone() for sh in self.table]
        return GameState(
            self.players[:], self.teams, self.options, self.deck, self.version, self.seat,
            self.finished, self.n_seats, self.n_sides, self.side_of,
            [h[:] for h in self.hands], self.kinds_mask[:], self.hand_size[:], self.pile[:],
            table, {sh.id: sh for sh in table}, self.last_ship,
            [p[:] for p in self.score_piles], self.gold[:], self.out[:], self.history[:],
            self.winner_list[:], self.holds, self.capturable[:], self.waiting, self.resolve)

    def key(self) -> tuple:
        """Everything that makes the state what it is (derived fields left out)."""
        return (tuple(self.players), self.teams, self.options, tuple(self.deck), self.version,
                self.seat, self.finished, tuple(map(tuple, self.hands)), tuple(self.pile),
                tuple(sh.key() for sh in self.table), self.last_ship,
                tuple(map(tuple, self.score_piles)), tuple(self.out), tuple(self.history),
                tuple(self.winner_list))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return NotImplemented
        return self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable on purpose

    def __repr__(self) -> str:
        return (f"GameState(players={self.players!r}, teams={self.teams}, version={self.version}, "
                f"to_move={self.to_move}, finished={self.finished})")


def empty_state(players: list[str], teams: bool, options: Options, deck: list[str]) -> GameState:
    """A state with the seats set up and nothing dealt."""
    n = len(players)
    side_of = tuple(s // 2 for s in range(n)) if teams else tuple(range(n))
    return GameState(
        players=list(players), teams=teams, options=options, deck=list(deck),
        n_seats=n, n_sides=(n // 2 if teams else n), side_of=side_of,
        hands=[[0] * N_KINDS for _ in range(n)], kinds_mask=[0] * n, hand_size=[0] * n,
        score_piles=[[] for _ in range(n)], gold=[0] * n, capturable=[0] * n,
        waiting=options.waiting_time, resolve=options.end_settlement == EndSettlement.RESOLVE)


def hand_codes(state: GameState, seat: int) -> list[str]:
    """The seat's hand as sorted card codes."""
    hand = state.hands[seat]
    return sorted(KIND_CODES[k] for k in range(N_KINDS) for _ in range(hand[k]))


def add_to_hand(state: GameState, seat: int, kind: int) -> None:
    hand = state.hands[seat]
    if not hand[kind]:
        state.kinds_mask[seat] |= 1 << kind
    hand[kind] += 1
    state.hand_size[seat] += 1


def recount_capturable(state: GameState) -> None:
    """Rebuild the per-seat count of unheld ships each seat would take."""
    counts = [0] * state.n_seats
    holds = 0
    for sh in state.table:
        if sh.hold_for >= 0:
            holds += 1
        elif sh.taker >= 0:
            counts[sh.taker] += 1
    state.capturable = counts
    state.holds = holds


def state_to_json(state: GameState) -> dict[str, Any]:
    """The whole state as JSON-ready data (secret parts included: store it server-side)."""
    return {
        "format": STATE_FORMAT,
        "players": list(state.players),
        "teams": state.teams,
        "options": state.options.to_json(),
        "deck": list(state.deck),
        "version": state.version,
        "seat": state.seat,
        "finished": state.finished,
        "hands": [hand_codes(state, s) for s in range(state.n_seats)],
        "draw_pile": [KIND_CODES[k] for k in reversed(state.pile)],  # top card first
        "table": [sh.to_json() for sh in state.table],
        "last_ship": state.last_ship,
        "score_piles": [list(p) for p in state.score_piles],
        "out": [KIND_CODES[k] for k in state.out],
        "history": list(state.history),
        "winners": list(state.winner_list),
    }


def state_from_json(d: dict[str, Any]) -> GameState:
    """Inverse of state_to_json: ``state_from_json(state_to_json(s)) == s``."""
    if not isinstance(d, dict) or d.get("format") != STATE_FORMAT:
        raise ConfigError("Not a Korsar game state (unknown format).")
    options = Options.from_json(d["options"])
    st = empty_state(list(d["players"]), bool(d["teams"]), options, list(d["deck"]))
    st.version = int(d["version"])
    st.seat = int(d["seat"])
    st.finished = bool(d["finished"])
    for seat, codes in enumerate(d["hands"]):
        for code in codes:
            add_to_hand(st, seat, CODE_KIND[code])
    st.pile = [CODE_KIND[c] for c in reversed(d["draw_pile"])]
    st.table = [Ship.from_json(x, st.side_of, st.n_sides) for x in d["table"]]
    st.ships = {sh.id: sh for sh in st.table}
    st.last_ship = int(d["last_ship"])
    st.score_piles = [[int(v) for v in p] for p in d["score_piles"]]
    st.gold = [sum(p) for p in st.score_piles]
    st.out = [CODE_KIND[c] for c in d["out"]]
    st.history = [int(m) for m in d["history"]]
    st.winner_list = [int(w) for w in d["winners"]]
    recount_capturable(st)
    return st

