"""Policy files: keys as the dealer writes states, round trips, checks, the shipped policies and the command line."""

import json
from importlib import resources

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import State
from acpcbot.gamedef import load_game
from acpcbot.protocol import format_match_state, parse_match_state, replay_betting
from acpcbot.solve import Solver, build_tree, exploitability
from acpcbot.solve.__main__ import main
from acpcbot.solve.policy import (
    PolicyError,
    check_policy,
    infoset_key,
    key_of_match_state,
    match_state_of_key,
    policy_from_strategy,
    read_policy,
    strategy_from_policy,
    tree_infosets,
    write_policy,
)


def shipped(name):
    return resources.files("acpcbot").joinpath("data", f"policy_{name}.json")


def test_keys_are_what_the_acting_player_receives():
    game = load_game("leduc")
    state = State(game, 17, [parse_cards("Kh"), parse_cards("Qs")], parse_cards("Ah"))
    replay_betting("r", game, state)
    assert format_match_state(state, 1) == "MATCHSTATE:1:17:r:|Qs"
    assert infoset_key(state, 1) == "1:r:|Qs"
    replay_betting("rc/", game, state := State(game, 3, [parse_cards("Kh"), parse_cards("Qs")], parse_cards("Ah")))
    assert infoset_key(state, 0) == "0:rc/:Kh|/Ah"
    assert key_of_match_state("MATCHSTATE:0:3:rc/:Kh|/Ah\r\n") == "0:rc/:Kh|/Ah"
    assert match_state_of_key("0:rc/:Kh|/Ah", 9) == "MATCHSTATE:0:9:rc/:Kh|/Ah"


def test_leduc_keys_of_the_tree():
    tree = build_tree(load_game("leduc"))
    keys = [k for _, _, k in tree_infosets(tree)]
    assert len(keys) == len(set(keys)) == 936
    assert {"0::Ah|", "1:r:|Ks", "0:rc/:Kh|/Qs", "1:crr:|Qh", "1:rrc/crr:|Ah/As"} <= set(keys)
    assert "0:rc/:Kh|/Kh" not in keys  # a hole card cannot be the board card


def test_round_trip(tmp_path):
    game = load_game("leduc")
    tree = build_tree(game)
    solver = Solver(tree)
    solver.run(50)
    policy = policy_from_strategy(tree, solver.average())
    path = tmp_path / "leduc.json"
    write_policy(path, policy)
    back = read_policy(path, game)
    assert back == policy
    assert list(back) == sorted(back)
    sigma = strategy_from_policy(tree, back)
    assert np.allclose(sigma, solver.average(), atol=1e-8)
    assert exploitability(tree, sigma).chips == pytest.approx(exploitability(tree, solver.average()).chips, abs=1e-7)
    # one line per information set, valid JSON
    assert len(path.read_text().splitlines()) == len(policy) + 2
    assert json.loads(path.read_text()) == policy


def test_rows_list_only_legal_actions():
    tree = build_tree(load_game("kuhn2p"))
    policy = policy_from_strategy(tree, tree.uniform())
    assert policy == {
        "0::As|": {"c": 0.5, "r": 0.5}, "0::Ks|": {"c": 0.5, "r": 0.5}, "0::Qs|": {"c": 0.5, "r": 0.5},
        "0:cr:As|": {"f": 0.5, "c": 0.5}, "0:cr:Ks|": {"f": 0.5, "c": 0.5}, "0:cr:Qs|": {"f": 0.5, "c": 0.5},
        "1:c:|As": {"c": 0.5, "r": 0.5}, "1:c:|Ks": {"c": 0.5, "r": 0.5}, "1:c:|Qs": {"c": 0.5, "r": 0.5},
        "1:r:|As": {"f": 0.5, "c": 0.5}, "1:r:|Ks": {"f": 0.5, "c": 0.5}, "1:r:|Qs": {"f": 0.5, "c": 0.5},
    }


def test_missing_key_is_an_error():
    tree = build_tree(load_game("kuhn2p"))
    policy = policy_from_strategy(tree, tree.uniform())
    del policy["1:r:|Ks"]
    with pytest.raises(PolicyError, match="no entry for information set '1:r:|Ks'"):
        strategy_from_policy(tree, policy)


@pytest.mark.parametrize("row, message", [
    ({"f": 0.5, "c": 0.5}, "'0::Ks|': action 'f' is not legal there"),
    ({"c": 0.0, "r": 0.0}, "'0::Ks|': its probabilities sum to 0"),
])
def test_rows_the_tree_cannot_play_are_errors(row, message):
    # an unchecked mapping: an illegal action's mass used to dilute the legal ones
    tree = build_tree(load_game("kuhn2p"))
    policy = policy_from_strategy(tree, tree.uniform())
    policy["0::Ks|"] = row
    with pytest.raises(PolicyError, match=message):
        strategy_from_policy(tree, policy)


@pytest.mark.parametrize("data, message", [
    ([1, 2], "a policy is a JSON object"),
    ({"0::Ks": {"c": 1}}, "'0::Ks': not a state the dealer can send"),
    ({"2::Ks|": {"c": 1}}, "position 2 out of range"),
    ({"1::|Ks": {"c": 1}}, "position 1 is not the one to act"),
    ({"1:r:Qs|Ks": {"c": 1}}, "shows another player's hole cards"),
    ({"0::Ks|": {"f": 0.5, "c": 0.5}}, "action 'f' is not legal there \\(legal: cr\\)"),
    ({"0::Ks|": {"c": 0.5, "r": 0.6}}, "sum to 1.1"),
    ({"0::Ks|": {"c": -0.5, "r": 1.5}}, "must be a number >= 0"),
    ({"0::Ks|": {"c": "1"}}, "must be a number >= 0"),
    ({"0::Ks|": {}}, "expected an object of action probabilities"),
    ({"0::Kh|": {"c": 1}}, "not in this game's deck"),
])
def test_bad_policies(data, message):
    with pytest.raises(PolicyError, match=message):
        check_policy(data, load_game("kuhn2p"), "p.json")


def test_unreadable_files(tmp_path):
    game = load_game("kuhn2p")
    with pytest.raises(PolicyError, match="cannot read policy file"):
        read_policy(tmp_path / "missing.json", game)
    bad = tmp_path / "bad.json"
    bad.write_text('{"0::Ks|": {"c": 1},\n')
    with pytest.raises(PolicyError, match="bad.json is not valid JSON: .*line 2"):
        read_policy(bad, game)


def test_kuhn3p_policy_does_not_fit_leduc():
    with pytest.raises(PolicyError, match="not a state the dealer can send"):
        read_policy(shipped("kuhn3p"), load_game("leduc"))


@pytest.mark.parametrize("name, infosets, max_mbb", [("kuhn2p", 12, 0.1), ("kuhn3p", 48, 0.01), ("leduc", 936, 0.1)])
def test_shipped_policies(name, infosets, max_mbb):
    game = load_game(name)
    raw = json.loads(shipped(name).read_text())
    assert len(raw) == infosets
    for key, row in raw.items():
        # every key is a state the dealer can send, to the player who acts in it
        ms = parse_match_state(match_state_of_key(key, hand_id=123), game)
        assert ms.is_my_turn
        assert infoset_key(ms.state, ms.position) == key
        assert [a for a in "fcr" if a in row] == list(row)
    tree = build_tree(game)
    assert set(raw) == {k for _, _, k in tree_infosets(tree)}
    assert exploitability(tree, strategy_from_policy(tree, read_policy(shipped(name), game))).mbb < max_mbb


def test_command_line_writes_a_policy(tmp_path, capsys):
    out = tmp_path / "kuhn.json"
    assert main(["kuhn2p", "--iterations", "300", "--check-every", "100", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    lines = [line for line in text.splitlines() if line.startswith("iteration ")]
    assert [line.split()[1] for line in lines] == ["100", "200", "300"]
    assert all("mbb/hand" in line and "elapsed" in line for line in lines)
    assert f"wrote 12 information sets to {out}" in text
    policy = read_policy(out, load_game("kuhn2p"))
    assert len(policy) == 12
    assert main(["kuhn2p", "--evaluate", str(out)]) == 0
    assert "exploitability" in capsys.readouterr().out


def test_command_line_target(tmp_path, capsys):
    out = tmp_path / "k3.json"
    assert main(["kuhn3p", "--target-mbb", "5", "--check-every", "50", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    last = [line for line in text.splitlines() if line.startswith("iteration ")][-1]
    assert float(last.split("exploitability ")[1].split()[0]) <= 5
    assert "gains" in last  # three players: each one's gain
    assert main(["kuhn3p", "--target-mbb", "0.000001", "--max-iterations", "20", "--check-every", "10",
                 "--out", str(out)]) == 1
    assert "not reached after 20 iterations" in capsys.readouterr().err


def test_command_line_refusals(tmp_path, capsys):
    assert main(["hunl", "--out", str(tmp_path / "x.json")]) == 2
    assert "no-limit" in capsys.readouterr().err
    assert main(["hulhe", "--out", str(tmp_path / "x.json")]) == 2
    assert "estimated tree size" in capsys.readouterr().err
    assert main(["nosuchgame", "--out", str(tmp_path / "x.json")]) == 2
    assert "no game named 'nosuchgame'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["kuhn2p", "--iterations", "5", "--target-mbb", "1", "--out", "x.json"])
    with pytest.raises(SystemExit):
        main(["kuhn2p"])
    assert "--out" in capsys.readouterr().err
    assert not (tmp_path / "x.json").exists()
