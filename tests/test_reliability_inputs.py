"""Careless inputs refused before a match, and messages that stay short (issue 13, items 11 and 13).

* a cfr policy that misses information sets of its game is refused when the
  player is made: a clear error naming the keys, exit 1 before the match,
  never a traceback at each missing state during play;
* logcheck's messages quote at most a few hundred characters of a 1 MB line;
* player names (and the match name) that are not UTF-8 are refused: the
  dealer's own log must stay readable by logcheck.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from dealerkit import always_call, logcheck_logs, play_match

from acpcbot.gamedef import load_game
from acpcbot.logcheck import LogCheckError, check_log
from acpcbot.solve import PolicyError, build_tree, policy_from_strategy, write_policy
from acpcbot.strategies import create
from dealer.cli import UsageError, parse_args

ROOT = Path(__file__).resolve().parents[1]
MEGA = "x" * (1 << 20)


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60, cwd=cwd or ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))


# ---------------------------------------------------------------- item 11: cfr policies

@pytest.fixture
def partial_leduc(tmp_path) -> Path:
    game = load_game("leduc")
    tree = build_tree(game)
    policy = policy_from_strategy(tree, tree.uniform())
    missing = ["1:r:|Ks", "1:rc/r:|Kh/Qs", "0:cc/cr:Ah|/Kh"]
    for key in missing:
        del policy[key]
    path = tmp_path / "partial.json"
    write_policy(path, policy)
    return path


def test_a_policy_with_missing_information_sets_is_refused_at_load(partial_leduc):
    with pytest.raises(PolicyError) as err:
        create(f"cfr:policy={partial_leduc}", load_game("leduc"), seed=1)
    text = str(err.value)
    assert "partial.json" in text and "no entry for 3 of the game's information sets" in text
    assert "'1:r:|Ks'" in text  # the first missing key in tree order is named


def test_the_bot_exits_1_before_the_match_naming_the_policy(partial_leduc):
    # port 9 is never reached: the strategy fails first
    result = _run("-m", "acpcbot", "127.0.0.1", "9", "--game", "leduc", "--strategy", f"cfr:policy={partial_leduc}")
    assert result.returncode == 1
    assert "cannot start" in result.stderr and "no entry for 3" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_complete_policy_still_loads(tmp_path):
    game = load_game("kuhn3p")
    tree = build_tree(game)
    path = tmp_path / "whole.json"
    write_policy(path, policy_from_strategy(tree, tree.uniform()))
    assert len(create(f"cfr:policy={path}", game, seed=1).table) == tree.num_infosets


# ---------------------------------------------------------------- item 13: short messages

BAD_LINES = [
    f"STATE:0:{MEGA}:9hQd|5d5c:-50|50:a|b",
    f"STATE:0:f:9hQd|5d5c{MEGA}:-50|50:a|b",
    f"STATE:0:f:9hQd|5d5c:-50|50:a|{MEGA}",
    f"STATE:0:f:9hQd|5d5c:{MEGA}|50:a|b",
    f"GARBAGE{MEGA}",
    f"# name/game/hands/seed m hunl 1 0 {MEGA}",
]


def _megabyte_log(bad_line: str) -> str:
    return "# name/game/hands/seed m hunl 2 0\nSTATE:1:f:5d5c|9hQd:50|-50:a|b\n" + bad_line + "\n"


@pytest.fixture(scope="module")
def logcheck_command(tmp_path_factory) -> tuple[subprocess.CompletedProcess, list[str]]:
    """``python -m acpcbot.logcheck`` run once over a log of each of BAD_LINES, in BAD_LINES order."""
    return logcheck_logs(tmp_path_factory.mktemp("mega"), [_megabyte_log(bad_line) for bad_line in BAD_LINES])


@pytest.mark.parametrize("bad_line", BAD_LINES)
def test_logcheck_messages_quote_a_megabyte_line_briefly(tmp_path, bad_line, logcheck_command):
    path = tmp_path / "m.log"
    path.write_text(_megabyte_log(bad_line))
    with pytest.raises(LogCheckError) as err:
        check_log(path)
    assert len(str(err.value)) < 600
    result, paths = logcheck_command
    case = BAD_LINES.index(bad_line)
    assert result.returncode == 1 and result.stdout == ""
    line = result.stderr.splitlines()[case]  # one line a file, in the order given
    assert line.startswith(f"{paths[case]}: BAD: line") and len(line) < 1000


def test_a_log_from_the_reference_dealer_is_still_quoted_in_full_when_short(tmp_path):
    path = tmp_path / "m.log"
    path.write_text("# name/game/hands/seed m hunl 1 0\nSTATE:0:f:9hQd|5d5c:-50|50:a|a\n")
    with pytest.raises(LogCheckError, match=r"line 2: hand 0: a name appears twice in a\|a$"):
        check_log(path)


# ---------------------------------------------------------------- item 13: names

@pytest.mark.parametrize("args", [
    ["m", "hunl", "10", "0", os.fsdecode(b"caf\xe9"), "b"],   # Latin-1, not UTF-8
    ["m", "hunl", "10", "0", "a", os.fsdecode(b"\xff\xfe")],
    [os.fsdecode(b"m\xff"), "hunl", "10", "0", "a", "b"],
])
def test_names_that_are_not_utf8_are_refused(args):
    with pytest.raises(UsageError, match="UTF-8"):
        parse_args(args)


def test_utf8_names_are_fine_and_logcheck_reads_their_log(tmp_path):
    config, _ = parse_args(["m", "hunl", "3", "0", "café", "Bjørn"])
    assert config.names == ["café", "Bjørn"]
    out = asyncio.run(play_match(config, [always_call, always_call], tmp_path))
    assert out.result.finished
    summary = check_log(tmp_path / "m.log")
    assert summary.hands == 3 and set(summary.totals) == {"café", "Bjørn"}


def test_the_dealer_refuses_a_non_utf8_name_on_its_command_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "dealer", "m", "hunl", "10", "0", b"caf\xe9", "b"],
                            capture_output=True, timeout=60, cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert result.returncode == 1 and b"must be UTF-8 text" in result.stderr
    assert not (tmp_path / "m.log").exists()  # no log that logcheck could not read


def test_match_names_with_spaces_are_refused_and_game_paths_with_spaces_are_read(tmp_path):
    # The header "# name/game/hands/seed NAME GAME HANDS SEED" separates fields with spaces: a match
    # name with a space made the log unreadable; a game path with one is read from both ends.
    from acpcbot.matchlog import parse_header_line
    from dealer.cli import UsageError, parse_args

    with pytest.raises(UsageError, match="invalid matchName"):
        parse_args(["my match", "hunl", "10", "0", "a", "b"])
    header = parse_header_line("# name/game/hands/seed m /home/me/my games/x.game 10 3\n", None)
    assert (header.match_name, header.game_name, header.num_hands, header.seed) == ("m", "/home/me/my games/x.game", 10, 3)
