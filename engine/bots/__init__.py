"""Bots behind one small interface: ``get_bot(name).choose(view, rng) -> move``.

``REGISTRY`` is the one list of bots: a new bot is one line there, and every list of bots
(``BOTS``, the command line, the service's forms and seat names) reads it. ``LEVELS`` are the
ones a player chooses from by name (beginner < greedy < expert, then the random bot); the others
(``expert_flat``: the expert dealing hidden cards uniformly, its baseline; ``expert_ismcts``)
stay playable by name for experiments but are offered in no menu.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.bots.base import Bot
from engine.bots.beginner import BeginnerBot
from engine.bots.expert import DEFAULT_BUDGET_MS, ExpertBot, FlatExpertBot, IsmctsBot, _SearchBot
from engine.bots.greedy import GreedyBot
from engine.bots.random_bot import RandomBot

Factory = Callable[[float | None, int | None], Bot]  # (budget_ms, iterations) -> a bot


@dataclass(frozen=True)
class BotKind:
    """One bot: the message id of its display name and how to make one.

    ``display`` is plain English here (the engine knows no languages); the service translates
    it where it shows it, and its catalog extraction reads these calls (``-k BotKind:1``)."""

    display: str
    make: Factory
    level: bool = True  # offered to players in the menus (/new, the admin form, duel --help)
    about: str = ""  # one line for ``python -m engine duel --help`` (English: a developer's tool)


def _plain(cls: type[Bot]) -> Factory:
    """A bot without a budget: it ignores both."""
    return lambda budget_ms, iterations: cls()


def _searcher(cls: type[_SearchBot]) -> Factory:
    """A search bot: ``iterations`` playouts a move if given, else ``budget_ms`` (default
    DEFAULT_BUDGET_MS) CPU milliseconds."""
    def make(budget_ms: float | None, iterations: int | None) -> Bot:
        if iterations is not None:
            return cls(budget_ms=None, iterations=iterations)
        return cls(budget_ms=DEFAULT_BUDGET_MS if budget_ms is None else budget_ms)
    return make


REGISTRY: dict[str, BotKind] = {
    "random": BotKind("Random bot", _plain(RandomBot), about="any legal move"),
    "beginner": BotKind("Beginner bot", _plain(BeginnerBot),
                        about="the greedy rules, but it overlooks moves: for a first game"),
    "greedy": BotKind("Greedy bot", _plain(GreedyBot), about="the best move one move ahead"),
    "expert": BotKind("Expert bot", _searcher(ExpertBot),
                      about="searches the hidden cards, dealt as the other seats' moves suggest; "
                            "budget --budget-ms or --iterations"),
    "expert_flat": BotKind("Expert bot (uniform deals)", _searcher(FlatExpertBot), level=False,
                           about="the expert without inference: hidden cards dealt uniformly"),
    "expert_ismcts": BotKind("Expert bot (deep search)", _searcher(IsmctsBot), level=False,
                             about="tree search, for experiments: weaker than expert"),
}
BOTS: tuple[str, ...] = tuple(REGISTRY)  # every name a seat may hold
# The levels players choose from, easiest first (the random bot last: hardly a game).
LEVELS: tuple[str, ...] = tuple(n for n in ("beginner", "greedy", "expert", "random")
                                if REGISTRY[n].level)


def get_bot(name: str, *, budget_ms: float | None = None,
            iterations: int | None = None, wall_ms: float | None = None) -> Bot:
    """A bot by name; ValueError for an unknown name. ``budget_ms`` (CPU milliseconds a
    move, default DEFAULT_BUDGET_MS) or ``iterations`` (playouts a move) set a search
    bot's budget, ``wall_ms`` its wall-clock cap a move (default WALL_FACTOR x budget_ms
    for a time budget, none for iterations); the other bots ignore them."""
    try:
        kind = REGISTRY[name]
    except KeyError:
        raise ValueError(f"Unknown bot {name!r}: choose one of {', '.join(BOTS)}.") from None
    bot = kind.make(budget_ms, iterations)
    if wall_ms is not None and isinstance(bot, _SearchBot):
        bot.wall_ms = wall_ms
    return bot


__all__ = ["BOTS", "DEFAULT_BUDGET_MS", "LEVELS", "REGISTRY", "BeginnerBot", "Bot", "BotKind",
           "ExpertBot", "FlatExpertBot", "GreedyBot", "IsmctsBot", "RandomBot", "get_bot"]
