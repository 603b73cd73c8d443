"""Inference against uniform dealing: how likely each makes the true hidden cards.

    python -m benchmarks.bot_inference_bench [--games 6] [--seed 91000] [--samples 200]
        [--model 0.5:0.02,0.5:1] [--candidates 8] [--window 10] [--steps 15]
        [--players-bot greedy] [--players-iterations 120]

Plays recorded games (greedy bots in every seat, or ``--players-bot``: a search bot there plays
``--players-iterations`` playouts a move, so the games are the same on any machine), and at every
``--every``-th position with a hidden hand deals ``--samples`` determinizations of the seat to
move's view, uniformly (``Sampler``) and by inference (``InferenceSampler`` on the history that
seat saw). Each hidden seat's hand is scored per card kind: the log-probability the samples
give (add-half smoothing over the possible counts) to the true count of that kind in the hand.
Prints the mean per position for both, their difference with a 95% interval, and the share of
positions where inference does better.
"""
from __future__ import annotations

import argparse
import math
import random
import sys

from engine import apply_move, new_game, player_view
from engine.bots import get_bot
from engine.bots.inference import CANDIDATES, MODEL, STEPS, WINDOW, InferenceSampler, Model, \
    observations
from engine.cards import KIND_COUNTS, N_KINDS
from engine.view import Sampler


def _score(deals: list, truth, seats: list[int]) -> float:
    """Sum over hidden seats and kinds of log p(true count of the kind in the hand)."""
    total = 0.0
    for s in seats:
        for k in range(N_KINDS):
            counts = [0] * (KIND_COUNTS[k] + 1)
            for d in deals:
                counts[min(d.hands[s][k], KIND_COUNTS[k])] += 1
            true = truth.hands[s][k]
            total += math.log((counts[true] + 0.5) / (len(deals) + 0.5 * len(counts)))
    return total


def _model(text: str) -> Model:
    """``share:epsilon`` pairs, comma-separated."""
    try:
        model = tuple((float(share), float(eps)) for share, eps in
                      (part.split(":") for part in text.split(",")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"not share:epsilon pairs: {text!r}") from None
    if not model or any(share < 0 or not 0 <= eps <= 1 for share, eps in model) \
            or abs(sum(share for share, _ in model) - 1.0) > 1e-9:
        raise argparse.ArgumentTypeError("shares of 0 or more adding up to 1, epsilons in [0, 1]")
    return model


def _model_text(model: Model) -> str:
    return ",".join(f"{share:g}:{eps:g}" for share, eps in model)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--games", type=int, default=6)
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--seed", type=int, default=91000)
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--every", type=int, default=4)
    p.add_argument("--model", type=_model, default=MODEL,
                   help="kinds of player, share:epsilon each, comma-separated (default: "
                        f"{_model_text(MODEL)}); 1:0.25 is the single model of 2026-12-05")
    p.add_argument("--candidates", type=int, default=CANDIDATES, help="uniform deals a deal kept")
    p.add_argument("--window", type=int, default=WINDOW, help="moves read back per seat")
    p.add_argument("--steps", type=int, default=STEPS, help="chain swaps between deals")
    p.add_argument("--players-bot", default="greedy", help="the bot in every seat of the games")
    p.add_argument("--players-iterations", type=int, default=120,
                   help="playouts a move of a search bot in the games")
    args = p.parse_args(argv)
    player = get_bot(args.players_bot, iterations=args.players_iterations)
    diffs, uni, inf = [], [], []
    for g in range(args.games):
        st = new_game([f"P{i}" for i in range(args.players)], seed=args.seed + g)
        rng = random.Random(args.seed + g)
        k = 0
        while not st.finished:
            seat = st.seat
            view = player_view(st, seat)
            if k % args.every == 0 and k >= args.players:
                hist = observations(st, seat, window=args.window)
                flat = Sampler(view)
                smart = InferenceSampler(view, hist, model=args.model,
                                         candidates=args.candidates, window=args.window,
                                         steps=args.steps)
                seats = flat.hidden_seats
                srng = random.Random(k)
                u = _score([flat.sample(srng) for _ in range(args.samples)], st, seats)
                i = _score([smart.sample(srng) for _ in range(args.samples)], st, seats)
                uni.append(u)
                inf.append(i)
                diffs.append(i - u)
            k += 1
            st, _ = apply_move(st, seat, player.choose(view, rng))
    n = len(diffs)
    mean = sum(diffs) / n
    sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    print(f"positions: {n} ({args.games} games of {args.players} {args.players_bot} bots, "
          f"seed {args.seed}, {args.samples} samples, model {_model_text(args.model)}, "
          f"{args.candidates} candidates, window {args.window}, {args.steps} steps)")
    print(f"log_likelihood_uniform: {sum(uni) / n:.3f} per position")
    print(f"log_likelihood_inference: {sum(inf) / n:.3f} per position")
    print(f"difference: {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]")
    print(f"inference_better: {sum(d > 0 for d in diffs) / n:.2f} of positions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
