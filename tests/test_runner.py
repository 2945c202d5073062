"""acpc-match end to end: real matches over TCP (in a subprocess with a time limit) and in memory."""

import json
import os
import signal
import statistics
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from acpcbot.logcheck import check_log
from dealer.arena import tcp
from dealer.arena.cli import main
from dealer.arena.stats import Z95
from dealer.arena.watch import Progress

ROOT = Path(__file__).resolve().parents[1]
TIME_LIMIT = 90  # seconds for one acpc-match command over TCP


def acpc_match(*args, timeout=TIME_LIMIT):
    """Run ``python -m dealer.arena ARGS`` in its own process group, killed whole at the time limit."""
    proc = subprocess.Popen([sys.executable, "-m", "dealer.arena", *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"acpc-match {' '.join(args)} ran past {timeout} s")
    return proc.returncode, out, err


def run_json(capsys, *args):
    """Run main() in this process with --json; return (status, results)."""
    status = main([*args, "--json"])
    out = capsys.readouterr().out
    return status, json.loads(out)


def log_values(path):
    """Per-player totals and per-hand values from a log, by splitting its lines (no project code)."""
    totals, per_hand, score = {}, {}, None
    for line in Path(path).read_text().splitlines():
        if line.startswith("STATE:"):
            _, _, _, _, values, names = line.split(":")
            for name, value in zip(names.split("|"), values.split("|")):
                totals[name] = totals.get(name, 0.0) + float(value)
                per_hand.setdefault(name, []).append(float(value))
        elif line.startswith("SCORE:"):
            _, values, names = line.split(":")
            score = dict(zip(names.split("|"), map(float, values.split("|"))))
    return totals, per_hand, score


@pytest.fixture(scope="module")
def tcp_call_vs_raise(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    status, out, err = acpc_match("play", "--game", "hunl", "--hands", "200", "--seed", "7", "call", "raise:size=pot",
                                  "--runs-dir", str(runs), "--json")
    assert status == 0, err
    assert err == ""  # no progress line when stderr is not a terminal
    return json.loads(out)


def test_tcp_match_totals_equal_the_log_summed_by_hand(tcp_call_vs_raise):
    doc = tcp_call_vs_raise
    run_dir = Path(doc["run_dir"])
    assert doc["game"] == "hunl" and doc["hands"] == 200 and doc["transport"] == "tcp"
    log = run_dir / doc["matches"][0]["files"]["log"]
    assert check_log(log).hands == 200  # every hand replays through the engine to the logged values
    totals, per_hand, score = log_values(log)
    assert score == totals and set(totals) == {"call", "raise-size-pot"}
    assert totals["call"] == -totals["raise-size-pot"] != 0
    by_player = {r["player"]: r for r in doc["results"]}
    for name, values in per_hand.items():
        r = by_player[name]
        assert r["hands"] == 200
        assert r["mbb_per_hand"] == pytest.approx(1000 * totals[name] / 100 / 200, abs=1e-3)
        se = statistics.stdev(values) / len(values) ** 0.5 * 1000 / 100
        assert r["ci95"] == pytest.approx(1.959964 * se, abs=1e-2)
    assert by_player["call"]["strategy"] == "call" and by_player["raise-size-pot"]["strategy"] == "raise:size=pot"
    # call never raises, the pot-raiser raises first in every hand
    assert by_player["call"]["pfr"] == 0 and by_player["raise-size-pot"]["pfr"] == 1


def test_tcp_run_folder_holds_logs_transcripts_outputs_and_report(tcp_call_vs_raise):
    run_dir = Path(tcp_call_vs_raise["run_dir"])
    names = {p.name for p in run_dir.iterdir()}
    assert {"results.json", "report.svg", "match-000.log", "match-000.err",
            "match-000.seat1-call.err", "match-000.seat2-raise-size-pot.err"} <= names
    assert json.loads((run_dir / "results.json").read_text()) == tcp_call_vs_raise
    assert "SCORE:" in (run_dir / "match-000.err").read_text()
    svg = ET.parse(run_dir / "report.svg").getroot()
    # heads-up: the first player's line, the second player's being its mirror image, and the final figure
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert svg.tag.endswith("svg") and "call" in texts and "raise-size-pot" not in texts  # the legend
    call = tcp_call_vs_raise["results"][0]
    assert f"call: {call['mbb_per_hand']:+.1f} ± {call['ci95']:.1f} mbb/hand over 200 hands (95%)" in texts
    assert "raise-size-pot's line is the mirror image of call's" in texts


def test_memory_transport_writes_the_same_log_bytes(tcp_call_vs_raise, capsys, tmp_path):
    status, doc = run_json(capsys, "play", "--game", "hunl", "--hands", "200", "--seed", "7", "call", "raise:size=pot",
                           "--transport", "memory", "--runs-dir", str(tmp_path))
    assert status == 0
    tcp_log = Path(tcp_call_vs_raise["run_dir"]) / "match-000.log"
    assert (Path(doc["run_dir"]) / "match-000.log").read_bytes() == tcp_log.read_bytes()
    assert doc["results"] == tcp_call_vs_raise["results"]


def test_memory_and_tcp_identical_with_random_players_three_seats(capsys, tmp_path):
    args = ["play", "--game", "3pl", "--hands", "40", "--seed", "11", "random", "random:raise=1", "raise",
            "--runs-dir", str(tmp_path)]
    status, out, err = acpc_match(*args, "--json")
    assert status == 0, err
    tcp = json.loads(out)
    status, mem = run_json(capsys, *args, "--transport", "memory")
    assert status == 0
    assert [r["player"] for r in mem["results"]] == ["random", "random-raise-1", "raise"]
    tcp_log = (Path(tcp["run_dir"]) / "match-000.log").read_bytes()
    assert (Path(mem["run_dir"]) / "match-000.log").read_bytes() == tcp_log
    assert tcp_log.count(b"\nSTATE:") == 40


def test_duplicate_swaps_seats_and_reuses_the_seed(capsys, tmp_path):
    status, doc = run_json(capsys, "play", "--game", "hunl", "--hands", "50", "--seed", "3", "--duplicate",
                           "random", "raise:size=pot", "--transport", "memory", "--runs-dir", str(tmp_path))
    assert status == 0
    a, b = doc["matches"]
    assert a["seed"] == b["seed"] == 3
    assert [s["player"] for s in a["seats"]] == ["random", "raise-size-pot"]
    assert [s["player"] for s in b["seats"]] == ["raise-size-pot", "random"]
    run_dir = Path(doc["run_dir"])
    lines_a = [l for l in (run_dir / a["files"]["log"]).read_text().splitlines() if l.startswith("STATE:")]
    lines_b = [l for l in (run_dir / b["files"]["log"]).read_text().splitlines() if l.startswith("STATE:")]
    per_deal = []
    for la, lb in zip(lines_a, lines_b):
        fa, fb = la.split(":"), lb.split(":")
        assert fa[3].split("/")[0] == fb[3].split("/")[0]  # the same hole cards per position
        names_a, names_b = fa[5].split("|"), fb[5].split("|")
        assert names_a == names_b[::-1]  # the seats are swapped
        va = dict(zip(names_a, map(float, fa[4].split("|"))))
        vb = dict(zip(names_b, map(float, fb[4].split("|"))))
        per_deal.append((va["random"] + vb["random"]) / 2)
    r = next(r for r in doc["results"] if r["player"] == "random")
    assert r["duplicate_pairs"] == 50
    assert r["duplicate_mbb_per_hand"] == pytest.approx(10 * statistics.fmean(per_deal), abs=1e-3)
    assert r["duplicate_ci95"] == pytest.approx(Z95 * 10 * statistics.stdev(per_deal) / 50 ** 0.5, abs=1e-2)


SCRIPT = r'''
import socket, sys
from acpcbot.gamedef import load_game
from acpcbot.protocol import parse_match_state
game = load_game("hunl")
sock = socket.create_connection((sys.argv[-2], int(sys.argv[-1])), timeout=30)
sock.sendall(b"VERSION:2.0.0\r\n")
print("script player connected", flush=True)
if "--quit" in sys.argv:
    print("leaving at once", file=sys.stderr, flush=True)
    sys.exit(3)
buf = b""
while True:
    data = sock.recv(65536)
    if not data:
        break
    buf += data
    *lines, buf = buf.split(b"\n")
    for raw in lines:
        line = raw.decode().rstrip("\r")
        if line.startswith("MATCHSTATE") and parse_match_state(line, game).is_my_turn:
            sock.sendall((line + ":c\r\n").encode())
print("script player done", file=sys.stderr, flush=True)
'''


def test_external_script_player_with_its_output_kept(tmp_path):
    script = tmp_path / "callbot.py"
    script.write_text(SCRIPT)
    status, out, err = acpc_match("play", "--game", "hunl", "--hands", "30", "--seed", "5", "raise:size=pot",
                                  "--external", f"{sys.executable} {script}", "--runs-dir", str(tmp_path / "runs"),
                                  "--json")
    assert status == 0, err
    doc = json.loads(out)
    assert [(r["player"], r["strategy"]) for r in doc["results"]] == [
        ("raise-size-pot", "raise:size=pot"), ("callbot", f"external:{sys.executable} {script}")]
    run_dir = Path(doc["run_dir"])
    files = doc["matches"][0]["files"]
    assert (run_dir / files["seat2-out"]).read_text() == "script player connected\n"
    assert (run_dir / files["seat2-err"]).read_text() == "script player done\n"
    totals, _, score = log_values(run_dir / files["log"])
    assert score == totals
    assert doc["results"][1]["vpip"] == 1.0 and doc["results"][1]["pfr"] == 0.0  # it only ever calls


def test_a_player_that_leaves_fails_the_match_but_keeps_its_files(tmp_path):
    script = tmp_path / "quitter.py"
    script.write_text(SCRIPT)
    status, out, err = acpc_match("play", "--game", "hunl", "--hands", "30", "call",
                                  "--external", f"{sys.executable} {script} --quit", "--runs-dir",
                                  str(tmp_path / "runs"), "--json")
    assert status == 1
    doc = json.loads(out)
    m = doc["matches"][0]
    assert not m["complete"] and "seat 2 (quitter)" in m["error"]
    run_dir = Path(doc["run_dir"])
    assert (run_dir / m["files"]["seat2-err"]).read_text() == "leaving at once\n"
    assert (run_dir / "match-000.log").read_text().startswith("# name/game/hands/seed match-000 hunl 30 0")
    assert doc["results"][0]["hands"] == 0


def test_tournament_equals_its_jobs_played_apart_and_merged(capsys, tmp_path):
    args = ["--game", "hunl", "--hands", "40", "--seed", "9", "--duplicate", "--transport", "memory",
            "random", "raise:size=pot", "fold"]
    status, whole = run_json(capsys, "tournament", *args, "--runs-dir", str(tmp_path / "whole"), "--jobs", "1")
    assert status == 0
    assert main(["tournament", *args, "--print-jobs", "--runs-dir", str(tmp_path / "jobs")]) == 0
    commands = capsys.readouterr().out.splitlines()
    assert len(commands) == 6 and all(" play " in c and c.startswith("cd ") for c in commands)
    import shlex
    parts = []
    for i, command in enumerate(commands):
        words = shlex.split(command)
        status, doc = run_json(capsys, *words[words.index("play"):])
        assert status == 0
        parts.append(doc["run_dir"])
    assert parts == [str(tmp_path / "jobs" / "tournament-hunl-jobs" / f"match-{i:03d}") for i in range(6)]
    status, merged = run_json(capsys, "merge", *parts, "--runs-dir", str(tmp_path / "merged"))
    assert status == 0
    for key in ("results", "crosstable", "rankings", "players", "game", "hands"):
        assert merged[key] == whole[key], key
    assert merged["rankings"]["instant_runoff"] and len(merged["matches"]) == 6
    assert [m["seed"] for m in whole["matches"]] == [9, 9, 10, 10, 11, 11]
    svg = ET.parse(Path(merged["run_dir"]) / "report.svg").getroot()
    assert len(list(svg.iter("{http://www.w3.org/2000/svg}rect"))) > 9  # a heat map of the crosstable


def test_merging_duplicate_halves_equals_the_duplicate_run(capsys, tmp_path):
    common = ["--game", "leduc", "--hands", "80", "--seed", "4", "--transport", "memory"]
    status, whole = run_json(capsys, "play", *common, "--duplicate", "random", "raise", "--runs-dir", str(tmp_path))
    assert status == 0
    _, one = run_json(capsys, "play", *common, "random", "raise", "--runs-dir", str(tmp_path))
    _, two = run_json(capsys, "play", *common, "raise", "random", "--runs-dir", str(tmp_path))
    status, merged = run_json(capsys, "merge", one["run_dir"], two["run_dir"], "--runs-dir", str(tmp_path))
    assert status == 0
    assert merged["results"] == whole["results"]
    assert "duplicate_mbb_per_hand" in merged["results"][0]
    status = main(["merge", one["run_dir"], one["run_dir"], "--runs-dir", str(tmp_path)])
    assert status == 2 and "would count twice" in capsys.readouterr().err


def test_merge_refuses_other_games_and_non_runs(capsys, tmp_path):
    _, a = run_json(capsys, "play", "--game", "leduc", "--hands", "5", "call", "fold", "--transport", "memory",
                    "--runs-dir", str(tmp_path))
    _, b = run_json(capsys, "play", "--game", "kuhn2p", "--hands", "5", "call", "fold", "--transport", "memory",
                    "--runs-dir", str(tmp_path))
    assert main(["merge", a["run_dir"], b["run_dir"], "--runs-dir", str(tmp_path)]) == 2
    assert "differs" in capsys.readouterr().err
    assert main(["merge", str(tmp_path), "--runs-dir", str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "results.json").write_text('{"game": "leduc", "players": [], "matches": [{"label": "m"}]}')
    assert main(["merge", str(broken), "--runs-dir", str(tmp_path)]) == 2
    assert "broken/results.json: not a results.json of acpc-match: matches[0] lacks" in capsys.readouterr().err


def test_recipe_run_and_text_output(capsys, tmp_path):
    recipe = tmp_path / "mini.toml"
    recipe.write_text('game = "kuhn3p"\nhands = 30\nseed = 2\nduplicate = true\ntransport = "memory"\n'
                      'players = ["raise", "call", "fold", "random"]\n')
    assert main(["run", str(recipe), "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("mini: kuhn3p, 30 hands per match, 12 matches, duplicate")
    assert "crosstable" in out and "ranking by instant runoff" in out
    doc = json.loads(next(tmp_path.glob("mini-*/results.json")).read_text())
    assert len({m["seed"] for m in doc["matches"]}) == 4  # one seed per table of three, shared by its rotations
    assert all(r["hands"] == 270 for r in doc["results"])  # 3 tables x 3 rotations x 30 hands each


@pytest.mark.parametrize("args,message", [
    (["play", "--game", "hunl", "call"], "hunl seats 2 players; got 1"),
    (["play", "--game", "hunl", "call", "nosuch"], "strategy 2 (nosuch): unknown strategy 'nosuch'"),
    (["play", "--game", "hunl", "--hands", "0", "call", "fold"], "--hands: must be at least 1"),
    (["play", "--game", "hunl", "--hands", "4294967296", "call", "fold"], "--hands: must be at most 4294967295"),
    (["play", "--game", "chess", "call", "fold"], "--game: no game named 'chess'"),
    (["play", "--game", "hunl", "--transport", "memory", "call", "--external", "./bot"], "needs the tcp transport"),
    (["run", "nosuch.toml"], "nosuch.toml: cannot read"),
])
def test_bad_command_lines_exit_2_naming_the_problem(capsys, tmp_path, args, message):
    assert main([*args, "--runs-dir", str(tmp_path)]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing started


def test_a_runs_dir_that_cannot_be_made_is_bad_input(capsys, tmp_path):
    (tmp_path / "file").write_text("")
    runs = tmp_path / "file" / "runs"
    assert main(["play", "--game", "kuhn2p", "--hands", "5", "--transport", "memory", "call", "fold",
                 "--runs-dir", str(runs)]) == 2
    assert f"acpc-match: error: cannot create a run folder under {runs}: " in capsys.readouterr().err


def test_progress_line_reads_growing_logs(tmp_path):
    import io
    log = tmp_path / "match-000.log"
    log.write_text("# name/game/hands/seed m hunl 4 0\nSTATE:0:f:5d5c|9hQd:50|-50:a|b\nSTATE:1:f:6sKs|5dJd:50|-5")
    stream = io.StringIO()
    progress = Progress(stream, total_hands=4, player="a", big_blind=100)
    progress.watch(log)
    progress.poll()
    assert progress.hands == 1 and progress.line().startswith("1/4 hands") and "a +500.0 mbb/hand" in progress.line()
    with open(log, "a") as f:
        f.write("0:b|a\n")
    progress.poll()
    assert progress.hands == 2 and "a +0.0 mbb/hand" in progress.line()
    progress.finish()
    assert stream.getvalue().endswith("\n")


def test_a_program_that_cannot_start_fails_its_match_cleanly(tmp_path):
    bot = tmp_path / "not-executable-bot"
    bot.write_text("#!/bin/sh\n")  # there, but without the permission to run
    status, out, err = acpc_match("play", "--game", "kuhn2p", "--hands", "10", "call", "--external",
                                  str(bot), "--runs-dir", str(tmp_path), "--json")
    assert status == 1
    doc = json.loads(out)
    m = doc["matches"][0]
    assert not m["complete"] and m["error"].startswith("seat 2 (not-executable-bot) could not start")
    assert [r["hands"] for r in doc["results"]] == [0, 0]
    assert (Path(doc["run_dir"]) / "report.svg").exists()


def test_matches_in_flight_never_share_a_port(monkeypatch):
    # Parallel matches pick their ports at the same moment, before any dealer listens: the operating
    # system may give two of them the same free port (about 3% of 16 two-seat matches here), and a
    # client of one match would then join the other's dealer.
    offers = iter([[7001, 7002], [7002, 7003], [7004, 7005], [7002, 7006]])
    monkeypatch.setattr(tcp, "_unused_ports", lambda count: next(offers))
    monkeypatch.setattr(tcp, "_in_flight", set())
    first = tcp.free_ports(2)
    second = tcp.free_ports(2)
    assert (first, second) == ([7001, 7002], [7004, 7005])
    tcp.release_ports(first)
    assert tcp.free_ports(2) == [7002, 7006]


def test_a_port_taken_before_the_dealer_listens_is_retried(capsys, tmp_path, monkeypatch):
    import socket
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    calls = []
    real = tcp.free_ports

    def clashing(count):
        calls.append(count)
        ports = real(count)
        return [taken.getsockname()[1]] + ports[1:] if len(calls) == 1 else ports

    monkeypatch.setattr(tcp, "free_ports", clashing)
    try:
        status, doc = run_json(capsys, "play", "--game", "kuhn2p", "--hands", "5", "call", "fold",
                               "--runs-dir", str(tmp_path))
    finally:
        taken.close()
    assert status == 0 and len(calls) == 2 and doc["matches"][0]["complete"]


def test_a_seat_of_ours_that_saw_the_dealer_go_is_not_blamed_for_the_match():
    # Our client exits 5 when the dealer closes on it mid-hand (another player left); on a busy machine that exit
    # can be seen before the dealer's own end, and the match was then blamed on our seat, not on the one that left.
    import asyncio

    from dealer.arena.recipes import Entry

    async def watch():
        dealer = await asyncio.create_subprocess_exec(
            sys.executable, "-c", "import time; time.sleep(0.5); print('SCORE:0|0:a|b')", stdout=subprocess.PIPE)
        ours = await asyncio.create_subprocess_exec(sys.executable, "-c", "import sys; sys.exit(5)")
        return await tcp._watch(dealer, [(1, Entry("call", strategy="call"), ours, "seat1")])

    stdout, error = asyncio.run(watch())
    assert error is None and b"SCORE:0|0" in stdout


def test_a_seat_of_ours_that_fails_on_its_own_still_ends_the_match_at_once():
    import asyncio

    from dealer.arena.recipes import Entry

    async def watch():
        dealer = await asyncio.create_subprocess_exec(sys.executable, "-c", "import time; time.sleep(60)",
                                                      stdout=subprocess.PIPE)
        ours = await asyncio.create_subprocess_exec(sys.executable, "-c", "import sys; sys.exit(1)")
        try:
            return await tcp._watch(dealer, [(1, Entry("call", strategy="call"), ours, "seat1")])
        finally:
            dealer.kill()
            await dealer.wait()

    stdout, error = asyncio.run(watch())
    assert error == "seat 1 (call) exited with status 1 (see seat1.err)"
