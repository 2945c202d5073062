"""Whole matches over loopback TCP: replayed fixture logs come back byte for byte; seats, ports, transcript."""

import asyncio
import re
import socket
import tempfile
from pathlib import Path

import pytest
from dealerkit import always_call, config_for, play_match, replay_policy
from matchkit import serve

from acpcbot.logcheck import check_log
from dealer.arena.tcp import free_ports

FIXTURES = Path(__file__).parent / "fixtures" / "dealer"

FIXTURE_GAMES = [("hunl_seed0_random.log", "hunl"), ("3pl_seed0_random.log", "3pl"),
                 ("kuhn3p_seed1_random.log", "kuhn3p"), ("leducnl_seed5_random.log", "leducnl")]


def _replay(log_text: str, game: str, game_arg: str | None = None, hands: int | None = None):
    lines = log_text.splitlines()
    _, _, name, header_game, num, seed = lines[0].split()
    n = 3 if game in ("3pl", "3pnl", "kuhn3p") else 2
    names = lines[4].split(":")[-1].split("|") if hands is None else None
    if names is not None:
        names = [names[(s - 0) % n] for s in range(n)]  # hand 0: position p is seat p
    else:
        names = [f"p{i + 1}" for i in range(n)]
    config = config_for(game, int(num) if hands is None else hands, int(seed), names, match_name=name,
                        game_arg=game_arg or header_game)
    policy = replay_policy(lines, game)
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, [policy] * n, Path(tmp)))
    return out


@pytest.mark.parametrize("name,game", FIXTURE_GAMES)
def test_replaying_a_fixture_log_over_tcp_reproduces_it_byte_for_byte(name, game):
    text = (FIXTURES / name).read_text()
    out = _replay(text, game)
    assert out.problems() == []
    assert out.log == text
    assert out.stdout.splitlines()[-1] == text.splitlines()[-1]
    check_log(FIXTURES / name)


def test_replaying_the_reference_match_reproduces_its_log_byte_for_byte(reference):
    ref = reference / "matchName.log"
    out = _replay(ref.read_text(), "hunl")
    assert out.log.encode() == ref.read_bytes()
    # the transcript is the reference's, time stamps and the seconds the players spent aside (they depend
    # on the machine's load: a busy machine makes the players here take over a second per 100 hands)
    ref_err = (reference / "matchName.err").read_text().splitlines()
    ref_err = ref_err[ref_err.index("# name/game/hands/seed matchName holdem.nolimit.2p.reverse_blinds.game 1000 0"):]
    stamp = re.compile(r"(?<= at )\d+\.\d{6}|(?<=^Seconds cumulatively spent in match for seat \d: )\d+$")

    def timeless(lines):
        return [stamp.sub("T", ln) for ln in lines]

    assert timeless(out.transcript.splitlines()) == timeless(ref_err)


@pytest.mark.parametrize("name,game", [("2p.limit.h1000.r0.log", "hulhe"), ("3p.nolimit.h1000.r0.log", "3pnl")])
def test_replaying_reference_dealer_logs_reproduces_their_hands(name, game, reference):
    ref = (reference / "dealer_logs" / name).read_text().splitlines()
    out = _replay("\n".join(ref), game, hands=150)
    mine = out.log.splitlines()
    assert mine[0] == ref[0].replace(" 1000 0", " 150 0")
    assert mine[1:154] == ref[1:154]


def test_transcript_format():
    config = config_for("hunl", 101, 1, ["Alice", "Bob"], match_name="tr")
    out = asyncio.run(play_match(config, [always_call, always_call]))
    lines = out.transcript.splitlines(keepends=True)
    assert lines[:4] == ["# name/game/hands/seed tr hunl 101 1\n", "#--t_response 600000\n",
                         "#--t_hand 600000\n", "#--t_per_hand 7000\n"]
    assert re.fullmatch(r"STARTED at \d+\.\d{6}\n", lines[4])
    # every line sent and received, CRLF included, in seat order
    assert re.fullmatch(r"TO 1 at \d+\.\d{6} MATCHSTATE:0:0::8s2h\|\r\n", lines[5])
    assert re.fullmatch(r"TO 2 at \d+\.\d{6} MATCHSTATE:1:0::\|Kd5c\r\n", lines[6])
    assert re.fullmatch(r"FROM 2 at \d+\.\d{6} MATCHSTATE:1:0::\|Kd5c:c\r\n", lines[7])
    # hands 0 and 100 are followed by the time summary, after the final views
    summary = [i for i, ln in enumerate(lines) if ln.startswith("Seconds")]
    assert len(summary) == 4
    assert lines[summary[0]] == "Seconds cumulatively spent in match for seat 0: 0\n"
    assert lines[summary[0] + 1] == "Seconds cumulatively spent in match for seat 1: 0\n"
    assert lines[summary[0] - 1].startswith("TO 2 at ") and "cc/cc/cc/cc:8s2h|Kd5c/" in lines[summary[0] - 1]
    assert re.fullmatch(r"FINISHED at \d+\.\d{6}\n", lines[-2])
    assert lines[-1] == out.stdout.splitlines()[-1] + "\n"
    assert out.stdout.splitlines()[-1].startswith("SCORE:") and out.stdout.endswith(":Alice|Bob\n")


def test_quiet_transcript_keeps_only_problems_and_the_score():
    config = config_for("kuhn3p", 3, 0, quiet=True)
    out = asyncio.run(play_match(config, [always_call] * 3))
    assert out.transcript == out.stdout.splitlines()[-1] + "\n"


def test_seats_rotate_every_hand_and_stay_with_f():
    for fixed, names in ((False, ["a|b|c", "b|c|a", "c|a|b", "a|b|c"]), (True, ["a|b|c"] * 4)):
        config = config_for("kuhn3p", 4, 0, ["a", "b", "c"], fixed_seats=fixed)
        with tempfile.TemporaryDirectory() as tmp:
            out = asyncio.run(play_match(config, [always_call] * 3, Path(tmp)))
        assert [ln.rsplit(":", 1)[1] for ln in out.log.splitlines() if ln.startswith("STATE")] == names
        # seat 1 is told its position in each hand's first view
        firsts = [ln.split(":") for ln in out.players[0].received if ln.split(":")[3] == ""]
        assert [(int(f[2]), int(f[1])) for f in firsts] == [(h, 0 if fixed else (0 - h) % 3) for h in range(4)]
        assert out.stdout.splitlines()[-1].endswith(":a|b|c")


def test_given_ports_are_used_and_printed_in_seat_order():
    ports = free_ports(2)
    config = config_for("leduc", 2, 0)
    out = asyncio.run(play_match(config, [always_call] * 2, ports=ports))
    assert out.stdout.splitlines()[0] == f"{ports[0]} {ports[1]}"
    assert out.result.finished


def test_a_port_in_use_is_an_error_before_anything_is_printed():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        config = config_for("leduc", 2, 0)

        async def run():
            dealer = await serve(config, ports=[port])
            return await dealer.result(), dealer.stdout.getvalue(), dealer.transcript

        result, stdout, err = asyncio.run(run())
    assert result is None and stdout == ""
    assert err.startswith(f"ERROR: could not open port {port} for seat 1 on 127.0.0.1")


def test_zero_hands_is_a_finished_match_with_a_zero_score():
    config = config_for("hunl", 0, 0, ["A", "B"])
    with tempfile.TemporaryDirectory() as tmp:
        out = asyncio.run(play_match(config, [always_call] * 2, Path(tmp)))
    assert out.stdout.splitlines()[-1] == "SCORE:0|0:A|B"
    assert out.log.splitlines()[-1] == "SCORE:0|0:A|B"


def test_a_system_error_while_accepting_players_is_reported_not_raised(monkeypatch):
    import io

    import dealer.server as server
    from acpcbot.gamedef import load_game
    from dealer.config import MatchConfig
    from dealer.logs import Transcript
    from dealer.resume import open_match_files

    async def refuse(listeners, timeout_ms, spin_s):
        raise OSError(24, "Too many open files")

    monkeypatch.setattr(server, "accept_seats", refuse)
    game = load_game("hunl")
    config = MatchConfig("m", game, "hunl", 3, 0, ["a", "b"], quiet=True)
    err = io.BytesIO()

    async def main():
        files = open_match_files(config, use_log=False)
        return await server.serve_match(config, files, Transcript(err, quiet=True), io.StringIO())

    assert asyncio.run(main()) is None
    assert b"ERROR: could not accept a player: [Errno 24] Too many open files" in err.getvalue()
