"""Decision time of every registered strategy: p50 and p99 of ``act`` in milliseconds.

Each strategy (created from its bare name, so with its default parameters)
plays seeded hands of hunl and of hulhe against the reference ``random``
player, in process: the engine deals with the reference's deck and
generator, every state line goes through the seat's ``World`` to
``observe`` (and ``end_hand``), and only ``act`` is timed.  Games a
strategy refuses are left out; strategies a person plays (``human``) are
skipped.  Every module of ``acpcbot.strategies`` is imported first, so a
strategy is measured even before ``builtin.py`` lists it.  Each strategy
is measured in a fresh process of its own, so that no cache warmed by
another (the same seeded deals come round for every strategy) flatters it.
Each strategy is also measured live: an acpcbot process playing it over
TCP through the bundled dealer (``python -m dealer``) against an acpcbot
playing ``random``, ``--live-hands`` hands per game; a decision's live time
is from the dealer's writing the state to the seat to its reading the
reply (the stamps of the transcript's TO and FROM lines), so it holds the
client's own work and the socket besides ``act``.  In process each ``act``'s
processor time is kept too (``cpu_*``): on a machine busier than its cores
the wall-clock figures also count the time the process waited for one.
Prints one JSON object:
``{"<strategy>": {"p50_ms": ..., "p99_ms": ..., "max_ms": ..., "actions":
..., "games": [...], "cpu_p50_ms": ..., "cpu_p99_ms": ..., "live": {"p50_ms":
..., "p99_ms": ..., "max_ms": ..., "actions": ...}, "live_vs_in_process_p99":
...}, ...}``; problems, the date and the load average go to stderr.

    python benchmarks/strategies.py [--hands 300] [--live-hands 100] [--seed 1] [--games hunl,hulhe] [--only mfs,rh]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import pkgutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acpcbot.strategies as strategies_pkg  # noqa: E402
import numpy as np  # noqa: E402 - after acpcbot, which gives numpy's BLAS one thread (see its __init__)
from acpcbot.engine import State  # noqa: E402
from acpcbot.gamedef import load_game  # noqa: E402
from acpcbot.protocol import format_match_state  # noqa: E402
from acpcbot.strategies.registry import available, create  # noqa: E402
from acpcbot.world import MatchInfo, World  # noqa: E402
from dealer.rng import Dealer  # noqa: E402


def import_all() -> None:
    """Import every strategy module so that each registers itself; report the ones that fail."""
    for info in pkgutil.iter_modules(strategies_pkg.__path__):
        try:
            importlib.import_module(f"{strategies_pkg.__name__}.{info.name}")
        except Exception as exc:  # noqa: BLE001 - one broken module must not stop the others' figures
            print(f"strategies.{info.name}: cannot import: {type(exc).__name__}: {exc}", file=sys.stderr)


def play(spec: str, game_name: str, hands: int, seed: int, cpu: list[float] | None = None) -> list[float]:
    """Seconds of each ``act`` of ``spec`` over ``hands`` hands against random (seats swap every hand); ``cpu``
    gets each one's processor time too (what a busy machine does not inflate by descheduling the process)."""
    game = load_game(game_name)
    n = game.num_players
    seats = [create(spec, game, seed), create("random", game, seed + 1)] + \
            [create("random", game, seed + 1 + i) for i in range(2, n)]
    worlds = []
    for s, strategy in enumerate(seats):
        info = MatchInfo(game, name=f"seat{s}", seed=seed + s, opponents=tuple(f"seat{o}" for o in range(n) if o != s),
                         spec=strategy.spec)
        strategy.start_match(info)
        worlds.append(World(game, info))
    deal = Dealer(game, seed)
    times: list[float] = []
    for hand in range(hands):
        holes, board = deal.deal()
        state = State(game, hand, holes, board)
        while True:
            for pos in range(n):
                seat = (pos + hand) % n
                view = worlds[seat].update(format_match_state(state, pos))
                seats[seat].observe(view)
                if state.finished:
                    seats[seat].end_hand(view)
            if state.finished:
                break
            pos = state.current_player
            seat = (pos + hand) % n
            view = worlds[seat].last
            start, start_cpu = time.perf_counter(), time.process_time()
            action = seats[seat].act(view, time.monotonic() + 7.0)
            elapsed, elapsed_cpu = time.perf_counter() - start, time.process_time() - start_cpu
            if seat == 0:
                times.append(elapsed)
                if cpu is not None:
                    cpu.append(elapsed_cpu)
            action, _ = state.fix(action)
            state.apply(action)
    for strategy in seats:
        strategy.end_match()
    return times


def measure(name: str, hands: int, seed: int, games: list[str]) -> dict | None:
    """The figures of one strategy in this process (None when it played no game)."""
    cls = available()[name]
    samples: list[float] = []
    cpu: list[float] = []
    played = []
    for game_name in games:
        if cls.unsupported_reason(load_game(game_name)) is not None:
            continue
        try:
            samples += play(name, game_name, hands, seed, cpu)
        except Exception as exc:  # noqa: BLE001 - report and go on with the others
            print(f"{name} in {game_name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        played.append(game_name)
    if not samples:
        return None
    ms = np.array(samples) * 1000
    cpu_ms = np.array(cpu) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 4), "p99_ms": round(float(np.percentile(ms, 99)), 4),
            "max_ms": round(float(ms.max()), 3), "actions": len(samples), "games": played,
            "cpu_p50_ms": round(float(np.percentile(cpu_ms, 50)), 4),
            "cpu_p99_ms": round(float(np.percentile(cpu_ms, 99)), 4)}


def live(spec: str, game_name: str, hands: int, seed: int, workdir: Path) -> list[float]:
    """Seconds from each state sent to ``spec``'s seat to its reply, over TCP through the bundled dealer."""
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, PYTHONPATH=str(root))
    python = [sys.executable, "-P"]
    err = workdir / "live.err"
    with open(err, "wb") as err_file:
        dealer = subprocess.Popen(python + ["-m", "dealer", "live", game_name, str(hands), str(seed), "hero", "villain"],
                                  cwd=workdir, stdout=subprocess.PIPE, stderr=err_file, text=True, env=env)
        ports = (dealer.stdout.readline() if dealer.stdout else "").split()
        if len(ports) != 2:
            dealer.kill()
            raise RuntimeError(f"the dealer printed {ports!r}")
        players = [subprocess.Popen(python + ["-m", "acpcbot", "127.0.0.1", port, "--game", game_name, "--strategy",
                                              who, "--seed", str(seed), "--log-level", "ERROR"],
                                    cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
                   for port, who in zip(ports, (spec, "random"))]
        dealer.communicate(timeout=3600)
        for p in players:
            p.wait(timeout=60)
    asked: dict[str, float] = {}
    times = []
    for line in err.read_text(errors="replace").splitlines():
        if line.startswith("TO 1 at "):
            _, _, _, stamp, text = line.split(" ", 4)
            asked[text] = float(stamp)
        elif line.startswith("FROM 1 at "):
            _, _, _, stamp, text = line.split(" ", 4)
            state = text.rpartition(":")[0]
            if state in asked:
                times.append(float(stamp) - asked.pop(state))
    return times


def measure_live(name: str, hands: int, seed: int, games: list[str]) -> dict | None:
    """The live figures of one strategy (None when it played no game)."""
    cls = available()[name]
    samples: list[float] = []
    for game_name in games:
        if cls.unsupported_reason(load_game(game_name)) is not None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            try:
                samples += live(name, game_name, hands, seed, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - report and go on with the others
                print(f"{name} in {game_name} (live): {type(exc).__name__}: {exc}", file=sys.stderr)
    if not samples:
        return None
    ms = np.array(samples) * 1000
    return {"p50_ms": round(float(np.percentile(ms, 50)), 3), "p99_ms": round(float(np.percentile(ms, 99)), 3),
            "max_ms": round(float(ms.max()), 3), "actions": len(samples)}


def main(argv: list[str] | None = None) -> int:
    """Measure and print the JSON object."""
    parser = argparse.ArgumentParser(description="p50/p99 decision time of every registered strategy")
    parser.add_argument("--hands", type=int, default=300, help="hands per game (default: 300)")
    parser.add_argument("--live-hands", type=int, default=None,
                        help="hands per game over TCP (default: 100, or --hands if fewer; 0 leaves the live figures out)")
    parser.add_argument("--seed", type=int, default=1, help="deal and strategy seed (default: 1)")
    parser.add_argument("--games", default="hunl,hulhe", help="games to play (default: hunl,hulhe)")
    parser.add_argument("--only", help="comma-separated strategy names to measure (default: all)")
    parser.add_argument("--here", action="store_true", help="measure in this process (no process per strategy)")
    args = parser.parse_args(argv)
    import_all()
    if args.live_hands is None:
        args.live_hands = min(100, args.hands)
    names = [n for n, cls in available().items() if cls.run_mode.time_limited]
    if args.only:
        names = [n for n in names if n in set(args.only.split(","))]
    games = args.games.split(",")
    out: dict[str, dict] = {}
    for name in names:
        if args.here:
            figures = measure(name, args.hands, args.seed, games)
        else:
            child = subprocess.run([sys.executable, __file__, "--here", "--only", name, "--hands", str(args.hands),
                                    "--seed", str(args.seed), "--games", args.games],
                                   stdout=subprocess.PIPE, text=True, check=False)
            figures = json.loads(child.stdout).get(name) if child.returncode == 0 and child.stdout else None
        if figures is not None:
            if not args.here and args.live_hands > 0:
                live_figures = figures["live"] = measure_live(name, args.live_hands, args.seed, games)
                if live_figures is not None and figures["p99_ms"] > 0:
                    # the peer is the same strategy in process: what the client and the socket add
                    figures["live_vs_in_process_p99"] = round(live_figures["p99_ms"] / figures["p99_ms"], 2)
            out[name] = figures
    if not args.here:
        print(f"{time.strftime('%Y-%m-%d %H:%M')}, load average {os.getloadavg()[0]:.2f}, {args.hands} hands and "
              f"{args.live_hands} live hands per game of {', '.join(games)}", file=sys.stderr)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
