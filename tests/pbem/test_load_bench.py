"""The load benchmark's figures: per protocol, against the bare ceiling."""
from __future__ import annotations

import pytest

from benchmarks.common import percentile
from benchmarks.load_bench import REQUESTS_PER_MOVE, Samples, ratios, summary


def _samples(moves: int, server_cpu: float, *, clicks: bool) -> Samples:
    samples = Samples(move_ms=[10.0] * moves, moves=moves, server_cpu=server_cpu)
    if clicks:
        samples.click_ms = [25.0] * moves
    return samples


def test_a_click_reports_the_whole_click_and_a_post_only_the_move():
    click = summary(_samples(100, 0.5, clicks=True), 10.0, clicks=True)
    post = summary(_samples(100, 0.3, clicks=False), 10.0)
    assert (click["click_p50_ms"], click["p50_ms"]) == (25.0, 10.0)
    assert "click_p50_ms" not in post and post["per_second"] == 10.0
    assert post["server_cpu_ms_each"] == 3.0


def test_the_latency_tail_is_reported_up_to_the_slowest_move():
    samples = Samples(move_ms=[float(ms) for ms in range(1, 101)], moves=100)
    result = summary(samples, 10.0)
    assert (result["p50_ms"], result["p90_ms"], result["p99_ms"], result["max_ms"]) == (50.0, 90.0, 99.0, 100.0)


def test_ratios_to_the_bare_ceiling():
    ceiling = summary(_samples(400, 0.2, clicks=False), 10.0)  # 40 inserts/s, 0.5 ms CPU each
    click = summary(_samples(100, 0.5, clicks=True), 10.0, clicks=True)  # 10 moves/s, 5 ms each
    assert ratios(click, ceiling, REQUESTS_PER_MOVE["click"]) == {
        "moves_to_ceiling": 0.25, "cpu_moves_to_ceiling": 0.1, "requests_to_ceiling": 0.5}
    assert REQUESTS_PER_MOVE == {"post": 1, "click": 2}


@pytest.mark.parametrize(("p", "count", "expected"), [
    (50, 100, 50), (99, 100, 99), (99, 1000, 990), (99, 50, 50), (100, 7, 7), (0, 7, 1), (50, 1, 1)])
def test_percentile_is_the_nearest_rank(p, count, expected):
    assert percentile([float(v) for v in range(count, 0, -1)], p) == expected
