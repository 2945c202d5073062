"""The ``cfr`` player: policy lookup by the dealer's state text, seeded sampling, refusals and clear errors."""

import random
from collections import Counter

import pytest

import acpcbot.strategies.cfr  # noqa: F401  registers ``cfr``
from acpcbot.engine import CALL, FOLD, RAISE
from acpcbot.gamedef import load_game, parse_game
from acpcbot.protocol import parse_match_state
from acpcbot.session import run
from acpcbot.solve import PolicyError, build_tree, policy_from_strategy, write_policy
from acpcbot.strategies import UnsupportedGame, create
from acpcbot.strategies.cfr import CFRStrategy, shipped_policy
from acpcbot.strategies.registry import resolve
from acpcbot.world import MatchInfo, View


class Line:
    """The part of the client's view the player reads: the raw line, the parsed state and the position."""

    def __init__(self, line, game):
        self.text = line
        self.match_state = parse_match_state(line, game)
        self.state = self.match_state.state
        self.position = self.match_state.position


def frequencies(strategy, line, game, n=4000):
    counts = Counter(strategy.act(Line(line, game), 0.0) for _ in range(n))
    return {a: c / n for a, c in counts.items()}


@pytest.mark.parametrize("name", ["kuhn2p", "kuhn3p", "leduc"])
def test_plays_the_shipped_policy(name):
    game = load_game(name)
    strategy = create("cfr", game, seed=1)
    assert isinstance(strategy, CFRStrategy)
    assert strategy.policy_path == shipped_policy(game)
    assert len(strategy.table) == build_tree(game).num_infosets


def test_kuhn_equilibrium_facts():
    # in every 2-player Kuhn equilibrium the second player calls a bet with the ace,
    # folds the queen to a bet, and bets the ace after a check
    game = load_game("kuhn2p")
    strategy = create("cfr", game, seed=5)
    assert frequencies(strategy, "MATCHSTATE:1:7:r:|As", game, 300) == {CALL: 1.0}
    assert frequencies(strategy, "MATCHSTATE:1:8:r:|Qs", game, 300) == {FOLD: 1.0}
    assert frequencies(strategy, "MATCHSTATE:1:9:c:|As", game, 300) == {RAISE: 1.0}


def test_samples_the_policy_probabilities(tmp_path):
    game = load_game("kuhn2p")
    tree = build_tree(game)
    policy = policy_from_strategy(tree, tree.uniform())
    policy["0::Ks|"] = {"c": 0.25, "r": 0.75}
    policy["1:r:|Qs"] = {"f": 0.9, "c": 0.1}
    path = tmp_path / "p.json"
    write_policy(path, policy)
    strategy = create(f"cfr:policy={path}", game, seed=3)
    got = frequencies(strategy, "MATCHSTATE:0:1::Ks|", game)
    assert got[CALL] == pytest.approx(0.25, abs=0.03) and got[RAISE] == pytest.approx(0.75, abs=0.03)
    got = frequencies(strategy, "MATCHSTATE:1:2:r:|Qs", game)
    assert got[FOLD] == pytest.approx(0.9, abs=0.03) and got[CALL] == pytest.approx(0.1, abs=0.03)


def test_same_seed_same_actions():
    game = load_game("leduc")
    lines = ["MATCHSTATE:0:0::Kh|", "MATCHSTATE:1:0:r:|Qs", "MATCHSTATE:0:4:rc/:Kh|/Qs", "MATCHSTATE:1:9:c:|As"] * 50
    a, b, c = create("cfr", game, seed=9), create("cfr", game, seed=9), create("cfr", game, seed=10)
    first = [a.act(Line(x, game), 0.0) for x in lines]
    assert first == [b.act(Line(x, game), 0.0) for x in lines]
    assert first != [c.act(Line(x, game), 0.0) for x in lines]


def test_missing_information_set_is_a_clear_error(tmp_path):
    game = load_game("kuhn2p")
    tree = build_tree(game)
    policy = policy_from_strategy(tree, tree.uniform())
    del policy["1:c:|Ks"]
    path = tmp_path / "partial.json"
    write_policy(path, policy)
    # refused when the player is made, before any match, not at the first hand that needs the key
    with pytest.raises(PolicyError, match=r"partial.json: no entry for 1 of the game's information sets "
                                          r"\(for example '1:c:\|Ks'\)"):
        create(f"cfr:policy={path}", game, seed=1)


def test_refuses_games_without_a_policy():
    for name in ("hunl", "hulhe", "leducnl"):
        reason = CFRStrategy.unsupported_reason(load_game(name))
        assert "no shipped policy" in reason and "python -m acpcbot.solve" in reason
        with pytest.raises(UnsupportedGame, match="no shipped policy"):
            create("cfr", load_game(name), seed=1)
    assert CFRStrategy.unsupported_reason(load_game("leduc")) is None


def test_shipped_policy_found_by_rules_not_name():
    text = load_game("kuhn3p").to_text()
    assert shipped_policy(parse_game(text, "my-kuhn.game")) == shipped_policy(load_game("kuhn3p"))


def test_policy_file_for_another_game(tmp_path):
    # a policy made for an unshipped game is played when given explicitly
    game = parse_game(load_game("kuhn2p").to_text().replace("numRanks = 3", "numRanks = 4"), "kuhn4")
    assert CFRStrategy.unsupported_reason(game) is not None
    tree = build_tree(game)
    path = tmp_path / "kuhn4.json"
    write_policy(path, policy_from_strategy(tree, tree.uniform()))
    strategy = create(f"cfr:policy={path}", game, seed=2)
    assert strategy.act(Line("MATCHSTATE:0:0::Js|", game), 0.0) in (CALL, RAISE)
    # the class still refuses the game when no file is given
    assert CFRStrategy.unsupported_reason(game) is not None
    with pytest.raises(UnsupportedGame):
        create("cfr", game, seed=2)


def test_wrong_policy_file_is_refused_at_creation(tmp_path):
    from acpcbot.solve import PolicyError
    with pytest.raises(PolicyError, match="not a state the dealer can send"):
        create(f"cfr:policy={shipped_policy(load_game('kuhn3p'))}", load_game("leduc"), seed=1)
    with pytest.raises(PolicyError, match="cannot read policy file"):
        create(f"cfr:policy={tmp_path / 'none.json'}", load_game("leduc"), seed=1)


def test_spec_parameter():
    cls, values = resolve("cfr:policy=some/file.json")
    assert cls is CFRStrategy and values == {"policy": "some/file.json"}


def test_with_the_clients_view():
    game = load_game("leduc")
    view = View.parse("MATCHSTATE:0:31:rc/:Kh|/Qs\r\n", game)
    strategy = create("cfr", game, seed=4)
    assert strategy.act(view, 0.0) in (CALL, RAISE)
    assert CFRStrategy(game, random.Random(1)).act(view, 0.0) in (CALL, RAISE)


# ----------------------------------------------------------------- over ACPC, through our dealer

MATCH_TIMEOUT = 120.0  # seconds; a whole match here takes a few


async def _play_match(workdir, game_name, hands, seed, specs, caplog):
    """Our dealer (its command line, over TCP on 127.0.0.1) against our clients; (scores by name, transcript)."""
    import asyncio
    import sys

    from acpcbot.matchlog import parse_score_line
    from acpcbot.strategies import create

    game = load_game(game_name)
    names = [f"{spec.split(':')[0]}{seat}" for seat, spec in enumerate(specs)]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "dealer", "m", game_name, str(hands), str(seed), *names,
        "--start_timeout", "20000", cwd=workdir,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        ports = [int(p) for p in (await asyncio.wait_for(proc.stdout.readline(), 30)).split()]
        assert len(ports) == len(specs)
        clients = [run(create(spec, game, seed=seed * 10 + seat), MatchInfo(game, name=names[seat], seed=seat),
                       "127.0.0.1", ports[seat], retry_for=5.0) for seat, spec in enumerate(specs)]
        codes, (out, err) = await asyncio.wait_for(
            asyncio.gather(asyncio.gather(*clients), proc.communicate()), MATCH_TIMEOUT)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode()[-2000:]
    assert codes == [0] * len(specs)
    values, score_names = parse_score_line(out.decode().splitlines()[-1])
    transcript = err.decode()
    return dict(zip(score_names, map(float, values))), transcript


def _quiet_clients(caplog):
    return [r for r in caplog.records if r.levelno >= 30]  # WARNING or worse from any client or strategy


def _check_clean_match(tmp_path, caplog, game_name, specs, hands):
    import asyncio
    scores, transcript = asyncio.run(_play_match(tmp_path, game_name, hands, 17, specs, caplog))
    assert not [ln for ln in transcript.splitlines() if "WARNING" in ln], transcript[-2000:]
    assert not _quiet_clients(caplog)
    assert len((tmp_path / "m.log").read_text().splitlines()) > hands  # every hand logged
    return scores


@pytest.mark.parametrize("game_name, specs", [("kuhn3p", ["cfr", "random", "random"]), ("leduc", ["cfr", "random"])])
def test_cfr_plays_300_hands_with_no_warnings(tmp_path, caplog, game_name, specs):
    _check_clean_match(tmp_path, caplog, game_name, specs, 300)


@pytest.mark.slow
@pytest.mark.parametrize("game_name, specs", [("kuhn3p", ["cfr", "random", "random"]), ("leduc", ["cfr", "random"])])
def test_cfr_plays_2000_hands_with_no_warnings(tmp_path, caplog, game_name, specs):
    scores = _check_clean_match(tmp_path, caplog, game_name, specs, 2000)
    assert scores["cfr0"] > 0


@pytest.mark.slow  # a duplicate strength match, 2 x 1,000 hands through the dealer: make soak
def test_cfr_beats_random_in_a_leduc_duplicate_match(tmp_path, caplog):
    import asyncio
    hands = 1000
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, t1 = asyncio.run(_play_match(tmp_path / "a", "leduc", hands, 23, ["cfr", "random"], caplog))
    second, t2 = asyncio.run(_play_match(tmp_path / "b", "leduc", hands, 23, ["random", "cfr"], caplog))
    assert "WARNING" not in t1 + t2
    cfr_total = first["cfr0"] + second["cfr1"]
    # the same cards both ways: luck cancels; cfr's expected gain is about 0.69 chips a hand
    assert cfr_total / (2 * hands) > 0.3
    assert first["random1"] + second["random0"] == pytest.approx(-cfr_total)
