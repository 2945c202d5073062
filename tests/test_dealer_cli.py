"""The command line: the reference's usage, errors that exit 1, and a whole match through `python -m dealer`."""

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from dealerkit import always_call, run_player
from matchkit import dealer_process

from dealer.cli import USAGE, main, parse_args


@pytest.mark.parametrize("argv,first_line", [
    ([], None),
    (["m", "hunl", "10"], None),
    (["m", "nosuchgame", "10", "0", "a", "b"], "ERROR: could not read game nosuchgame: no game named 'nosuchgame'"),
    (["m", "hunl", "ten", "0", "a", "b"], "ERROR: invalid number of hands ten"),
    (["m", "hunl", "-5", "0", "a", "b"], None),
    (["m", "hunl", "10", "x", "a", "b"], "ERROR: invalid random number seed x"),
    (["m", "hunl", "10", "4294967296", "a", "b"], "ERROR: invalid random number seed 4294967296"),
    (["m", "hunl", "10", "0", "a"], "ERROR: the game has 2 players; 1 names given"),
    (["m", "3pl", "10", "0", "a", "b"], "ERROR: the game has 3 players; 2 names given"),
    (["m", "hunl", "10", "0", "a", "b", "c"], "ERROR: the game has 2 players; 3 names given"),
    (["m", "hunl", "10", "0", "a", "b|c"], "ERROR: invalid player name 'b|c'"),
    (["m", "hunl", "10", "0", "a", "b", "-p", "12,x"], "ERROR: bad port string 12,x"),
    (["m", "hunl", "10", "0", "a", "b", "-z"], "ERROR: unrecognized arguments: -z"),
    (["m", "hunl", "10", "0", "a", "b", "--t_response", "soon"], "ERROR: argument --t_response"),
    (["m", "hunl", "10", "0", "a", "b", "--t_hand", "-1"], "ERROR: --t_hand must not be negative"),
    (["m", "hunl", "10", "0", "a", "b", "--spin_us", "-1"], "ERROR: --spin_us must not be negative"),
    (["m", "hunl", "10", "0", "a", "b", "--spin_us", "0.5"], "ERROR: argument --spin_us"),
])
def test_usage_errors_print_the_usage_and_exit_1(argv, first_line, capsys):
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.endswith(USAGE)
    if first_line is not None:
        assert err.startswith(first_line)
    assert USAGE.startswith("usage: dealer matchName gameDefFile #Hands rngSeed p1name p2name ... [options]\n"
                            "  -f use fixed dealer button at table\n")


def test_options_in_any_order_with_the_reference_defaults():
    config, ns = parse_args(["-q", "m", "holdem.limit.3p.game", "-f", "5", "7", "a", "b", "c", "-T", "-l",
                             "--t_hand", "900", "-p", "5000,0", "--start_timeout", "-1", "--strict"])
    assert (config.match_name, config.game.name, config.game_arg, config.num_hands, config.seed) == \
        ("m", "3pl", "holdem.limit.3p.game", 5, 7)
    assert config.names == ["a", "b", "c"] and config.fixed_seats and config.quiet and config.strict
    assert (config.t_response, config.t_hand, config.t_per_hand, config.start_timeout) == (600000, 900, 7000, -1)
    assert config.spin_us == 200  # ours: a read looks for a fast reply 200 us before it sleeps
    assert ns.tlog and not ns.log and not ns.append and ns.port_list == [5000, 0] and ns.host == "127.0.0.1"
    config, ns = parse_args(["m", "kuhn3p", "5", "7", "a", "b", "c", "-t", "-L", "-a", "--spin_us", "0"])
    assert not ns.tlog and ns.log and ns.append and not config.fixed_seats and not config.strict
    assert config.spin_us == 0


def test_a_whole_match_through_python_m_dealer(tmp_path):
    async def match():
        async with dealer_process(tmp_path, ["sub", "leduc", "20", "3", "Ann", "Bob", "-T"]) as (dealer, ports):
            players = asyncio.gather(*(run_player(p, "leduc", always_call) for p in ports))
            _, (out, err) = await asyncio.wait_for(asyncio.gather(players, dealer.communicate()), 60)
        return dealer.returncode, out.decode(), err.decode()

    code, out, err = asyncio.run(match())
    assert code == 0
    log = (tmp_path / "sub.log").read_text().splitlines()
    assert out.splitlines() == [log[-1]]  # after the ports line, only the SCORE line
    assert log[0] == "# name/game/hands/seed sub leduc 20 3" and len(log) == 4 + 20 + 1
    assert err.splitlines()[-1] == log[-1]
    assert (tmp_path / "sub.tlog").exists()


def test_the_console_script_is_installed():
    script = Path(sys.executable).parent / "acpc-dealer"
    if not script.exists():
        pytest.skip("package not installed with its console scripts")
    run = subprocess.run([str(script)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stderr == USAGE
