"""The picture of a game's board, shaped for templates (emails, player pages, the admin).

`board(engine.player_view(state, seat))` is what one seat sees: built ONLY from the player view,
so nothing a seat may not see can reach a template. `admin_board(engine.admin_view(state))` is
the admin's picture, made of the same pieces (one card, ship, side, player and team shape) plus
every hand. `move_log(records, view)` is the move log in words for either viewer.

Cards carry their colour as a word as well as a colour (colour-blind players). The colour word is
`engine.colour_of`; pages colour it with the classes of pbem/static/colours.css (`card-green`,
`colour-green`, `side-green`); emails get the same sheet inlined (pbem/mail/render.py).
The words come from the phrasebook (pbem/present/phrases.py).
"""
from __future__ import annotations

import json
from typing import Any

from engine.view_types import AdminView, AnyView, PlayerView, ShipView, SideView
from engine import explain
from pbem.i18n import gettext as _
from pbem.i18n import ngettext
from pbem.present.colours import mark
from pbem.present.grammar import of, possessive, together
from pbem.present.phrases import (Names, blocked_text, capital_you, card, colour_word, event_sentences,
                                  first_upper, outlook_text, present_moves, shown_names, side_seats)


def _side(side: SideView, ship: ShipView, name: Names) -> dict[str, Any]:
    colour = side["colour"]
    leader = ship.get("leader")
    counting = card(leader["card"]) if leader is not None and leader["side"] == side["side"] else None
    return {
        "who": capital_you(together([name(s) for s in side["seats"]])),
        "colour": colour,  # the colour word, None while only the Admiral fights for the side
        "colour_name": colour_word(colour) if colour else _("no colour"),
        "css": colour or "none",  # the page classes: colour-<css>, side-<css>
        "mark": mark(colour),  # its shape beside the colour word (colour-blind readers)
        "strength": side["strength"],
        "cards": [card(c) for c in side["cards"]],
        "strongest": ship.get("strongest_side") == side["side"],
        # the captain or Admiral that counts on the ship (R4.7), when it is this side's
        "counting": counting,
        # the side that would take the ship if the capture checks ran now (R5.1)
        "takes": explain.outlook(ship).side == side["side"],
    }


def _hand_cost(view: AnyView, seat: int) -> str | None:
    """What the merchant ships in a hand the reader may see cost at the end (R6.3)."""
    merchants = (view.get("hand_merchants") or [None] * len(view["players"]))[seat]
    if not merchants:
        return None
    gold = sum(merchants)
    if view["finished"]:
        return ngettext("%(num)s merchant ship left in hand: -%(gold)s",
                        "%(num)s merchant ships left in hand: -%(gold)s", len(merchants), gold=gold)
    return ngettext("%(num)s merchant ship in hand: -%(gold)s if the game ended now",
                    "%(num)s merchant ships in hand: -%(gold)s if the game ended now",
                    len(merchants), gold=gold)


def _pile_text(pile: list[int]) -> str | None:
    """A score pile as ships and gold: "1 ship (7 gold)", "3 ships (21 gold)"."""
    if not pile:
        return None
    return ngettext("%(num)s ship (%(gold)s gold)", "%(num)s ships (%(gold)s gold)", len(pile),
                    gold=sum(pile))


def _on_hold(seat: int | None, name: Names, me: int | None) -> str | None:
    """"On hold until your next turn.", "... until Élodie's next turn." ("d'Élodie")."""
    if seat is None:
        return None
    if seat == me:
        return _("On hold until your next turn.")
    return _("On hold until %(whose)s next turn.", whose=possessive(name(seat)))


def _ship(ship: ShipView, name: Names, whose: Names, me: int | None) -> dict[str, Any]:
    leader = ship.get("leader")
    look = explain.outlook(ship)
    return {
        "id": ship["id"],
        "owner": name(ship["owner"]),
        "whose": whose(ship["owner"]),
        "Whose": first_upper(whose(ship["owner"])),  # "Your", "Anne's": the rest as written
        "value": ship["value"],
        "merchant": card(f"M{ship['value']}"),
        "on_hold_for": None if ship.get("on_hold_for") is None else name(ship["on_hold_for"]),
        "on_hold": _on_hold(ship.get("on_hold_for"), name, me),
        "sides": [_side(side, ship, name) for side in ship["sides"]],
        "leader": None if leader is None else {"card": card(leader["card"]), "who": name(leader["seat"]),
                                               "of_who": of(name(leader["seat"]))},
        "tied": look.code == "tied",
        "outlook": outlook_text(look, ship, name, me),
        "blocked": None,  # why the viewer can play nothing on it (board() fills it in)
    }


def _board(view: AnyView, hands: list[list[str] | None], name: Names, whose: Names) -> dict[str, Any]:
    """The pieces every viewer shares; `hands[seat]` is the hand the viewer may see, or None."""
    me = view["seat"]
    players = shown_names(view["players"])
    team_of = view.get("team_of")
    partner = view.get("partner")
    team_play = view.get("team_scores") is not None
    people = [{
        "position": seat,
        "name": player,
        "label": _("You") if seat == me else player,
        "is_you": seat == me,
        "is_partner": seat == partner,
        "team": team_of[seat] if team_of else None,
        "hand_size": view["hand_sizes"][seat],
        "hand": None if hands[seat] is None else [card(c) for c in hands[seat] or []],
        "pile": list(view["score_piles"][seat]),
        "pile_text": _pile_text(view["score_piles"][seat]),
        "score": view["scores"][seat],  # public: the same for every reader
        "hand_cost": _hand_cost(view, seat),
        "to_move": seat == view["to_move"],
        "winner": not team_play and seat in view["winners"],
    } for seat, player in enumerate(players)]
    teams = None
    if team_play:
        teams = [{"index": t,
                  "members": [name(s) for s in range(len(players)) if team_of and team_of[s] == t],
                  "names": together([name(s) for s in range(len(players)) if team_of and team_of[s] == t]),
                  "score": score,
                  "winner": t in view["winners"]}
                 for t, score in enumerate(view["team_scores"] or [])]
        for t in teams:
            t["text"] = _("%(members)s %(gold)s gold", members=t["names"], gold=t["score"])
    team_texts = [str(t["text"]) for t in teams or []]
    table = [_ship(ship, name, whose, me) for ship in view["table"]]
    winning = [side_seats(view, side) if team_play else [side] for side in view["winners"]]
    if view["finished"]:  # what the final settlement (R6.2) left on the table
        for ship in table:
            ship["outlook"] = _("The game is over: this ship scores for nobody.")
    return {
        "players": people,
        "table": table,
        "draw_pile": view["draw_pile"],
        "to_move": None if view["to_move"] is None else name(view["to_move"]),
        "finished": view["finished"],
        "teams": teams,
        # the teams' gold on one line, each language's separator ("Ann and Bob 7 gold; Cy and
        # Dee 10 gold", French "… 7 or ; …")
        "teams_text": _teams_line(team_texts),
        # each winning side in words ("Ann and Bob" for a team), and how many people won, with
        # whom "Winner"/"Winners" agrees
        "winners": [together([name(s) for s in seats]) for seats in winning],
        "winning_people": sum(len(seats) for seats in winning),
        # the reader's seat (or side) won: it reads "You won!", not its own name after "Winner:"
        "you_won": me is not None and any(me in seats for seats in winning),
        # a shared win in words: "Anne and Bob"; teams "Anne and Bob, Carl and Dana"
        "shared_win": ", ".join(together([name(s) for s in seats]) for seats in winning) if team_play
        else together([name(s) for seats in winning for s in seats]),
        "version": view["version"],
    }


def _teams_line(parts: list[str]) -> str:
    line = parts[0] if parts else ""
    for part in parts[1:]:
        line = _("%(these)s; %(next)s", these=line, next=part)
    return line


def board(view: PlayerView) -> dict[str, Any]:
    """What one seat sees, from `engine.player_view`: hand, partner's hand, table, players, scores."""
    me: int = view["seat"]
    players = shown_names(view["players"])
    partner = view.get("partner")

    def name(seat: int | None) -> str:
        return _("nobody") if seat is None else (_("you") if seat == me else players[seat])

    def whose(seat: int | None) -> str:
        return _("your") if seat == me else _("%(who)s's", who=name(seat))

    hands: list[list[str] | None] = [None] * len(players)
    hands[me] = view["hand"]
    if partner is not None:
        hands[partner] = view.get("partner_hand") or []
    shared = _board(view, hands, name, whose)
    reasons = {r.ship: blocked_text(r, view) for r in explain.blocked(view)} \
        if not view["finished"] else {}
    for ship in shared["table"]:
        ship["blocked"] = reasons.get(ship["id"])
    return {
        **shared,
        "blocked_everywhere": reasons.get(None),
        "moves": present_moves(view),
        "seat": me,
        "you": players[me],
        "hand": shared["players"][me]["hand"],
        "partner": None if partner is None else {
            "position": partner, "name": players[partner], "hand": shared["players"][partner]["hand"]},
        "your_turn": view["to_move"] == me,
    }


def admin_board(view: AdminView) -> dict[str, Any]:
    """The admin's picture, from `engine.admin_view`: the same board with every hand (never for players)."""
    players = shown_names(view["players"])

    def name(seat: int | None) -> str:
        return _("nobody") if seat is None else players[seat]

    def whose(seat: int | None) -> str:
        return _("%(who)s's", who=name(seat))

    return _board(view, list(view["hands"]), name, whose)


def move_log(records: list[Any], view: AnyView) -> list[dict[str, Any]]:
    """The stored moves in words for the viewer of `view` (a seat, or the admin):
    [{number, who, source, at, sentences}], newest last."""
    players = shown_names(view["players"])
    me = view["seat"]
    log = []
    moves = [json.loads(record.events_json or "[]") for record in records]
    for record, sentences in zip(records, event_sentences(moves, players, me)):
        if not sentences and me is None:  # the admin sees the stored move of a row without events
            sentences = [f"{players[record.seat]}: "
                         f"{json.dumps(json.loads(record.move_json), sort_keys=True)}"]
        log.append({"number": record.number, "who": players[record.seat], "source": record.source,
                    "at": record.created_at, "sentences": sentences})
    return log
