"""Events: small frozen records of what a move caused, for notifications.

Every event is public information (a draw never names the card).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The fields each kind of event carries in its JSON form, in order.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "draw": ("seat",),
    "merchant": ("seat", "ship", "value"),
    "pirate": ("seat", "card", "ship", "owner", "value", "attack"),
    "captain": ("seat", "card", "ship", "owner", "value", "replaced", "attack"),
    "admiral": ("seat", "ship", "value", "replaced", "attack"),
    "discard": ("seat", "card"),
    "capture": ("seat", "ship", "owner", "value", "settlement"),
    "hold": ("ship", "seat"),
    "game_over": ("scores", "team_scores", "winners"),
}


@dataclass(frozen=True)
class Event:
    """One thing that happened; only the fields of its kind are meaningful.

    ``attack`` (pirate, captain, admiral): the card hit a ship of another side than
    the player's (in team play a partner's ship is the same side: no attack).
    """

    kind: str
    seat: int | None = None
    card: str | None = None
    ship: int | None = None
    owner: int | None = None
    value: int | None = None
    replaced: str | None = None
    settlement: bool = False
    attack: bool = False
    scores: tuple[int, ...] | None = None
    team_scores: tuple[int, ...] | None = None
    winners: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind}
        for name in EVENT_FIELDS[self.kind]:
            v = getattr(self, name)
            d[name] = list(v) if isinstance(v, tuple) else v
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Event:
        kind = d["kind"]
        kwargs: dict[str, Any] = {name: d.get(name) for name in EVENT_FIELDS[kind]}
        for name in ("scores", "team_scores", "winners"):
            if kwargs.get(name) is not None:
                kwargs[name] = tuple(kwargs[name])
        for name in ("settlement", "attack"):
            if name in kwargs:
                kwargs[name] = bool(kwargs[name])  # missing in events stored before it existed
        return cls(kind, **kwargs)
