"""Speed of hand ranking and equity, against treys and eval7 measured in the same run; prints one JSON object.

    .venv/bin/python benchmarks/evaluator.py [--no-eval7]

Keys: treys_7card_per_s (treys.Evaluator.evaluate in a Python loop),
eval7_7card_per_s (eval7.evaluate in a Python loop over prebuilt Card
lists: eval7 is installed by this benchmark into a scratch venv when pip
can get it, skipped otherwise, see ``eval7_note``), batch_7card_per_s
(rank_batch on 1,000,000 random 7-card hands, checked), batch_vs_treys and
batch_vs_eval7 (their ratios; issue 31 asks at least 10 against eval7),
holdings_board_us / holdings_board_one_by_one_us (all 1,326 holdings ranked
on one river board by ``pair_ranks``, against ``rank`` called per holding),
holdings_rivers_ms / holdings_rivers_one_by_one_ms (every holding on every
river of a turn board by ``river_ranks``, against one call per holding and
river), equity_preflop_100k_ms (a hand against one random hand, 100,000
Monte Carlo deals), equity_river_exact_ms (exact river equity against the
full range), plus a few more.  Times are best or median of several runs
(eval7 and rank_batch interleaved); on a shared machine they are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from treys import Evaluator  # noqa: E402

from acpcbot import evaluator as ev  # noqa: E402 - acpcbot before numpy: one BLAS thread (see its __init__)
import numpy as np  # noqa: E402
from acpcbot.cards import TREYS_INT, card_to_text  # noqa: E402
from acpcbot.evaluator import ranking as _ranking  # noqa: E402

PAIR_LIST = [(int(a), int(b)) for a, b in ev.PAIRS.tolist()]


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


#: eval7's loop, run by the scratch venv's Python: hands from a file of card texts, the best of five passes
_EVAL7_LOOP = """
import sys, time, eval7
hands = [[eval7.Card(c) for c in line.split()] for line in open(sys.argv[1])]
evaluate = eval7.evaluate
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    for h in hands:
        evaluate(h)
    best = min(best, time.perf_counter() - t)
print(len(hands) / best)
"""


def eval7_python(tmp: Path) -> tuple[str | None, str]:
    """A Python with eval7 (a scratch venv under ``tmp``, eval7 installed by pip), or None and why not."""
    venv = tmp / "eval7-venv"
    try:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=120)
        py = venv / "bin" / "python"
        got = subprocess.run([str(py), "-m", "pip", "install", "--quiet", "eval7"], capture_output=True, text=True,
                             timeout=300)
        if got.returncode != 0:
            return None, "pip install eval7 failed: " + (got.stderr.strip().splitlines() or ["?"])[-1]
        return str(py), "eval7 " + subprocess.run([str(py), "-c", "import importlib.metadata as m; "
                                                   "print(m.version('eval7'))"], capture_output=True, text=True,
                                                  timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"no scratch venv for eval7: {exc}"


def eval7_rate(py: str, hands_file: Path, passes: int = 3) -> float:
    """eval7.evaluate calls per second over the hands of ``hands_file``."""
    out = subprocess.run([py, "-c", _EVAL7_LOOP, str(hands_file), str(passes)], check=True, capture_output=True,
                         text=True, timeout=600)
    return float(out.stdout.strip())


def one_by_one_board(board: list[int]) -> None:
    """Every holding on one board, one ``rank_unchecked`` call per holding (the peer of ``pair_ranks``)."""
    rank = _ranking.rank_unchecked
    used = set(board)
    for a, b in PAIR_LIST:
        if a not in used and b not in used:
            rank(board + [a, b])


def main() -> None:
    """Run the measurements and print the JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-eval7", action="store_true", help="skip eval7 (no scratch venv, no pip)")
    args = ap.parse_args()
    rng = np.random.default_rng(2024)
    hands = random_hands(rng, 1_000_000, 7)
    load_before = round(os.getloadavg()[0], 2)
    tmp_dir = tempfile.TemporaryDirectory()
    tmp = Path(tmp_dir.name)
    py, eval7_note = (None, "skipped (--no-eval7)") if args.no_eval7 else eval7_python(tmp)
    hands_file = tmp / "hands.txt"
    hands_file.write_text("\n".join(" ".join(card_to_text(c) for c in h) for h in hands[:200_000].tolist()) + "\n")
    eval7_rates, batch_rates = [], []
    for _ in range(3):  # interleaved, so that both see the same machine
        if py is not None:
            eval7_rates.append(eval7_rate(py, hands_file))
        batch_rates.append(len(hands) / median_time(lambda: ev.rank_batch(hands), 3))

    river = hands[0].tolist()[:5]
    holdings_board_s = median_time(lambda: ev.pair_ranks(np.array([river])), 21)
    holdings_board_one_s = median_time(lambda: one_by_one_board(river), 5)
    turn = river[:4]
    holdings_rivers_s = median_time(lambda: ev.river_ranks(turn), 11)

    def one_by_one_rivers() -> None:
        for c in range(52):
            if c not in turn:
                one_by_one_board(turn + [c])
    holdings_rivers_one_s = median_time(one_by_one_rivers, 1)

    treys = Evaluator()
    sample = [[TREYS_INT[c] for c in h] for h in hands[:50_000].tolist()]

    def treys_loop() -> None:
        evaluate = treys.evaluate
        for h in sample:
            evaluate(h[:2], h[2:])
    treys_s = median_time(treys_loop, 3)

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
    batch_rate = max(batch_rates)
    eval7_best = max(eval7_rates) if eval7_rates else None
    tmp_dir.cleanup()
    print(json.dumps({
        "treys_7card_per_s": round(treys_rate),
        "eval7_7card_per_s": eval7_best and round(eval7_best),
        "eval7_note": eval7_note,
        "batch_7card_per_s": round(batch_rate),
        "batch_vs_eval7": eval7_best and round(batch_rate / eval7_best, 1),
        "holdings_board_us": round(holdings_board_s * 1e6, 1),
        "holdings_board_one_by_one_us": round(holdings_board_one_s * 1e6, 1),
        "holdings_board_speedup": round(holdings_board_one_s / holdings_board_s, 1),
        "holdings_rivers_ms": round(holdings_rivers_s * 1e3, 2),
        "holdings_rivers_one_by_one_ms": round(holdings_rivers_one_s * 1e3, 1),
        "holdings_rivers_speedup": round(holdings_rivers_one_s / holdings_rivers_s, 1),
        "load_average_before": load_before,
        "load_average_after": round(os.getloadavg()[0], 2),
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
