"""The final breakdown of a finished game: per side its captured ships, the merchant ships left
in its hands and what they cost, its score and place; what the final settlement (R6.2) gave away,
the ships left to nobody and the reader's placing, in the reader's language."""
from __future__ import annotations

from engine.view_types import AnyView, ShipView

from typing import Any

from pbem.i18n import gettext as _
from pbem.i18n import lazy
from pbem.present.grammar import together, won_tag
from pbem.present.phrases import capital_you, shown_names, side_seats

# Places in words, as the final scores print them (8 sides at most: 8 players).
_ORDINALS = [lazy("1st"), lazy("2nd"), lazy("3rd"), lazy("4th"), lazy("5th"), lazy("6th"),
             lazy("7th"), lazy("8th")]


def _ordinal(n: int) -> str:
    if 1 <= n <= len(_ORDINALS):
        return _(_ORDINALS[n - 1])
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _settled_line(e: dict[str, Any], fought: bool, players: list[str], me: int | None) -> str:
    """One ship the final settlement (R6.2) gave away, for the final breakdown."""
    owner, seat, ship, gold = e["owner"], e["seat"], e["ship"], e["value"]
    if seat != owner:
        if owner == me:
            return _("Ship %(ship)s (%(gold)s gold, yours): captured by %(who)s.",
                     ship=ship, gold=gold, who=players[seat])
        if seat == me:
            return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): captured by you.",
                     ship=ship, gold=gold, owner=players[owner])
        return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): captured by %(who)s.",
                 ship=ship, gold=gold, owner=players[owner], who=players[seat])
    if fought:
        if owner == me:
            return _("Ship %(ship)s (%(gold)s gold, yours): you won the fight for it.",
                     ship=ship, gold=gold)
        return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): %(owner)s won the fight for it.",
                 ship=ship, gold=gold, owner=players[owner])
    if owner == me:
        return _("Ship %(ship)s (%(gold)s gold, yours): nobody attacked it: it went home to you.",
                 ship=ship, gold=gold)
    return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): nobody attacked it: it went home to "
             "%(owner)s.", ship=ship, gold=gold, owner=players[owner])


def _left_line(s: ShipView, players: list[str], me: int | None) -> str:
    """One ship still on the table at the end: tied (nobody takes it) or scoring for nobody."""
    ship, gold, owner = s["id"], s["value"], s["owner"]
    if owner == me:
        if s["sides"]:
            return _("Ship %(ship)s (%(gold)s gold, yours): tied, it goes to nobody.", ship=ship, gold=gold)
        return _("Ship %(ship)s (%(gold)s gold, yours): it scores for nobody.", ship=ship, gold=gold)
    if s["sides"]:
        return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): tied, it goes to nobody.",
                 ship=ship, gold=gold, owner=players[owner])
    return _("Ship %(ship)s (%(gold)s gold, %(owner)s's): it scores for nobody.",
             ship=ship, gold=gold, owner=players[owner])


def _placing(mine: dict[str, Any], of: int, team: bool) -> str:
    """"You came 2nd of 3.", "Your team shared 1st place of 2.": a whole sentence per case."""
    place = mine["place_text"]
    if team:
        if mine["shared"]:
            return _("Your team shared %(place)s place of %(of)s.", place=place, of=of)
        return _("Your team came %(place)s of %(of)s.", place=place, of=of)
    if mine["shared"]:
        return _("You shared %(place)s place of %(of)s.", place=place, of=of)
    return _("You came %(place)s of %(of)s.", place=place, of=of)


def final_result(view: AnyView, moves: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """The final breakdown of a finished game for the reader of `view` (a seat, or the admin with
    `seat` None): per side its captured ships, the merchant ships left in its hands (shown at the
    end) and what they subtract, its final score and place; the ships the final settlement
    (R6.2) gave away, and to whom; the ships left to nobody; the reader's placing."""
    me = view["seat"]
    players = shown_names(view["players"])

    def name(seat: int | None) -> str:
        return _("nobody") if seat is None else (_("you") if seat == me else players[seat])

    team_scores = view.get("team_scores")
    totals: list[int] = team_scores if team_scores is not None else view["scores"]
    hands = view.get("hand_merchants") or [[] for _seat in players]
    sides = []
    for side, total in enumerate(totals):
        seats = side_seats(view, side)
        captured = sorted((g for s in seats for g in view["score_piles"][s]), reverse=True)
        in_hand = sorted((g for s in seats for g in hands[s] or []), reverse=True)
        place = 1 + sum(1 for t in totals if t > total)
        sides.append({
            "side": side, "who": capital_you(together([name(s) for s in seats])),
            "is_you": me in seats, "captured": captured, "captured_gold": sum(captured),
            "in_hand": in_hand, "hand_gold": sum(in_hand), "score": total, "place": place,
            "place_text": _ordinal(place), "shared": sum(1 for t in totals if t == total) > 1,
            "winner": side in view["winners"],
            "won_tag": won_tag(len(seats)),  # "(won)": "(gagnant)", "(gagnants)" for a team
        })
    attacked: set[int] = set()
    settled = []
    for events in moves:
        for e in events:
            if e.get("kind") in ("pirate", "captain", "admiral") and e.get("attack"):
                attacked.add(e["ship"])
            if e.get("kind") == "capture" and e.get("settlement"):
                settled.append(_settled_line(e, e["ship"] in attacked, players, me))
    left = [_left_line(s, players, me) for s in view["table"]]
    mine = next((s for s in sides if s["is_you"]), None)
    placing = None if mine is None else _placing(mine, len(sides), bool(view.get("teams")))
    ranked = sorted(sides, key=lambda s: (s["place"], s["side"]))
    return {"sides": ranked, "settled": settled, "left": left, "placing": placing}
