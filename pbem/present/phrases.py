"""The phrasebook: cards, moves, events, outcomes and blocked reasons in the reader's language.

Every word is worded from the engine's codes and parameters (pbem/i18n.py, catalog domain
`emails`), one whole sentence per case (the reader's own sentences apart from another player's),
never by translating the engine's English (`engine.describe_move` stays the English of
`python -m engine`; in English, `describe_move` and `describe_event` here say exactly what it
says). Emails, pages, the admin, replies and the domain's notices all read it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import engine
from engine.view_types import AnyView, PlayerView, ShipView
from engine import explain
from pbem import i18n
from pbem.i18n import gettext as _
from pbem.i18n import lazy, ngettext
from pbem.present import colours
from pbem.present.grammar import discarded_card, of, possessive, the_card, together, won


@dataclass(frozen=True)
class CardView:
    code: str
    name: str
    colour: str  # `engine.colour_of`: "green", ..., "white" (the Admiral), "merchant"

    @property
    def mark(self) -> str:
        """The shape beside the colour word (pbem/present/colours.py): "" for a merchant ship."""
        return colours.mark(self.colour)

    @property
    def captain(self) -> bool:
        """A captain is drawn outlined in its colour, a pirate filled with it."""
        return self.code[1:] == "C"


# The cards' names in the reader's language, from their codes (engine.card_name is the
# engine's English): one whole name per colour, so each language agrees its adjective.
_PIRATE_NAME = {"green": lazy("Green %(n)s"), "blue": lazy("Blue %(n)s"),
                "red": lazy("Red %(n)s"), "black": lazy("Black %(n)s")}
_CAPTAIN_NAME = {"green": lazy("Green captain"), "blue": lazy("Blue captain"),
                 "red": lazy("Red captain"), "black": lazy("Black captain")}
# A side's colour as a word of its own ("Blue"), in labels and in sentences.
_COLOUR_WORD = {"green": lazy("Green"), "blue": lazy("Blue"), "red": lazy("Red"),
                "black": lazy("Black")}
# Why a side cannot reinforce its colour on a ship, one sentence per colour so that each
# language can agree the colour with its noun ("aucune carte verte"): alone, or in a team.
_COLOUR_MISSING = {
    "green": (lazy("You play Green on ship %(ship)s and hold no Green."),
              lazy("Your team plays Green on ship %(ship)s and you hold no Green.")),
    "blue": (lazy("You play Blue on ship %(ship)s and hold no Blue."),
             lazy("Your team plays Blue on ship %(ship)s and you hold no Blue.")),
    "red": (lazy("You play Red on ship %(ship)s and hold no Red."),
            lazy("Your team plays Red on ship %(ship)s and you hold no Red.")),
    "black": (lazy("You play Black on ship %(ship)s and hold no Black."),
              lazy("Your team plays Black on ship %(ship)s and you hold no Black.")),
}


def card_name(code: str) -> str:
    """"B3" -> "Blue 3" ("Corsaire bleu 3", "Tàu Hải Tặc xanh dương 3"), "BC" -> "Blue captain",
    "AD" -> "Admiral", "M5" -> "Merchant ship (5 gold)", in the current language, as that
    language writes a card in a list (French in lower case: "amiral", "corsaire bleu 3"); a
    sentence takes the card through `grammar.the_card`."""
    colour = engine.colour_of(code)
    if colour == "white":
        return _("Admiral")
    if colour == "merchant":
        return _("Merchant ship (%(gold)s gold)", gold=code[1:])
    if code[1] == "C":
        return _(_CAPTAIN_NAME[colour])
    return _(_PIRATE_NAME[colour], n=code[1:])


def card_in_text(code: str) -> str:
    """The card as the object of a sentence ("Blue 3", "the Admiral"; "l'amiral")."""
    return the_card(card_name(code), code)


def colour_word(colour: str) -> str:
    return _(_COLOUR_WORD[colour]) if colour in _COLOUR_WORD else colour.capitalize()


def colour_in_text(colour: str) -> str:
    """A colour's word inside a sentence: English keeps its capital ("Blue"), French and
    Vietnamese write it in lower case ("le bleu", "màu đỏ")."""
    word = colour_word(colour)
    return word if i18n.current() == i18n.DEFAULT else word.lower()


def card(code: str) -> CardView:
    return CardView(code, card_name(code), engine.colour_of(code))


Names = Callable[[int | None], str]

# Letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko and their forms).
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")


def shown_name(name: str) -> str:
    """A player's name as sentences show it: a right-to-left name is isolated (U+2068 ... U+2069),
    so "Anne & عبد الرحمن: 48 gold" keeps its order around it, in text and HTML alike."""
    return f"\u2068{name}\u2069" if _RIGHT_TO_LEFT.search(name) else name


def shown_names(names: list[str]) -> list[str]:
    return [shown_name(n) for n in names]


def capital_you(words: str) -> str:
    """"you & Bob" opens a line as "You & Bob" (player names are left as they were typed)."""
    you = _("you")
    return first_upper(you) + words[len(you):] if words.startswith(you) else words


def first_upper(text: str) -> str:
    return text[:1].upper() + text[1:]


def side_seats(view: AnyView, side: int) -> list[int]:
    team_of = view.get("team_of")
    return [s for s in range(len(view["players"])) if (team_of[s] if team_of else s) == side]


# ---------------------------------------------------------------- the rules' reasons in words
def outlook_text(look: explain.Outlook, ship: ShipView, name: Names, me: int | None) -> str:
    """Who would take the ship now; the reader (`me`) has sentences of their own."""
    you = look.seat is not None and look.seat == me
    who = name(look.seat)
    if look.code in ("unattacked", "empty"):
        if you:
            return _("Nobody fights for it: it goes home to you at the start of your next turn.")
        return _("Nobody fights for it: it goes home to %(who)s at the start of their next turn.",
                 who=who)
    if look.code == "tied":
        return _("(tied: nobody takes it) Strength %(strength)s each.", strength=look.strength)
    if look.by == "strength":
        if you:
            return _("Would go to you (strength %(strength)s) at the start of your next turn.",
                     strength=look.strength)
        return _("Would go to %(who)s (strength %(strength)s) at the start of their next turn.",
                 who=who, strength=look.strength)
    if look.by == "admiral":
        if you:
            return _("Would go to you (the Admiral counts) at the start of your next turn.")
        return _("Would go to %(who)s (the Admiral counts) at the start of their next turn.", who=who)
    leader = card_in_text(ship["leader"]["card"])  # type: ignore[index]  # led by a captain here
    if you:
        return _("Would go to you (%(the_card)s counts) at the start of your next turn.",
                 the_card=leader)
    return _("Would go to %(who)s (%(the_card)s counts) at the start of their next turn.",
             who=who, the_card=leader)


def blocked_text(reason: explain.Blocked, view: AnyView) -> str:
    """Why the reader can attack or reinforce none of a ship (or of any ship)."""
    n = reason.ship
    if reason.code == "no_pirates":
        if n is None:
            return _("You hold no pirate ship: you cannot attack or defend any ship now.")
        return _("You hold no pirate ship to attack or defend ship %(ship)s with.", ship=n)
    if reason.code == "colour_missing":
        alone, team = _COLOUR_MISSING[reason.colour or ""]
        return _(team if view.get("teams") else alone, ship=n)
    if reason.code == "all_colours_taken":
        return _("All four colours already fight for ship %(ship)s: no colour is left for you.", ship=n)
    return ngettext("%(colours)s, the only colour you hold, is already fighting for ship %(ship)s "
                    "on another side.",
                    "%(colours)s, the only colours you hold, are already fighting for ship %(ship)s "
                    "on another side.",
                    len(reason.colours), colours=together([colour_in_text(c) for c in reason.colours]), ship=n)


def _lead_text(o: explain.Outcome, move: dict[str, Any], mine: bool, who: str) -> str:
    """"You will lead on ship 3 ..." (`mine`) or "Your team will lead ...: `who`, who led there,
    takes it ...", by strength (against another side's, or alone), the Admiral or a captain."""
    ship, strength, against = o.ship, o.strength, o.against
    if o.by == "strength" and against is not None:
        if mine:
            return _("You will lead on ship %(ship)s (strength %(strength)s against %(against)s) and "
                     "take it at the start of your next turn unless someone beats you.",
                     ship=ship, strength=strength, against=against)
        return _("Your team will lead on ship %(ship)s (strength %(strength)s against %(against)s): "
                 "%(who)s, who led there, takes it at the start of their next turn unless "
                 "someone beats you.", ship=ship, strength=strength, against=against, who=who)
    if o.by == "strength":
        if mine:
            return _("You will lead on ship %(ship)s (strength %(strength)s) and take it at the "
                     "start of your next turn unless someone beats you.", ship=ship, strength=strength)
        return _("Your team will lead on ship %(ship)s (strength %(strength)s): %(who)s, who led "
                 "there, takes it at the start of their next turn unless someone beats you.",
                 ship=ship, strength=strength, who=who)
    if o.by == "admiral":
        if mine:
            return _("You will lead on ship %(ship)s with the Admiral and take it at the start of "
                     "your next turn unless someone plays a later captain or the admiral there.",
                     ship=ship)
        return _("Your team will lead on ship %(ship)s with the Admiral: %(who)s, who led there, "
                 "takes it at the start of their next turn unless someone plays a later "
                 "captain or the admiral there.", ship=ship, who=who)
    card_text = card_in_text(move["card"])
    if mine:
        return _("You will lead on ship %(ship)s with %(the_card)s and take it at the start of "
                 "your next turn unless someone plays a later captain or the admiral there.",
                 ship=ship, the_card=card_text)
    return _("Your team will lead on ship %(ship)s with %(the_card)s: %(who)s, who led there, "
             "takes it at the start of their next turn unless someone plays a later captain "
             "or the admiral there.", ship=ship, the_card=card_text, who=who)


def outcome_text(view: PlayerView, move: dict[str, Any]) -> str | None:
    """What a legal move of the reader will do, in words; None when it is plain (a draw)."""
    me: int = view["seat"]
    players = shown_names(view["players"])
    o = explain.outcome(view, move)
    if o is None:
        return None
    if o.code == "discard":
        return _("The card leaves the game for good.")
    if o.code == "new_ship":
        return _("The ship lies in front of you: you take it home at the start of your next turn "
                 "unless someone attacks it first.")

    def side_name(side: int | None) -> str:
        return together([players[s] for s in side_seats(view, side)]) if side is not None \
            else _("another side")  # inside a sentence: lower case

    ship = next(s for s in view["table"] if s["id"] == o.ship)
    if o.code == "lead":
        return _lead_text(o, move, o.seat == me, players[o.seat or 0])
    if o.code == "tie":
        return _("You will tie for the lead on ship %(ship)s at strength %(strength)s: nobody takes "
                 "it while it is tied.", ship=o.ship, strength=o.strength)
    if o.by == "admiral" or (o.by == "captain" and ship["leader"]["card"] == "AD"):  # type: ignore[index]
        return _("The Admiral %(of_side)s still counts on ship %(ship)s: your strength there will "
                 "be %(strength)s, which does not take the lead.",
                 of_side=of(side_name(o.leader_side)), ship=o.ship, strength=o.strength)
    if o.by == "captain":  # the card opens the sentence
        return _("%(the_card)s %(of_side)s still counts on ship %(ship)s: your strength there will "
                 "be %(strength)s, which does not take the lead.",
                 the_card=first_upper(card_in_text(ship["leader"]["card"])),  # type: ignore[index]
                 of_side=of(side_name(o.leader_side)), ship=o.ship, strength=o.strength)
    return _("%(side)s will still be stronger on ship %(ship)s (%(against)s against your "
             "%(strength)s).", side=first_upper(side_name(o.leader_side)), ship=o.ship, against=o.against,
             strength=o.strength)


# ---------------------------------------------------------------- moves and events in words
def _ship_phrase(ship_id: int | None, owner: int | None, value: int | None, players: list[str],
                 viewer: int | None, actor: int | None = None) -> str:
    """"your ship 3 (5 gold)", "Bob's ship 3 (5 gold)", "ship 3" (owner unknown); the ship of
    the sentence's subject (`actor`, another player) is "their own ship 3", never "Bob played
    ... on Bob's ship 3" ("son propre vaisseau 3", "tàu 3 của chính mình")."""
    if owner is None:
        return _("ship %(ship)s", ship=ship_id)
    own = owner == actor and owner != viewer
    if value is None:
        if owner == viewer:
            return _("your ship %(ship)s", ship=ship_id)
        if own:
            return _("their own ship %(ship)s", ship=ship_id)
        return _("%(whose)s ship %(ship)s", whose=possessive(players[owner]), ship=ship_id)
    if owner == viewer:
        return _("your ship %(ship)s (%(gold)s gold)", ship=ship_id, gold=value)
    if own:
        return _("their own ship %(ship)s (%(gold)s gold)", ship=ship_id, gold=value)
    return _("%(whose)s ship %(ship)s (%(gold)s gold)", whose=possessive(players[owner]), ship=ship_id,
             gold=value)


MOVER = -1  # describe_move's reader by default: the seat that moves ("Play your merchant ship")


def describe_move(move: dict[str, Any], view: Mapping[str, Any], reader: int | None = MOVER) -> str:
    """The move in words for `view["seat"]`, in the current language (the engine's
    `describe_move` is its English): "Draw a card", "Attack Bob's ship 3 (5 gold) with Blue 3".
    `reader`: the seat the label speaks to when another seat's move is read (a finished game's
    analysis: "Play a merchant ship", "Attack your ship 3 ..."); None, nobody (the admin)."""
    seat = view.get("seat")
    reader = seat if reader == MOVER else reader
    action = move.get("action")
    if action == "draw":
        return _("Draw a card")
    code = move.get("card", "")
    if action == "discard":
        return _("Discard %(the_card)s", the_card=discarded_card(card_name(code), code))
    if code.startswith("M"):
        if reader == seat:
            return _("Play your merchant ship (%(gold)s gold)", gold=code[1:])
        return _("Play a merchant ship (%(gold)s gold)", gold=code[1:])
    target = move.get("target")
    ship = next((s for s in view.get("table", []) if s and s.get("id") == target), None)
    owner = ship["owner"] if ship else None
    where = _ship_phrase(target, owner, ship["value"] if ship else None, view.get("players", []), reader, seat)
    if code == "AD" or code[1] == "C":
        return _("Play %(the_card)s on %(ship)s", the_card=card_in_text(code), ship=where)
    if owner is not None and (owner == seat or owner == view.get("partner")):
        return _("Defend %(ship)s with %(the_card)s", ship=where, the_card=card_in_text(code))
    return _("Attack %(ship)s with %(the_card)s", ship=where, the_card=card_in_text(code))


def describe_event(event: dict[str, Any], players: list[str], viewer: int | None) -> str:
    """One sentence for a stored event (engine/events.py), addressed to seat `viewer`, in the
    current language; translated from its kind and parameters (the engine's `describe_event`
    is its English)."""
    kind, seat = event["kind"], event.get("seat")
    you = seat is not None and seat == viewer
    who = players[seat] if seat is not None else _("Nobody")
    if kind == "draw":
        return _("You drew a card.") if you else _("%(who)s drew a card.", who=who)
    if kind == "merchant":
        if you:
            return _("You played a merchant ship: ship %(ship)s (%(gold)s gold).",
                     ship=event["ship"], gold=event["value"])
        return _("%(who)s played a merchant ship: ship %(ship)s (%(gold)s gold).",
                 who=who, ship=event["ship"], gold=event["value"])
    if kind == "pirate":
        where = _ship_phrase(event["ship"], event.get("owner"), event.get("value"), players, viewer, seat)
        return _played(event["card"], where, who if not you else None)
    if kind in ("captain", "admiral"):
        owner = event.get("owner") if event.get("owner") is not None else seat
        where = _ship_phrase(event["ship"], owner, event.get("value"), players, viewer, seat)
        text = _played("AD" if kind == "admiral" else event["card"], where, who if not you else None)
        if event.get("replaced"):  # the card opens the sentence
            text += " " + _("%(the_card)s it replaces is out of the game.",
                            the_card=first_upper(card_in_text(event["replaced"])))
        return text
    if kind == "discard":
        gone = discarded_card(card_name(event["card"]), event["card"])
        if you:
            return _("You discarded %(the_card)s.", the_card=gone)
        return _("%(who)s discarded %(the_card)s.", who=who, the_card=gone)
    if kind == "capture":
        return _settled(event, _capture_text(event, players, viewer, fought=False))
    if kind == "hold":
        if you:
            return _("Ship %(ship)s is on hold until your next turn.", ship=event["ship"])
        return _("Ship %(ship)s is on hold until %(whose)s next turn.", ship=event["ship"],
                 whose=possessive(who))
    if kind == "game_over":
        return _game_over_text(event, players, viewer)
    raise ValueError(f"Unknown event kind {kind!r}.")


def _played(code: str, where: str, who: str | None) -> str:
    """"You played Blue 3 on ...", "Bob played the Admiral on ..." (`who` None: the reader)."""
    if who is None:
        return _("You played %(the_card)s on %(ship)s.", the_card=card_in_text(code), ship=where)
    return _("%(who)s played %(the_card)s on %(ship)s.", who=who, the_card=card_in_text(code), ship=where)


def _settled(event: dict[str, Any], sentence: str) -> str:
    return _("Final settlement: %(sentence)s", sentence=sentence) if event.get("settlement") else sentence


def _capture_text(e: dict[str, Any], players: list[str], viewer: int | None, *, fought: bool) -> str:
    """A capture: the owner's ship came home safely, or (`fought`) its owner won the fight for
    it, or another side captured it."""
    seat, ship, gold = e["seat"], e["ship"], e["value"]
    if seat == e.get("owner"):
        if fought:
            if seat == viewer:
                return _("You won the fight for your ship %(ship)s (%(gold)s gold): you score "
                         "%(gold)s gold.", ship=ship, gold=gold)
            return _("%(who)s won the fight for their own ship %(ship)s (%(gold)s gold) and "
                     "scores %(gold)s gold.", who=players[seat], ship=ship, gold=gold)
        if seat == viewer:
            return _("Your ship %(ship)s (%(gold)s gold) came home safely: you score %(gold)s gold.",
                     ship=ship, gold=gold)
        return _("%(whose)s ship %(ship)s (%(gold)s gold) came home safely, scoring %(gold)s gold.",
                 whose=possessive(players[seat]), ship=ship, gold=gold)
    where = _ship_phrase(ship, e.get("owner"), gold, players, viewer)
    if seat == viewer:
        return _("You captured %(ship)s.", ship=where)
    return _("%(who)s captured %(ship)s.", who=players[seat], ship=where)


def _game_over_text(e: dict[str, Any], players: list[str], viewer: int | None) -> str:
    scores = list(e.get("scores") or ())
    if e.get("team_scores") is not None:
        names = [together([players[2 * t], players[2 * t + 1]])
                 for t in range(len(e["team_scores"]))]
        totals, people = list(e["team_scores"]), 2
    else:
        names = [_("you") if s == viewer else players[s] for s in range(len(scores))]
        totals, people = scores, 1
    table = ", ".join(f"{names[i]} {totals[i]}" for i in range(len(totals)))
    winners = list(e.get("winners") or ())
    if len(winners) == 1:
        w = winners[0]
        verdict = _("You won") if e.get("team_scores") is None and w == viewer else \
            won(names[w], people)
    else:
        verdict = capital_you(_("%(names)s share the win", names=together([names[w] for w in winners])))
    return _("The game is over. Final gold: %(scores)s. %(verdict)s.", scores=table, verdict=verdict)


def present_moves(view: PlayerView) -> list[dict[str, Any]]:
    """The reader's legal moves: `number` (its 1-based place in `view["legal_moves"]`, the short
    number emails and pages show), `text`, `move` and `outcome` (what it will do, or None)."""
    return [{"number": i, "text": describe_move(move, view), "move": move,
             "outcome": outcome_text(view, move)}
            for i, move in enumerate(view["legal_moves"], start=1)]


# ---------------------------------------------------------------- the game in words
def _fought_over(event: dict[str, Any], attacked: set[int]) -> bool:
    return event.get("kind") == "capture" and event.get("seat") == event.get("owner") \
        and event.get("ship") in attacked


def event_sentences(moves: list[list[dict[str, Any]]], players: list[str],
                    viewer: int | None) -> list[list[str]]:
    """The events of every move so far (oldest first) in sentences for `viewer`. An owner who
    wins back a ship that was attacked "won the fight" for it: it did not "come home safely"."""
    players = shown_names(players)
    attacked: set[int] = set()
    out = []
    for events in moves:
        sentences = []
        for e in events:
            if e.get("kind") in ("pirate", "captain", "admiral") and e.get("attack"):
                attacked.add(e["ship"])
            if _fought_over(e, attacked):
                sentences.append(_settled(e, _capture_text(e, players, viewer, fought=True)))
            else:
                sentences.append(describe_event(e, players, viewer))
        out.append(sentences)
    return out

