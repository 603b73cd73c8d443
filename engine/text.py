"""Human text in English for cards, moves and events.

Colours are always written out, never shown by colour alone, for
colour-blind players.
"""
from __future__ import annotations

from typing import Any

from engine.cards import CODE_KIND, COLOURS, COLOUR_LETTERS
from engine.view_types import AnyView

_COLOUR_OF_LETTER = {letter: COLOURS[i].capitalize() for i, letter in enumerate(COLOUR_LETTERS)}


def card_name(code: str) -> str:
    """The English name: "B3" -> "Blue 3", "BC" -> "Blue captain", "AD" -> "Admiral",
    "M5" -> "Merchant ship (5 gold)"."""
    if code not in CODE_KIND:
        raise ValueError(f"Unknown card code {code!r}.")
    if code == "AD":
        return "Admiral"
    if code[0] == "M":
        return f"Merchant ship ({code[1:]} gold)"
    colour = _COLOUR_OF_LETTER[code[0]]
    return f"{colour} captain" if code[1] == "C" else f"{colour} {code[1]}"


def _ship_phrase(ship_id: int | None, owner: int | None, value: int | None, players: list[str],
                 viewer: int | None, actor: int | None = None) -> str:
    """"your ship 3 (5 gold)", "Bob's ship 3 (5 gold)"; the ship of the sentence's subject
    (``actor``, another player) "their own ship 3": never "Bob played Blue 3 on Bob's ship 3"."""
    if owner is None:
        return f"ship {ship_id}"
    whose = "your" if owner == viewer else "their own" if owner == actor else f"{players[owner]}'s"
    gold = f" ({value} gold)" if value is not None else ""
    return f"{whose} ship {ship_id}{gold}"


def describe_move(move: dict[str, Any], view: AnyView) -> str:
    """The move in words from the point of view of ``view["seat"]``.

    "Draw a card", "Play your merchant ship (5 gold)", "Attack Bob's ship 3 (5 gold)
    with Blue 3", "Defend your ship 3 (5 gold) with Blue 3", "Play the Blue captain on
    Bob's ship 3 (5 gold)", "Play the Admiral on your ship 3 (5 gold)", "Discard Green 1".
    """
    action = move.get("action")
    if action == "draw":
        return "Draw a card"
    code = move.get("card", "")
    if action == "discard":
        return f"Discard {card_name(code)}"
    if code.startswith("M"):
        return f"Play your merchant ship ({code[1:]} gold)"
    target = move.get("target")
    seat = view.get("seat")
    ship = next((s for s in view.get("table", []) if s.get("id") == target), None)
    owner = ship["owner"] if ship else None
    where = _ship_phrase(target, owner, ship["value"] if ship else None,
                         view.get("players", []), seat)
    if code == "AD":
        return f"Play the Admiral on {where}"
    if code[1] == "C":
        return f"Play the {card_name(code)} on {where}"
    defending = owner is not None and (owner == seat or owner == view.get("partner"))
    return f"{'Defend' if defending else 'Attack'} {where} with {card_name(code)}"


def describe_event(event: Any, players: list[str], viewer: int | None) -> str:
    """One sentence for an Event (or its JSON dict), addressed to seat ``viewer``."""
    from engine.events import Event  # late import: events is plain data, text is leaf-level

    ev: Any = Event.from_json(event) if isinstance(event, dict) else event

    def who(seat: int | None) -> str:
        return "You" if seat == viewer else players[seat] if seat is not None else "Nobody"

    def ship() -> str:
        return _ship_phrase(ev.ship, ev.owner, ev.value, players, viewer, ev.seat)

    kind = ev.kind
    if kind == "draw":
        return f"{who(ev.seat)} drew a card."
    if kind == "merchant":
        return f"{who(ev.seat)} played a merchant ship: ship {ev.ship} ({ev.value} gold)."
    if kind == "pirate":
        return f"{who(ev.seat)} played {card_name(ev.card)} on {ship()}."
    if kind in ("captain", "admiral"):
        name = "the Admiral" if kind == "admiral" else f"the {card_name(ev.card)}"
        owner = ev.owner if ev.owner is not None else ev.seat
        where = _ship_phrase(ev.ship, owner, ev.value, players, viewer, ev.seat)
        text = f"{who(ev.seat)} played {name} on {where}."
        if ev.replaced:
            replaced = "The Admiral" if ev.replaced == "AD" else f"The {card_name(ev.replaced)}"
            text += f" {replaced} it replaces is out of the game."
        return text
    if kind == "discard":
        return f"{who(ev.seat)} discarded {card_name(ev.card)}."
    if kind == "capture":
        prefix = "Final settlement: " if ev.settlement else ""
        if ev.seat == ev.owner:
            if ev.seat == viewer:
                return (f"{prefix}Your ship {ev.ship} ({ev.value} gold) came home safely: "
                        f"you score {ev.value} gold.")
            return (f"{prefix}{players[ev.seat]}'s ship {ev.ship} ({ev.value} gold) came home "
                    f"safely, scoring {ev.value} gold.")
        return f"{prefix}{who(ev.seat)} captured {ship()}."
    if kind == "hold":
        until = "your" if ev.seat == viewer else f"{players[ev.seat]}'s"
        return f"Ship {ev.ship} is on hold until {until} next turn."
    if kind == "game_over":
        return _game_over_text(ev, players, viewer)
    raise ValueError(f"Unknown event kind {kind!r}.")


def _game_over_text(ev: Any, players: list[str], viewer: int | None) -> str:
    scores = list(ev.scores or ())
    if ev.team_scores is not None:
        names = [f"{players[2 * t]} and {players[2 * t + 1]}" for t in range(len(ev.team_scores))]
        totals = list(ev.team_scores)
    else:
        names = ["you" if s == viewer else players[s] for s in range(len(scores))]
        totals = scores
    table = ", ".join(f"{names[i]} {totals[i]}" for i in range(len(totals)))
    winners = [names[w] for w in ev.winners or ()]
    if len(winners) == 1:
        verdict = "You won" if winners[0] == "you" else f"{winners[0]} won"
    else:
        verdict = (", ".join(winners[:-1]) + " and " + winners[-1]) + " share the win"  # "A, B and C"
        if verdict.startswith("you"):
            verdict = "Y" + verdict[1:]
    return f"The game is over. Final gold: {table}. {verdict}."


def winner_names(game: Any, names: list[str] | None = None) -> list[str]:
    """The winners in words, from a GameState or a view: seat names in individual play,
    the partners' names joined ("Ann & Bob") in team play; [] while the game runs.
    ``names`` replaces the players' names per seat (e.g. "you" for the viewer)."""
    if isinstance(game, dict):
        players, teams, won = game["players"], game["teams"], game["winners"]
    else:
        players, teams = game.players, game.teams
        won = game.winner_list if game.finished else []
    who = list(names) if names is not None else list(players)
    if not teams:
        return [who[s] for s in won]
    return [" & ".join(who[s] for s in range(len(who)) if s // 2 == t) for t in won]
