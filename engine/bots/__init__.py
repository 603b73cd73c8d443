"""Bots behind one small interface: ``get_bot(name).choose(view, rng) -> move``."""
from __future__ import annotations

from engine.bots.base import Bot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot

BOTS: tuple[str, ...] = ("random", "greedy")
_CLASSES: dict[str, type[Bot]] = {"random": RandomBot, "greedy": GreedyBot}


def get_bot(name: str) -> Bot:
    """A bot by name; ValueError for an unknown name."""
    try:
        return _CLASSES[name]()
    except KeyError:
        raise ValueError(f"Unknown bot {name!r}: choose one of {', '.join(BOTS)}.") from None


__all__ = ["BOTS", "Bot", "GreedyBot", "RandomBot", "get_bot"]
