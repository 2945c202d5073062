"""Engine speed: random legal play in-process, dealing and showdown included; logcheck speed.

    python benchmarks/engine.py [HANDS] [--reference DIR]

Prints one JSON object.  The peer figure is the reference C dealer with its
C example players over TCP (hunl): measured in the same run with
``--reference DIR`` (or ``ACPC_REFERENCE_DIR``), else the 2,500 hands/s
measured on this machine for issue 2, marked as such.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

# Scripts in this folder share names with packages (benchmarks/dealer.py):
# keep the folder off the import path so `dealer` is the package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import load_game
from acpcbot.logcheck import check_log
from acpcbot.matchlog import format_header, format_score_line, format_state_line
from dealer.rng import Dealer

REFERENCE_C_DEALER_HANDS_PER_S = 2500


def play(game_name: str, hands: int, seed: int = 1, log: list[str] | None = None) -> tuple[int, float]:
    """Play ``hands`` hands with the reference example player's mix; return (actions, seconds)."""
    game = load_game(game_name)
    dealer = Dealer(game, seed)
    rng = random.Random(seed)
    nolimit = game.is_nolimit
    n = game.num_players
    totals = [0.0] * n
    actions = 0
    start = time.perf_counter()
    for h in range(hands):
        hole, board = dealer.deal()
        st = State(game, h, hole, board)
        while not st.finished:
            legal = st.legal_actions()
            x = rng.random()
            # fold 0.06, call 0.47, raise 0.47 with impossible choices removed, as the example player does
            can_fold = legal[0] == ActionType.FOLD
            can_raise = legal[-1] == ActionType.RAISE
            total = (0.06 if can_fold else 0) + 0.47 + (0.47 if can_raise else 0)
            x *= total
            if can_fold and x < 0.06:
                action = FOLD
            elif can_raise and x >= total - 0.47:
                if nolimit:
                    lo, hi = st.raise_bounds()
                    action = raise_to(rng.randint(lo, hi))
                else:
                    action = RAISE
            else:
                action = CALL
            st.apply(action)
            actions += 1
        payoffs = st.payoffs()
        if log is not None:
            seats = [(p + h) % n for p in range(n)]
            for p in range(n):
                totals[seats[p]] += payoffs[p]
            log.append(format_state_line(st, [f"p{s + 1}" for s in seats], payoffs))
    if log is not None:
        log.append(format_score_line(totals, [f"p{s + 1}" for s in range(n)]))
    return actions, time.perf_counter() - start


def reference_rate(reference: Path, hands: int = 3000) -> float:
    """hunl hands/s of the reference dealer with its example players, between its STARTED and FINISHED stamps."""
    import subprocess

    with tempfile.TemporaryDirectory() as tmp:
        game_file = Path(tmp) / "holdem.nolimit.2p.reverse_blinds.game"
        game_file.write_text(load_game("hunl").to_text())
        err = Path(tmp) / "ref.err"
        with open(err, "wb") as err_file:
            dealer = subprocess.Popen([str(reference / "dealer"), "ref", str(game_file), str(hands), "1", "a", "b"],
                                      cwd=tmp, stdout=subprocess.PIPE, stderr=err_file, text=True)
            ports = dealer.stdout.readline().split() if dealer.stdout else []
            players = [subprocess.Popen([str(reference / "example_player"), str(game_file), "127.0.0.1", port],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for port in ports]
            dealer.communicate(timeout=600)
            for player in players:
                player.wait(timeout=60)
        lines = err.read_text(errors="replace").splitlines()
        started = next(float(ln.split()[-1]) for ln in lines if ln.startswith("STARTED"))
        finished = next(float(ln.split()[-1]) for ln in lines if ln.startswith("FINISHED"))
    return hands / (finished - started)


def main() -> None:
    """Run the measurements and print the JSON object."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hands", nargs="?", type=int, default=30000, help="hands per game and round (default 30000)")
    parser.add_argument("--reference", metavar="DIR", default=os.environ.get("ACPC_REFERENCE_DIR"),
                        help="folder holding the built reference C dealer (default $ACPC_REFERENCE_DIR)")
    ns = parser.parse_args()
    hands, reference = ns.hands, ns.reference
    result: dict[str, object] = {}
    for name in ("hunl", "hulhe", "kuhn3p"):
        play(name, 500)  # warm caches and tables
        best = None
        for _ in range(3):
            actions, seconds = play(name, hands)
            if best is None or seconds < best[1]:
                best = (actions, seconds)
        actions, seconds = best
        result[name] = {"hands_per_s": round(hands / seconds), "actions_per_s": round(actions / seconds)}
    if reference and (Path(reference) / "dealer").is_file():
        peer, measured = reference_rate(Path(reference)), True
    else:
        peer, measured = REFERENCE_C_DEALER_HANDS_PER_S, False
    result["reference_c_dealer_tcp_hands_per_s"] = round(peer)
    result["reference_measured_in_this_run"] = measured
    result["hunl"]["vs_reference_c_dealer_tcp"] = round(result["hunl"]["hands_per_s"] / peer, 1)
    lines = format_header("bench", "hunl", 1000, 1, 600000, 600000, 7000)
    play("hunl", 1000, log=lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.log"
        path.write_text("\n".join(lines) + "\n")
        best_s = min(_timed(check_log, path) for _ in range(3))
    result["logcheck_1000_hands_s"] = round(best_s, 3)
    print(json.dumps(result))


def _timed(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
