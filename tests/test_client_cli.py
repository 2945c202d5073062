"""``acpcbot`` / ``python -m acpcbot`` as a process: options, exit codes and messages."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from client_fakedealer import HULHE_EXCHANGE, client_lines, client_process, closed_port, script_of

from acpcbot.cli import build_parser, list_strategies, main


def acpcbot(*args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "acpcbot", *args], capture_output=True, text=True, timeout=timeout)


def test_list_strategies():
    # as a process for a game with no blueprint (hunl's listing loads its blueprint: read in this process below)
    result = acpcbot("--list-strategies", "--game", "kuhn2p")
    assert result.returncode == 0
    for name in ("random", "call", "raise", "fold", "human"):
        assert f"\n{name} " in "\n" + result.stdout
    assert "size: " in result.stdout and "default for kuhn2p: cfr" in result.stdout


def test_host_and_port_are_required(capsys):
    assert main([]) == 2
    assert "HOST and PORT are required" in capsys.readouterr().err


@pytest.mark.parametrize("args,words", [
    (["--strategy", "nosuch"], "unknown strategy 'nosuch'"),
    (["--strategy", "raise:size=huge"], "expected one of min, pot, allin"),
    (["--game", "nosuchgame"], "no game named 'nosuchgame'"),
])
def test_bad_options_exit_2_with_a_message(args, words, capsys):
    assert main(["127.0.0.1", "9", *args]) == 2
    assert words in capsys.readouterr().err


def test_bad_port_is_a_usage_error():
    result = acpcbot("127.0.0.1", "70000")
    assert result.returncode == 2 and "out of range" in result.stderr


def test_parser_defaults():
    args = build_parser().parse_args(["h", "1"])
    assert (args.game, args.strategy, args.time_per_hand, args.name, args.opponent) == ("hunl", None, 7000.0,
                                                                                         "acpcbot", [])
    args = build_parser().parse_args(["h", "1", "--opponent", "a", "--opponent", "b", "--log-level", "debug"])
    assert args.opponent == ["a", "b"] and args.log_level == "DEBUG"


def test_listing_marks_games_a_strategy_cannot_play(capsys):
    assert "default for kuhn3p: cfr" in list_strategies("kuhn3p")
    assert "default for leducnl: call" in list_strategies("leducnl")  # no hold'em player, no shipped policy
    assert main(["--list-strategies"]) == 0  # no --game: hunl's listing
    hunl = capsys.readouterr().out
    for name in ("random", "call", "raise", "fold", "human"):
        assert f"\n{name} " in "\n" + hunl
    assert "(cannot play hunl: no shipped policy" in hunl and "default for hunl: adaptive" in hunl


def test_plays_the_example_match_and_writes_the_history(tmp_path):
    history = tmp_path / "hands.jsonl"
    code, out, err, dealer = asyncio.run(client_process(
        script_of(HULHE_EXCHANGE), "--game", "hulhe", "--strategy", "call", "--seed", "3", "--history",
        str(history), "--name", "me", "--opponent", "villain"))
    assert code == 0, err
    # the call strategy answers every turn with c; the dealer's script does not care
    assert all(line.endswith(":c\r\n") for line in dealer.received[1:])
    assert len(dealer.received) == 1 + len(client_lines(HULHE_EXCHANGE))
    records = [json.loads(line) for line in history.read_text().splitlines()]
    assert [r["hand"] for r in records] == [0, 1, 2]
    assert "match over: 3 hands" in err and "seed 3" in err


def test_garbage_exits_4_naming_the_line():
    code, _, err, _ = asyncio.run(client_process([("send", "# hi\r\nMATCHSTATE:0:30::9s8h|\r\nGARBAGE\r\n"),
                                            ("sleep", 0.3)], "--strategy", "call"))
    assert code == 4
    assert "protocol error on line 3 from the dealer" in err and "GARBAGE" in err


def test_closed_mid_hand_exits_5():
    code, _, err, _ = asyncio.run(client_process([("send", "MATCHSTATE:0:30::9s8h|\r\n"), ("close",)], "--strategy", "call"))
    assert code == 5
    assert "in the middle of hand 30" in err


def test_refused_connection_exits_3():
    port = asyncio.run(closed_port())
    # kuhn2p: its default strategy is ready in a tenth of the time of hunl's, whose blueprint is loaded before the
    # connection is tried (the refusal is the same in every game)
    result = acpcbot("127.0.0.1", str(port), "--retry", "0.2", "--game", "kuhn2p")
    assert result.returncode == 3
    assert f"cannot connect to the dealer at 127.0.0.1:{port}" in result.stderr


def test_console_script_is_installed():
    script = os.path.join(os.path.dirname(sys.executable), "acpcbot")
    if not os.path.exists(script):
        pytest.skip("the acpcbot console script is not installed in this environment")
    # kuhn2p: the script's own listing, without loading hunl's blueprint a second time (test_list_strategies does)
    result = subprocess.run([script, "--list-strategies", "--game", "kuhn2p"], capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 0 and "random" in result.stdout and "default for kuhn2p: cfr" in result.stdout
