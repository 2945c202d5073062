"""Match runner speed: the command a user types, end to end, beside the match loop alone; TCP; overhead per match.

    python benchmarks/runner.py [HANDS] [--end-to-end-hands N] [--reference DIR]

Prints one JSON object.  First what a user waits for: ``end_to_end_hands_per_s``
is ``acpc-match play --game hunl --hands N --transport memory call call``
(N = ``--end-to-end-hands``, default 20,000) timed as a command, from its
start to its exit (results.json and report.svg written, the analysis with
AIVAT included); ``end_to_end_no_aivat_hands_per_s`` the same with
``--no-aivat``; ``end_to_end_in_process_hands_per_s`` the same run through
``runner.execute`` in this process (no interpreter start); beside them,
the peer measured in the same run, ``match_loop_hands_per_s``: the same
match's loop alone (``memory.play_match``, the log written, no analysis);
``end_to_end_vs_loop`` is loop rate over end-to-end rate (issue 31: at most
1.3) and ``aivat_share`` AIVAT's time (end to end with it minus without it)
over the match loop's (issue 31: at most 0.2).  The same in CPU seconds (the
command's processes, its pool workers included, against the loop's
process time), which a loaded machine moves less:
``end_to_end_cpu_vs_loop_cpu`` and ``aivat_cpu_share``.  The command runs
with Python's bytecode cache on (in the scratch folder, warmed by one run),
as an installed acpcbot has it, whatever PYTHONDONTWRITEBYTECODE says.  Then ``memory_hands_per_s`` (hunl, the always-call pair:
every hand goes to showdown through the whole loop; the best of three
matches, by wall time and by the process's CPU time, so that a busy
machine's waits for a core can be told apart), the same for other pairs,
``memory_general_loop_hands_per_s`` (call against call through the general
in-memory loop, a World per seat: the peer of the fused loop that lean
seats get; ``memory_vs_general_loop``), ``tcp_hands_per_s`` (call against
call through ``acpc-match`` over TCP: ``python -m dealer`` and two acpcbot
processes, timed between the dealer's
STARTED and FINISHED stamps), ``memory_vs_tcp`` (the previous transport is
the peer), ``memory_vs_target`` (the issue's 20,000 hands/s) and
``match_overhead_s`` (wall time of a one-hand TCP match: processes started,
results, report).  With ``--reference DIR`` (or ``ACPC_REFERENCE_DIR``) the
reference C dealer with its example players is measured too, as
``c_dealer_c_players_hands_per_s``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run from anywhere without the benchmarks folder shadowing packages

from acpcbot.gamedef import load_game  # noqa: E402
from dealer.arena.memory import play_match  # noqa: E402
from dealer.arena.recipes import build_plan, make_entries  # noqa: E402
from dealer.arena.runner import execute  # noqa: E402
from dealer.config import MatchConfig  # noqa: E402
from acpcbot.strategies.base import INLINE_ENDS  # noqa: E402
from acpcbot.strategies.simple import CallStrategy  # noqa: E402
from acpcbot.world import MatchInfo  # noqa: E402


class _CallReadingMatch(CallStrategy):
    """call declaring that it reads the match history: not lean, so the general loop plays it (a World per seat)."""

    run_mode = INLINE_ENDS

TARGET_MEMORY_HANDS_PER_S = 20000
PAIRS = {"call-call": ("call", "call"), "fold-fold": ("fold", "fold"),
         "raise_pot-call": ("raise:size=pot", "call"), "random-random": ("random", "random")}


def _plan(a: str, b: str, hands: int, transport: str, game: str = "hunl"):
    entries = make_entries([(None, a, None), (None, b, None)])
    return build_plan(name="bench", game=game, hands=hands, seed=1, duplicate=False, mode="play", entries=entries,
                      transport=transport, parallel=1)


def memory_rate(a: str, b: str, hands: int, tmp: Path, repeats: int = 3) -> tuple[float, float]:
    """Best hands/s of ``repeats`` in-memory matches (wall, CPU) of ``a`` against ``b`` in hunl."""
    game = load_game("hunl")
    best_wall = best_cpu = 0.0
    for i in range(repeats):
        config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=hands, seed=1 + i,
                             names=["a", "b"], quiet=True)
        wall, cpu = time.perf_counter(), time.process_time()
        played = play_match(config, [("a", a), ("b", b)], tmp / "m.log")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert played.finished, played.error
        best_wall, best_cpu = max(best_wall, hands / wall), max(best_cpu, hands / cpu)
    return best_wall, best_cpu


def general_rate(hands: int, tmp: Path, repeats: int = 3) -> float:
    """Best hands/s (wall) of call against call in hunl through the general in-memory loop, the fused one's peer."""
    game = load_game("hunl")
    best = 0.0
    for i in range(repeats):
        config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=hands, seed=1 + i,
                             names=["a", "b"], quiet=True)
        players = [(_CallReadingMatch(game, None), MatchInfo(game=game, name=name)) for name in config.names]
        wall = time.perf_counter()
        played = play_match(config, [("a", "call"), ("b", "call")], tmp / "g.log", players=players)
        wall = time.perf_counter() - wall
        assert played.finished, played.error
        best = max(best, hands / wall)
    return best


def _stamps(err: Path) -> float:
    lines = err.read_text(errors="replace").splitlines()
    started = next(float(ln.split()[-1]) for ln in lines if ln.startswith("STARTED"))
    finished = next(float(ln.split()[-1]) for ln in lines if ln.startswith("FINISHED"))
    return finished - started


def reference_rate(reference: Path, hands: int, tmp: Path) -> float:
    """hunl hands/s of the reference dealer with its example players (between its STARTED and FINISHED stamps)."""
    game_file = tmp / "holdem.nolimit.2p.reverse_blinds.game"
    game_file.write_text(load_game("hunl").to_text())
    err = tmp / "ref.err"
    with open(err, "wb") as err_file:
        dealer = subprocess.Popen([str(reference / "dealer"), "ref", str(game_file), str(hands), "1", "a", "b"],
                                  cwd=tmp, stdout=subprocess.PIPE, stderr=err_file, text=True)
        ports = dealer.stdout.readline().split()
        players = [subprocess.Popen([str(reference / "example_player"), str(game_file), "127.0.0.1", port],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for port in ports]
        dealer.communicate(timeout=600)
        for p in players:
            p.wait(timeout=60)
    return hands / _stamps(err)


def command_seconds(hands: int, runs: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[float, float]:
    """Wall and CPU seconds (the command's processes, pool workers included) of
    ``acpc-match play --game hunl --hands HANDS --transport memory call call`` as a command."""
    cmd = [sys.executable, "-m", "dealer.arena", "play", "--game", "hunl", "--hands", str(hands), "--transport",
           "memory", "--seed", "1", "--runs-dir", str(runs), "--quiet", *extra, "call", "call"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _bytecode_env(tmp: Path) -> dict[str, str]:
    """The environment with Python's bytecode cache on, kept in the scratch folder.

    A user's installation keeps compiled modules; a shell with
    PYTHONDONTWRITEBYTECODE (some containers set it) would compile every
    module of every run again, a start-up cost the user does not pay.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(tmp / "pycache")
    return env


def end_to_end(hands: int, tmp: Path, repeats: int = 2) -> dict[str, object]:
    """The user's command against the match loop alone, best of ``repeats`` each, interleaved (see the docstring)."""
    runs = tmp / "e2e"
    game = load_game("hunl")
    env = _bytecode_env(tmp)
    command_seconds(10, runs, env=env)  # compiles the modules once, as installing does
    inf = float("inf")
    loop = command = no_aivat = in_process = loop_cpu = command_cpu = no_aivat_cpu = inf
    for _ in range(repeats):
        config = MatchConfig(match_name="m", game=game, game_arg="hunl", num_hands=hands, seed=1, names=["a", "b"],
                             quiet=True)
        start, cpu = time.perf_counter(), time.process_time()
        played = play_match(config, [("a", "call"), ("b", "call")], tmp / "loop.log")
        loop, loop_cpu = min(loop, time.perf_counter() - start), min(loop_cpu, time.process_time() - cpu)
        assert played.finished, played.error
        wall, cpu = command_seconds(hands, runs, env=env)
        command, command_cpu = min(command, wall), min(command_cpu, cpu)
        wall, cpu = command_seconds(hands, runs, "--no-aivat", env=env)
        no_aivat, no_aivat_cpu = min(no_aivat, wall), min(no_aivat_cpu, cpu)
        start = time.perf_counter()
        execute(_plan("call", "call", hands, "memory"), runs)
        in_process = min(in_process, time.perf_counter() - start)
    return {"end_to_end_hands": hands,
            "end_to_end_command": f"acpc-match play --game hunl --hands {hands} --transport memory call call",
            "end_to_end_bytecode": "cached (PYTHONPYCACHEPREFIX in the scratch folder, warmed by one run)",
            "end_to_end_hands_per_s": round(hands / command),
            "end_to_end_no_aivat_hands_per_s": round(hands / no_aivat),
            "end_to_end_in_process_hands_per_s": round(hands / in_process),
            "match_loop_hands_per_s": round(hands / loop),
            "end_to_end_vs_loop": round(command / loop, 2),
            "end_to_end_in_process_vs_loop": round(in_process / loop, 2),
            "aivat_share": round(max(0.0, command - no_aivat) / loop, 2),
            "end_to_end_cpu_s": round(command_cpu, 3),
            "end_to_end_no_aivat_cpu_s": round(no_aivat_cpu, 3),
            "match_loop_cpu_s": round(loop_cpu, 3),
            "end_to_end_cpu_vs_loop_cpu": round(command_cpu / loop_cpu, 2),
            "aivat_cpu_share": round(max(0.0, command_cpu - no_aivat_cpu) / loop_cpu, 2)}


def main() -> None:
    """Run the measurements and print the JSON object."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("hands", nargs="?", type=int, default=3000, help="hands of each loop-only match (default 3000)")
    ap.add_argument("--end-to-end-hands", type=int, default=20000,
                    help="hands of the end-to-end command and its peer (default 20000; 0 skips them)")
    ap.add_argument("--end-to-end-only", action="store_true", help="measure the end-to-end rows only")
    ap.add_argument("--reference", default=os.environ.get("ACPC_REFERENCE_DIR"))
    args = ap.parse_args()
    hands = args.hands
    result: dict[str, object] = {"hands": hands, "date": time.strftime("%Y-%m-%d %H:%M"),
                                 "load_average_before": round(os.getloadavg()[0], 2)}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        runs = tmp / "runs"
        if args.end_to_end_hands > 0:
            result.update(end_to_end(args.end_to_end_hands, tmp))
        if args.end_to_end_only:
            result["load_average_after"] = round(os.getloadavg()[0], 2)
            print(json.dumps(result))
            return
        by_pair, by_pair_cpu = {}, {}
        for label, (a, b) in PAIRS.items():
            wall, cpu = memory_rate(a, b, hands, tmp)
            by_pair[label], by_pair_cpu[label] = round(wall), round(cpu)
        result["memory_hands_per_s"] = by_pair["call-call"]
        result["memory_hands_per_cpu_s"] = by_pair_cpu["call-call"]
        result["memory_hands_per_s_by_pair"] = by_pair
        result["memory_hands_per_cpu_s_by_pair"] = by_pair_cpu
        result["target_memory_hands_per_s"] = TARGET_MEMORY_HANDS_PER_S
        result["memory_vs_target"] = round(by_pair["call-call"] / TARGET_MEMORY_HANDS_PER_S, 2)
        general = general_rate(hands, tmp)
        result["memory_general_loop_hands_per_s"] = round(general)
        result["memory_vs_general_loop"] = round(by_pair["call-call"] / general, 2)

        tcp_hands = max(200, hands // 3)
        doc = execute(_plan("call", "call", tcp_hands, "tcp"), runs)
        tcp_rate = tcp_hands / _stamps(Path(doc["run_dir"]) / "match-000.err")
        result["tcp_hands_per_s"] = round(tcp_rate)
        result["memory_vs_tcp"] = round(by_pair["call-call"] / tcp_rate, 1)

        overheads = []
        for _ in range(3):
            start = time.perf_counter()
            execute(_plan("call", "call", 1, "tcp"), runs)
            overheads.append(time.perf_counter() - start)
        result["match_overhead_s"] = round(min(overheads), 3)
        start = time.perf_counter()
        execute(_plan("call", "call", 1, "memory"), runs)
        result["memory_match_overhead_s"] = round(time.perf_counter() - start, 3)

        reference = Path(args.reference) if args.reference else None
        if reference is not None and (reference / "dealer").is_file():
            result["c_dealer_c_players_hands_per_s"] = round(reference_rate(reference, tcp_hands, tmp))
            result["memory_vs_c_dealer"] = round(by_pair["call-call"] / result["c_dealer_c_players_hands_per_s"], 2)
        else:
            result["note"] = "no built reference dealer (--reference DIR or ACPC_REFERENCE_DIR): its row is skipped"
    result["load_average_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
