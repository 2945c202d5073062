"""Dealer speed against the reference C dealer, measured side by side in one run.

    python benchmarks/dealer.py [HANDS] [--reference DIR] [--rounds N] [--games hunl,kuhn3p]

For each game it plays, in interleaved rounds (so the machine's load hits
every setup alike), ``HANDS`` hands (default 3000) with:

* ``c_dealer_c_players``: the reference dealer (``DIR/dealer``) with its
  example players (``DIR/example_player``): the peer;
* ``our_dealer_c_players``: ``python -m dealer`` with the same C players;
* ``our_dealer_our_clients``: ``python -m dealer`` with ``acpcbot --strategy call``
  client processes.

Speed is hands over the seconds between the transcript's STARTED and
FINISHED stamps (both dealers print them; connections and process start-up
are left out), the median of the rounds.  The ratios to the peer are the
issue's targets (0.8x and 0.4x): ``ratio_to_c`` of the medians, and
``median_round_ratio_to_c``, the median over rounds of each round's ratio
(a round runs the setups back to back, so on a busy machine its ratio
pairs runs made under about the same load).  ``DIR`` comes from ``--reference`` or the
``ACPC_REFERENCE_DIR`` environment variable (build it with
``../shared/reference/build-reference.sh DIR``); without it the C rows are
skipped with a note and only our dealer with our clients is measured.  (That
our logs are the reference's byte for byte is a test: tests/test_dealer_match.py.)
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

# This script's name is the dealer package's: keep its folder off the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
ROOT = Path(_HERE).parent

#: our short name -> the official game file the reference dealer is given (written from our own GameDef)
GAMES = {"hunl": "holdem.nolimit.2p.reverse_blinds.game", "hulhe": "holdem.limit.2p.reverse_blinds.game",
         "kuhn3p": "kuhn.limit.3p.game", "3pnl": "holdem.nolimit.3p.game"}
SEED = 7


def _stamps(err: Path) -> float:
    lines = err.read_text(errors="replace").splitlines()
    start = next(float(ln.split()[-1]) for ln in lines if ln.startswith("STARTED at "))
    end = next(float(ln.split()[-1]) for ln in lines if ln.startswith("FINISHED at "))
    return end - start


def _play(dealer_cmd: list[str], player_cmd, n: int, workdir: Path, label: str) -> tuple[float, Path]:
    """Start a dealer printing its ports, one player per port; return (seconds from the stamps, log path)."""
    err = workdir / f"{label}.err"
    with open(err, "wb") as err_file:
        dealer = subprocess.Popen(dealer_cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=err_file, text=True)
        ports = dealer.stdout.readline().split()
        if len(ports) != n:
            dealer.kill()
            raise RuntimeError(f"{label}: the dealer printed {ports!r}, not {n} ports (see {err})")
        players = [subprocess.Popen(player_cmd(port), cwd=workdir, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL) for port in ports]
        dealer.communicate(timeout=900)
        for p in players:
            p.wait(timeout=60)
    if dealer.returncode != 0:
        raise RuntimeError(f"{label}: the dealer exited with {dealer.returncode} (see {err})")
    return _stamps(err), workdir / f"{label}.log"


def run_game(game: str, hands: int, reference: Path | None, rounds: int, workdir: Path) -> dict[str, object]:
    """Every setup of one game, ``rounds`` times interleaved; medians, ratios and the log comparison."""
    from acpcbot.gamedef import load_game

    gamedef = load_game(game)
    n = gamedef.num_players
    names = [f"p{i + 1}" for i in range(n)]
    game_file = workdir / GAMES[game]
    game_file.write_text(gamedef.to_text())
    ours = [sys.executable, "-m", "dealer"]
    setups: dict[str, tuple[list[str], object]] = {}
    if reference is not None:
        c_player = [str(reference / "example_player"), str(game_file), "127.0.0.1"]
        setups["c_dealer_c_players"] = ([str(reference / "dealer"), "c", str(game_file), str(hands), str(SEED), *names],
                                        lambda port: c_player + [port])
        setups["our_dealer_c_players"] = (ours + ["py", str(game_file), str(hands), str(SEED), *names],
                                          lambda port: c_player + [port])
    client = [sys.executable, "-m", "acpcbot", "127.0.0.1"]
    setups["our_dealer_our_clients"] = (ours + ["pyc", str(game_file), str(hands), str(SEED), *names],
                                        lambda port: client + [port, "--game", str(game_file), "--strategy", "call",
                                                                "--seed", "1", "--log-level", "WARNING"])
    seconds: dict[str, list[float]] = {k: [] for k in setups}
    for _ in range(rounds):
        for label, (dealer_cmd, player_cmd) in setups.items():
            s, _ = _play(dealer_cmd, player_cmd, n, workdir, label.split("_")[0] + label.split("_")[-1])
            seconds[label].append(s)
    out: dict[str, object] = {}
    for label, runs in seconds.items():
        out[label] = {"hands_per_s": round(hands / statistics.median(runs)),
                      "runs": [round(hands / s) for s in runs]}
    if reference is not None:
        peer = hands / statistics.median(seconds["c_dealer_c_players"])
        for label in ("our_dealer_c_players", "our_dealer_our_clients"):
            out[label]["ratio_to_c"] = round(hands / statistics.median(seconds[label]) / peer, 2)
            # each round plays the setups back to back: its ratio pairs runs made under the same load
            paired = [c / o for c, o in zip(seconds["c_dealer_c_players"], seconds[label])]
            out[label]["ratio_to_c_by_round"] = [round(r, 2) for r in paired]
            out[label]["median_round_ratio_to_c"] = round(statistics.median(paired), 2)
    return out


def main() -> None:
    """Measure and print one JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hands", nargs="?", type=int, default=3000)
    ap.add_argument("--reference", default=os.environ.get("ACPC_REFERENCE_DIR"),
                    help="folder with the built reference dealer and example_player (or ACPC_REFERENCE_DIR)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--games", default="hunl,kuhn3p")
    args = ap.parse_args()
    reference = Path(args.reference).resolve() if args.reference else None
    if reference is not None and not (reference / "dealer").is_file():
        reference = None
    os.environ["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    result: dict[str, object] = {"hands": args.hands, "seed": SEED, "date": time.strftime("%Y-%m-%d %H:%M"),
                                 "load_average_before": round(os.getloadavg()[0], 2)}
    if reference is None:
        result["note"] = ("no built reference dealer (--reference DIR or ACPC_REFERENCE_DIR): the C rows are "
                          "skipped; build it with ../shared/reference/build-reference.sh DIR")
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games.split(","):
            result[game] = run_game(game, args.hands, reference, args.rounds, Path(tmp))
    result["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
