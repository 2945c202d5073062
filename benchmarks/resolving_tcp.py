"""Decision time of a re-solving player live over TCP against the reference C dealer, by street (issue 30).

Starts the built reference dealer (``ACPC_REFERENCE_DIR`` or
``--reference``; build it with ``../shared/reference/build-reference.sh``)
with its transaction file on (``-T``: each action's send and receive
stamps, taken by the dealer) and the competition's average budget
(``--t_per_hand 7000``), and two ``acpcbot`` processes on 127.0.0.1: the
measured strategy and its opponent.  Each decision's time is what the
dealer saw: from sending the state to receiving the action, network and
reading included.  The log's STATE lines give each action's seat and
street.  The peer in the same run is the same player with re-solving off
(``blueprint:resolve=0``: the table's lookup), on the same deals.
Without a built reference it prints a JSON object saying so and exits 0.

    python benchmarks/resolving_tcp.py [--game hunl] [--hands 100] [--opponent call] [--strategy blueprint]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

from acpcbot.gamedef import GameDef, load_game  # noqa: E402
from acpcbot.matchlog import read_match_log  # noqa: E402
from dealer.logs import read_transactions  # noqa: E402

STREETS = ("preflop", "flop", "turn", "river")
SEED = 7


def _quantiles(ms: list[float]) -> dict[str, float | int]:
    """Count, median, p99 and max of decision times in milliseconds."""
    if not ms:
        return {"n": 0}
    ordered = sorted(ms)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return {"n": len(ms), "median_ms": round(statistics.median(ms), 2), "p99_ms": round(p99, 2),
            "max_ms": round(ordered[-1], 2), "mean_ms": round(statistics.fmean(ms), 2)}


def play(reference: Path, game_name: str, game_file: Path, hands: int, specs: tuple[str, str],
         workdir: Path, label: str) -> tuple[Path, Path, float]:
    """One match: the C dealer and two acpcbot seats; returns (log, transaction file, wall seconds)."""
    names = ("measured", "opponent")
    dealer_cmd = [str(reference / "dealer"), label, str(game_file), str(hands), str(SEED), *names, "-T",
                  "--t_per_hand", "7000"]
    t0 = time.perf_counter()
    with contextlib.ExitStack() as files:
        err = files.enter_context(open(workdir / f"{label}.err", "wb"))
        dealer = subprocess.Popen(dealer_cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=err, text=True)
        assert dealer.stdout is not None
        ports = dealer.stdout.readline().split()
        if len(ports) != 2:
            dealer.kill()
            raise RuntimeError(f"{label}: the dealer printed {ports!r}, not two ports (see {workdir / label}.err)")
        seats = [subprocess.Popen([sys.executable, "-m", "acpcbot", "127.0.0.1", port, "--game", game_name,
                                   "--strategy", spec, "--seed", str(i + 1), "--name", name,
                                   "--log-level", "WARNING"], cwd=workdir, stdout=subprocess.DEVNULL,
                                  stderr=files.enter_context(open(workdir / f"{label}-{name}.err", "wb")))
                 for i, (port, spec, name) in enumerate(zip(ports, specs, names))]
        dealer.communicate(timeout=4 * 3600)
        for seat in seats:
            seat.wait(timeout=120)
    if dealer.returncode != 0:
        raise RuntimeError(f"{label}: the dealer exited with {dealer.returncode} (see {workdir / label}.err)")
    return workdir / f"{label}.log", workdir / f"{label}.tlog", time.perf_counter() - t0


def decision_times(game: GameDef, log: Path, tlog: Path, seat_name: str) -> tuple[dict[str, list[float]], list[float]]:
    """``seat_name``'s decision times (ms) by street, and its time per hand (the sum over the hand's decisions)."""
    hands = {hand.hand_id: hand for hand in read_match_log(log, game).hands}
    transactions, _ = read_transactions(tlog)
    by_hand: dict[int, list] = {}
    for t in transactions:
        by_hand.setdefault(t.hand_id, []).append(t)
    streets: dict[str, list[float]] = {s: [] for s in STREETS}
    per_hand: list[float] = []
    for hand_id, logged in hands.items():
        steps = logged.state.steps()
        acts = by_hand.get(hand_id, [])
        if len(acts) != len(steps):
            raise RuntimeError(f"hand {hand_id}: {len(acts)} transactions for {len(steps)} actions in the log")
        total = 0.0
        for step, t in zip(steps, acts):
            if logged.names[step.player] != seat_name:
                continue
            ms = (t.recv_us - t.send_us) / 1000.0
            streets[STREETS[min(step.round, 3)]].append(ms)
            total += ms
        per_hand.append(total)
    return streets, per_hand


def main() -> None:
    """Play the measured player and the peer against the same opponent on the same deals; print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="hunl")
    ap.add_argument("--hands", type=int, default=100)
    ap.add_argument("--opponent", default="call")
    ap.add_argument("--strategy", default="blueprint")
    ap.add_argument("--peer", default="blueprint:resolve=0")
    ap.add_argument("--reference", default=os.environ.get("ACPC_REFERENCE_DIR"))
    args = ap.parse_args()
    out: dict[str, object] = {"game": args.game, "hands": args.hands, "opponent": args.opponent,
                              "strategy": args.strategy, "peer": args.peer,
                              "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                              "load_average_before": round(os.getloadavg()[0], 2)}
    reference = Path(args.reference) if args.reference else None
    if reference is None or not (reference / "dealer").is_file():
        out["skipped"] = "no built reference dealer (--reference DIR or ACPC_REFERENCE_DIR)"
        print(json.dumps(out))
        return
    game = load_game(args.game)
    with tempfile.TemporaryDirectory(prefix="acpcbot-tcp-") as tmp:
        workdir = Path(tmp)
        game_file = workdir / "game.game"
        game_file.write_text(game.to_text())
        for key, spec in (("measured", args.strategy), ("peer_table", args.peer)):
            log, tlog, wall = play(reference, args.game, game_file, args.hands, (spec, args.opponent), workdir, key)
            streets, per_hand = decision_times(game, log, tlog, "measured")
            every = [ms for s in STREETS for ms in streets[s]]
            out[key] = {"spec": spec, "wall_s": round(wall, 1),
                        "per_hand": _quantiles(per_hand),
                        "every_decision": _quantiles(every),
                        "by_street": {s: _quantiles(streets[s]) for s in STREETS}}
    measured, peer = out["measured"], out["peer_table"]
    assert isinstance(measured, dict) and isinstance(peer, dict)
    out["per_hand_mean_ratio_to_peer"] = round(measured["per_hand"]["mean_ms"] / max(peer["per_hand"]["mean_ms"], 1e-9), 1)
    out["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
