"""Analysis benchmark: CPU time of the expert's analysis per finished game, 2 to 5 players.

    nice -n 10 python -m benchmarks.analysis_bench               # 10 games per player count
    nice -n 10 python -m benchmarks.analysis_bench --games 4 --seats one

Games are played to their end by greedy bots from seeds 0, 1, ... (fast to make, and as long as
real games); each is analysed at the default budget (`engine.analysis.Budget()`: 64 samples and
at most 960 playouts a position, a CPU cap of 300 ms a move and 60 s a game), for every seat
(`--seats all`: a table of humans, the worst case) or seat 0 alone (`--seats one`: one human
against bots). Printed per player count: p50 and p95 of CPU seconds a game (this thread's CPU
time: load on the shared machine does not change it much), the worst move's CPU in ms, the moves
analysed, the moves whose samples the per-move cap cut short, and the games the per-game cap
stopped. Target: no game stopped by its cap, and few moves capped.
"""
from __future__ import annotations

import argparse
import random
import time

from benchmarks.common import percentile
from engine import apply_move, new_game, player_view
from engine.analysis import Budget, analyse_game, analyse_position, step_rng
from engine.bots import get_bot
from engine.replay import game_record, parse_record


def greedy_record(players: int, seed: int) -> dict:
    state = new_game([f"P{i}" for i in range(players)], seed=seed)
    bot, rng = get_bot("greedy"), random.Random(seed)
    while not state.finished:
        state, _ = apply_move(state, state.seat, bot.choose(player_view(state, state.seat), rng))
    return game_record(state)


def worst_move_ms(record: dict, seat: int, budget: Budget) -> float:
    """The CPU of the slowest move of `seat` (each timed alone)."""
    state, moves = parse_record(record)
    worst = 0.0
    for step, (player, move) in enumerate(moves):
        if player == seat:
            started = time.thread_time()
            analyse_position(player_view(state, player), move, step_rng("bench", step), budget)
            worst = max(worst, (time.thread_time() - started) * 1000)
        state, _ = apply_move(state, player, move)
    return worst


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10, help="games per player count")
    parser.add_argument("--seats", choices=("all", "one"), default="all")
    args = parser.parse_args(argv)
    budget = Budget()
    print(f"budget: {budget}")
    print("players  games  p50 s  p95 s  max s  worst move ms  moves  capped moves  stopped games")
    for players in (2, 3, 4, 5):
        seconds, worst, moves, capped, stopped = [], 0.0, 0, 0, 0
        for seed in range(args.games):
            record = greedy_record(players, seed)
            seats = list(range(players)) if args.seats == "all" else [0]
            result = analyse_game(record, seats, f"bench-{seed}", budget)
            seconds.append(result.cpu_ms / 1000)
            moves += len(result.moves)
            capped += sum(m.capped for m in result.moves)
            stopped += not result.complete
            if seed == 0:
                worst = worst_move_ms(record, 0, budget)
        print(f"{players:7d}  {args.games:5d}  {percentile(seconds, 50):5.2f}  {percentile(seconds, 95):5.2f}"
              f"  {max(seconds):5.2f}  {worst:13.0f}  {moves:5d}  {capped:12d}  {stopped:13d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
