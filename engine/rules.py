"""The public rules API: new_game, legal_moves, check_move, apply_move, scores.

Thin wrappers over core.py, which alone decides what is legal and what a move
does. Here: argument checks, readable refusals, copying (apply_move is pure)
and the translation of the core's ints and event records to dicts and Events.
"""
from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from engine import core
from engine.cards import ADMIRAL, CODE_KIND, COLOURS, FULL_DECK, KIND_CODES, KIND_COLOUR, \
    KIND_IS_CAPTAIN, N_MERCHANT_KINDS, validate_deck
from engine.errors import ConfigError, IllegalMove
from engine.events import Event
from engine.moves import NO_SHIP, decode, encode, normalize_move
from engine.state import GameState, Options, check_settlement, empty_state
from engine.text import card_name

HAND_SIZE = 6  # R2.1


DEFAULT_OPTIONS = Options()  # frozen: one shared default is safe


def shuffled_deck(rng: random.Random) -> list[str]:
    """The 78 cards in the order ``rng`` shuffles them, for ``new_game(deck=...)``.

    ``new_game(seed=s)`` deals ``shuffled_deck(random.Random(s))``. A live game should pass an
    unpredictable ``rng`` (the service uses ``random.SystemRandom()``): a seed of a few bits can
    be found again from one player's hand, and it gives away every hand and the draw pile.
    """
    order = list(FULL_DECK)
    rng.shuffle(order)
    return order


def check_config(n_players: int, teams: bool, options: Options) -> None:
    """R2.3 and R7: raise ConfigError for a combination the rules refuse."""
    if teams:
        if n_players not in (4, 6, 8):
            raise ConfigError(f"Team play needs 4, 6 or 8 players, not {n_players}.")
    elif not 2 <= n_players <= 5:
        raise ConfigError(
            f"Korsar is played by 2 to 5 players alone (or 4, 6 or 8 in teams), "
            f"not by {n_players}.")
    if not isinstance(options, Options):
        raise ConfigError("options must be an engine.Options.")
    check_settlement(options.end_settlement)
    if not isinstance(options.waiting_time, bool):
        raise ConfigError("waiting_time must be true or false.")
    if options.waiting_time and (teams or n_players not in (2, 3)):
        raise ConfigError("The waiting time is only for games of 2 or 3 players alone.")


def new_game(players: Sequence[str], *, teams: bool = False, options: Options = DEFAULT_OPTIONS,
             seed: int | None = None, deck: Sequence[str] | None = None) -> GameState:
    """A new game, dealt from ``random.Random(seed)`` or from an explicit deck (R2.1, R2.2)."""
    if isinstance(players, str) or not isinstance(players, Sequence) or \
            not all(isinstance(p, str) for p in players):
        raise ConfigError("players must be a list of names.")
    if not isinstance(teams, bool):
        raise ConfigError("teams must be true or false.")
    if isinstance(options, dict):
        options = Options.from_json(options)
    check_config(len(players), teams, options)
    if (seed is None) == (deck is None):
        raise ConfigError("Give exactly one of a seed or a deck.")
    if deck is None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ConfigError(f"The seed must be an integer, not {seed!r}.")
        order = shuffled_deck(random.Random(seed))
    else:
        order = validate_deck(deck)
    st = empty_state(list(players), teams, options, order)
    kinds = [CODE_KIND[c] for c in order]
    for seat in range(len(players)):
        hand = st.hands[seat]
        mask = 0
        for kind in kinds[HAND_SIZE * seat:HAND_SIZE * (seat + 1)]:
            hand[kind] += 1
            mask |= 1 << kind
        st.kinds_mask[seat] = mask
        st.hand_size[seat] = HAND_SIZE
    st.pile = kinds[:HAND_SIZE * len(players) - 1:-1]  # top card last
    core.start_turn(st)  # seat 0's capture check: nothing to take yet
    return st


# ---------------------------------------------------------------- reading


def legal_moves(state: GameState, seat: int | None = None) -> list[dict[str, Any]]:
    """Moves of ``seat`` (default: the seat to move), each once, in a fixed order."""
    if seat is not None and seat != state.to_move:
        return []
    return [decode(m) for m in core.legal_moves(state)]


def check_move(state: GameState, seat: int, move: object) -> None:
    """Raise IllegalMove (a sentence for the player) unless ``seat`` may play ``move`` now."""
    _checked_int(state, seat, move)


def is_legal(state: GameState, seat: int, move: object) -> bool:
    try:
        _checked_int(state, seat, move)
    except IllegalMove:
        return False
    return True


def scores(state: GameState) -> list[int]:
    """Per seat: gold captured minus gold in hand (R6.3), also while the game runs."""
    return core.seat_scores(state)


def team_scores(state: GameState) -> list[int] | None:
    """Per team in team play (R6.3), None in individual play."""
    return core.side_scores(state) if state.teams else None


def winners(state: GameState) -> list[int]:
    """R6.4: winning seats (individual) or team indices (teams); [] while running."""
    return list(state.winner_list) if state.finished else []


def team_of(state: GameState, seat: int) -> int | None:
    return seat // 2 if state.teams else None


def partner_of(state: GameState, seat: int) -> int | None:
    return seat ^ 1 if state.teams else None


# ---------------------------------------------------------------- changing


def apply_move(state: GameState, seat: int, move: object) -> tuple[GameState, list[Event]]:
    """A NEW state after ``seat`` plays ``move``, with the next capture check done,
    and the events it caused. Raises IllegalMove and changes nothing if illegal."""
    m = _checked_int(state, seat, move)
    new = state.clone()
    records: list = []
    core.step(new, m, records)
    return new, [_event(new, r) for r in records]


def _checked_int(state: GameState, seat: int, move: object) -> int:
    nm = normalize_move(move)
    if state.finished:
        raise IllegalMove("The game is over.", "game_over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.n_seats:
        raise IllegalMove(f"There is no seat {seat!r} in this game.", "no_such_seat", {"seat": repr(seat)})
    if seat != state.seat:
        raise IllegalMove(f"It is {state.players[state.seat]}'s turn, not yours.", "not_your_turn",
                          {"to_move": state.seat, "player": state.players[state.seat]})
    m = encode(nm)
    if m == NO_SHIP or m not in core.legal_moves(state):
        raise _explain(state, seat, nm)
    return m


def _explain(st: GameState, seat: int, move: dict[str, Any]) -> IllegalMove:
    """Why the core refuses a well-formed move of the seat to move: the English sentence, its
    code and the parameters it names (docs/engine-api.md lists the codes)."""
    action = move["action"]
    if action == "draw":
        return IllegalMove("The draw pile is empty: play or discard a card instead.", "draw_pile_empty")
    code = move["card"]
    kind = CODE_KIND[code]
    if not st.hands[seat][kind]:
        return IllegalMove(f"You have no {card_name(code)} in your hand.", "not_in_hand", {"card": code})
    if action == "discard":
        if kind < N_MERCHANT_KINDS:
            return IllegalMove("A merchant ship cannot be discarded: play it in front of you instead.",
                               "merchant_discard", {"card": code})
        return IllegalMove("You may discard only when the draw pile is empty.", "discard_too_early",
                           {"card": code})
    target = move["target"]
    ship = st.ships.get(target)
    if ship is None:
        return IllegalMove(f"There is no ship {target} on the table.", "no_such_ship", {"ship": target})
    you = "Your team" if st.teams else "You"
    side = st.side_of[seat]
    where = f"ship {target}"
    teams = st.teams
    if code == "AD":
        return IllegalMove(f"The Admiral may only be played on your own ship; {where} is "
                           f"{st.players[ship.owner]}'s.", "admiral_not_own_ship",
                           {"ship": target, "owner": ship.owner, "owner_name": st.players[ship.owner]})
    colour_word = COLOURS[KIND_COLOUR[kind]]
    colour = colour_word.capitalize()
    own_colour = ship.colour[side]
    if KIND_IS_CAPTAIN[kind]:
        have = "your team has" if teams else "you have"
        return IllegalMove(f"The {colour} captain may only join {colour} pirates: "
                           f"{have} no {colour} pirate on {where}.", "captain_without_pirate",
                           {"card": code, "colour": colour_word, "ship": target, "teams": teams})
    if own_colour >= 0:
        mine = COLOURS[own_colour].capitalize()
        fights = "fights" if teams else "fight"
        return IllegalMove(f"{you} already {fights} for {where} with {mine}: play {mine} there.",
                           "keep_your_colour", {"card": code, "ship": target,
                                                "colour": COLOURS[own_colour], "teams": teams})
    return IllegalMove(f"{colour} is already fighting for {where}: attack it with another colour.",
                       "colour_taken", {"card": code, "colour": colour_word, "ship": target})


def _event(st: GameState, r: Any) -> Event:  # r: one of core.*Record, dispatched on type(r)
    """An Event from one of the core's event records."""
    t = type(r)
    if t is core.DrawRecord:
        return Event("draw", seat=r.seat)
    if t is core.MerchantRecord:
        return Event("merchant", seat=r.seat, ship=r.ship, value=r.value)
    if t is core.PirateRecord:
        return Event("pirate", seat=r.seat, card=KIND_CODES[r.kind], ship=r.ship, owner=r.owner,
                     value=r.value, attack=r.attack)
    if t is core.LeaderRecord:
        return Event("admiral" if r.kind == ADMIRAL else "captain", seat=r.seat,
                     card=KIND_CODES[r.kind], ship=r.ship, owner=r.owner, value=r.value,
                     replaced=KIND_CODES[r.replaced] if r.replaced >= 0 else None,
                     attack=r.attack)
    if t is core.DiscardRecord:
        return Event("discard", seat=r.seat, card=KIND_CODES[r.kind])
    if t is core.CaptureRecord:
        return Event("capture", seat=r.seat, ship=r.ship, owner=r.owner, value=r.value,
                     settlement=r.settlement)
    if t is core.HoldRecord:
        return Event("hold", ship=r.ship, seat=r.seat)
    ts = team_scores(st)
    return Event("game_over", scores=tuple(scores(st)),
                 team_scores=tuple(ts) if ts is not None else None,
                 winners=tuple(winners(st)))
