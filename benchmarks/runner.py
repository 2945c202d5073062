"""Match runner speed: in-memory hands/s, TCP hands/s with acpcbot client processes, and per-match overhead.

    python benchmarks/runner.py [HANDS]

Prints one JSON object with at least ``memory_hands_per_s`` (hunl, the
always-call pair: every hand goes to showdown through the whole loop) and
``match_overhead_s`` (wall time of a one-hand TCP match through
``acpc-match``: dealer and client processes started, results, report).
The peer in the same run is the dealer's own benchmark player (a bare
socket loop, benchmarks/dealer.py) in place of the acpcbot client
processes: ``tcp_vs_bare_players`` is our TCP rate over that one.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from anywhere without the benchmarks folder shadowing packages

from dealer.arena.recipes import build_plan, make_entries  # noqa: E402
from dealer.arena.runner import execute  # noqa: E402

TARGET_MEMORY_HANDS_PER_S = 10000
PAIRS = {"fold-fold": ("fold", "fold"), "call-call": ("call", "call"),
         "raise_pot-call": ("raise:size=pot", "call"), "random-random": ("random", "random")}


def _plan(a: str, b: str, hands: int, transport: str, game: str = "hunl"):
    entries = make_entries([(None, a, None), (None, b, None)])
    return build_plan(name="bench", game=game, hands=hands, seed=1, duplicate=False, mode="play", entries=entries,
                      transport=transport, parallel=1)


def _match_seconds(doc: dict) -> float:
    return doc["matches"][0]["seconds"]


def _transcript_seconds(run_dir: Path) -> float:
    """Play time between the dealer's STARTED and FINISHED stamps (start-up excluded)."""
    lines = (run_dir / "match-000.err").read_text().splitlines()
    started = next(float(ln.split()[-1]) for ln in lines if ln.startswith("STARTED"))
    finished = next(float(ln.split()[-1]) for ln in lines if ln.startswith("FINISHED"))
    return finished - started


def _bare_player_rate(hands: int, tmp: Path) -> float | None:
    """hunl hands/s of the dealer with the dealer benchmark's bare socket players."""
    path = ROOT / "benchmarks" / "dealer.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("dealer_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module.run_match("hunl", hands, tmp)["hands_per_s"]


def main() -> None:
    """Run the measurements and print the JSON object."""
    hands = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    result: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp) / "runs"
        by_pair = {}
        for label, (a, b) in PAIRS.items():
            best = min(_match_seconds(execute(_plan(a, b, hands, "memory"), runs)) for _ in range(2))
            by_pair[label] = round(hands / best)
        result["memory_hands_per_s"] = by_pair["call-call"]
        result["memory_hands_per_s_by_pair"] = by_pair
        result["memory_vs_target"] = round(by_pair["call-call"] / TARGET_MEMORY_HANDS_PER_S, 2)

        overheads = []
        for _ in range(3):
            start = time.perf_counter()
            execute(_plan("call", "call", 1, "tcp"), runs)
            overheads.append(time.perf_counter() - start)
        result["match_overhead_s"] = round(min(overheads), 3)
        start = time.perf_counter()
        execute(_plan("call", "call", 1, "memory"), runs)
        result["memory_match_overhead_s"] = round(time.perf_counter() - start, 3)

        tcp_hands = max(200, hands // 3)
        doc = execute(_plan("call", "call", tcp_hands, "tcp"), runs)
        tcp_rate = tcp_hands / _transcript_seconds(Path(doc["run_dir"]))
        result["tcp_hands_per_s"] = round(tcp_rate)
        result["memory_vs_tcp"] = round(by_pair["call-call"] / tcp_rate, 1)
        bare = _bare_player_rate(tcp_hands, Path(tmp))
        if bare:
            result["tcp_bare_players_hands_per_s"] = bare
            result["tcp_vs_bare_players"] = round(tcp_rate / bare, 2)
    result["hands"] = hands
    print(json.dumps(result))


if __name__ == "__main__":
    main()
