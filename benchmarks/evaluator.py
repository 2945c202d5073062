"""Speed of hand ranking and equity, against treys measured in the same run; prints one JSON object.

    .venv/bin/python benchmarks/evaluator.py

Keys: treys_7card_per_s (treys.Evaluator.evaluate in a Python loop),
batch_7card_per_s (rank_batch on 1,000,000 random 7-card hands, checked),
batch_vs_treys (their ratio), equity_preflop_100k_ms (a hand against one
random hand, 100,000 Monte Carlo deals), equity_river_exact_ms (exact river
equity against the full range), plus a few more.  Times are medians of
several runs; on a shared machine they are noisy.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treys import Evaluator  # noqa: E402

from acpcbot import evaluator as ev  # noqa: E402 - acpcbot before numpy: one BLAS thread (see its __init__)
import numpy as np  # noqa: E402
from acpcbot.cards import TREYS_INT  # noqa: E402


def median_time(fn, repeats: int) -> float:
    """Median wall time of ``fn()`` in seconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def random_hands(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """n random hands of distinct cards."""
    out = np.empty((0, size), dtype=np.int64)
    while len(out) < n:
        draw = rng.integers(0, 52, size=(n, size))
        s = np.sort(draw, axis=1)
        out = np.vstack([out, draw[(np.diff(s, axis=1) != 0).all(axis=1)]])
    return out[:n]


def main() -> None:
    """Run the measurements and print the JSON object."""
    rng = np.random.default_rng(2024)
    hands = random_hands(rng, 1_000_000, 7)

    treys = Evaluator()
    sample = [[TREYS_INT[c] for c in h] for h in hands[:50_000].tolist()]

    def treys_loop() -> None:
        evaluate = treys.evaluate
        for h in sample:
            evaluate(h[:2], h[2:])
    treys_s = median_time(treys_loop, 3)

    batch_s = median_time(lambda: ev.rank_batch(hands), 5)
    batch_unchecked_s = median_time(lambda: ev.rank_batch(hands, check=False), 5)
    small = hands.astype(np.int8)
    batch_int8_s = median_time(lambda: ev.rank_batch(small), 5)

    lists = hands[:100_000].tolist()

    def scalar_loop() -> None:
        value = ev.showdown_value
        for h in lists:
            value(h)
    scalar_s = median_time(scalar_loop, 3)

    preflop_s = median_time(lambda: ev.equity("AsAh", "", samples=100_000, rng=1), 7)
    river_s = median_time(lambda: ev.equity("AsKd", "Qh7c2s9d3h"), 21)
    turn_s = median_time(lambda: ev.equity("AsKd", "Qh7c2s9d"), 11)
    flop_s = median_time(lambda: ev.equity("AsKd", "Qh7c2s"), 5)
    build_s = median_time(ev.build_tables, 1)

    treys_rate = len(sample) / treys_s
    batch_rate = len(hands) / batch_s
    print(json.dumps({
        "treys_7card_per_s": round(treys_rate),
        "batch_7card_per_s": round(batch_rate),
        "equity_preflop_100k_ms": round(preflop_s * 1e3, 2),
        "equity_river_exact_ms": round(river_s * 1e3, 3),
        "batch_vs_treys": round(batch_rate / treys_rate, 1),
        "batch_7card_unchecked_per_s": round(len(hands) / batch_unchecked_s),
        "batch_7card_int8_per_s": round(len(hands) / batch_int8_s),
        "showdown_value_7card_us": round(scalar_s / len(lists) * 1e6, 3),
        "equity_turn_exact_ms": round(turn_s * 1e3, 3),
        "equity_flop_exact_ms": round(flop_s * 1e3, 2),
        "table_build_s": round(build_s, 3),
    }))


if __name__ == "__main__":
    main()
