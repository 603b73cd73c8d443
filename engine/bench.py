"""Speed and strength measurements: random self-play and greedy-versus-random duels."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass

from engine import core, rules
from engine.bots import get_bot
from engine.view import player_view

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal")


@dataclass(frozen=True)
class BenchResult:
    games: int
    actions: int
    seconds: float  # wall clock
    cpu_seconds: float  # this process only: what one core did, whatever else runs

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else float("inf")

    @property
    def games_per_cpu_second(self) -> float:
        return self.games / self.cpu_seconds if self.cpu_seconds else float("inf")


def random_games(players: int, games: int, seed: int = 0, teams: bool = False) -> BenchResult:
    """Play ``games`` full random games as a random bot would: per turn, the legal
    moves from the rules core and ``rng.choice`` of them. Game i uses seed+i."""
    names = list(NAMES[:players])
    actions = 0
    legal_moves, step = core.legal_moves, core.step
    start, cpu_start = time.perf_counter(), time.process_time()
    for i in range(games):
        st = rules.new_game(names, teams=teams, seed=seed + i)
        choice = random.Random(seed + i).choice
        while not st.finished:
            step(st, choice(legal_moves(st)))
        actions += st.version
    return BenchResult(games, actions, time.perf_counter() - start,
                       time.process_time() - cpu_start)


@dataclass(frozen=True)
class DuelResult:
    games: int
    wins: int  # games the bot's seat was among the winners
    sole_wins: int
    score_margin: float  # mean of (bot score - mean opponent score)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


def duel(games: int, players: int = 4, bot: str = "greedy", against: str = "random",
         seed: int = 0) -> DuelResult:
    """One ``bot`` seat against ``against`` bots, individual play, the bot's seat
    rotating (game i: seat i % players). Bots only ever see their player_view."""
    hero, other = get_bot(bot), get_bot(against)
    names = list(NAMES[:players])
    wins = sole = 0
    margin = 0.0
    for i in range(games):
        hero_seat = i % players
        st = rules.new_game(names, seed=seed + i)
        rng = random.Random(seed + i)
        while not st.finished:
            seat = st.seat
            player = hero if seat == hero_seat else other
            move = player.choose(player_view(st, seat), rng)
            st, _ = rules.apply_move(st, seat, move)
        won = rules.winners(st)
        wins += hero_seat in won
        sole += won == [hero_seat]
        sc = rules.scores(st)
        margin += sc[hero_seat] - (sum(sc) - sc[hero_seat]) / (players - 1)
    return DuelResult(games, wins, sole, margin / games if games else 0.0)
