"""Bots behind one small interface: ``get_bot(name).choose(view, rng) -> move``."""
from __future__ import annotations

from engine.bots.base import Bot
from engine.bots.expert import DEFAULT_BUDGET_MS, ExpertBot, IsmctsBot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot

BOTS: tuple[str, ...] = ("random", "greedy", "expert", "expert_ismcts")
_CLASSES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}
_SEARCHERS: dict[str, type[ExpertBot] | type[IsmctsBot]] = {
    "expert": ExpertBot, "expert_ismcts": IsmctsBot}


def get_bot(name: str, *, budget_ms: float | None = None,
            iterations: int | None = None) -> Bot:
    """A bot by name; ValueError for an unknown name. ``budget_ms`` (CPU milliseconds a
    move, default DEFAULT_BUDGET_MS) or ``iterations`` (playouts a move) set a search
    bot's budget; the other bots ignore them."""
    if name in _SEARCHERS:
        if iterations is not None:
            return _SEARCHERS[name](budget_ms=None, iterations=iterations)
        return _SEARCHERS[name](budget_ms=DEFAULT_BUDGET_MS if budget_ms is None else budget_ms)
    try:
        return _CLASSES[name]()
    except KeyError:
        raise ValueError(f"Unknown bot {name!r}: choose one of {', '.join(BOTS)}.") from None


__all__ = ["BOTS", "DEFAULT_BUDGET_MS", "Bot", "ExpertBot", "GreedyBot", "IsmctsBot",
           "RandomBot", "get_bot"]
