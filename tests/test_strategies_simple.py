"""The registry (specs, parameters, the default) and the baseline players random, call, raise and fold."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.gamedef import SHIPPED_GAMES, load_game
from acpcbot.protocol import format_match_state
from acpcbot.strategies import registration, registry
from acpcbot.strategies.base import Param, Strategy, UnsupportedGame, parse_bool
from acpcbot.strategies.registry import (
    DEFAULT_PREFERENCES,
    StrategySpecError,
    available,
    create,
    default_spec,
    describe,
    parse_spec,
    register,
    resolve,
)
from acpcbot.world import View
from dealer.rng import Dealer

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def views_to_act(game_name: str, hands: int, seed: int = 0):
    """Views of every state where some position acts, over random hands of a game."""
    game = load_game(game_name)
    deals = Dealer(game, seed)
    rng = random.Random(seed)
    for h in range(hands):
        hole, board = deals.deal()
        state = State(game, h, hole, board)
        while not state.finished:
            p = state.current_player
            yield View.parse(format_match_state(state, p), game)
            kind = rng.choice(state.legal_actions())
            if kind == R and game.is_nolimit:
                lo, hi = state.raise_bounds()
                state.apply(raise_to(rng.randint(lo, hi)))
            else:
                state.apply({F: FOLD, C: CALL, R: RAISE}[kind])


# ----------------------------------------------------------------- registry

def test_parse_spec():
    assert parse_spec("mfs:t=1") == ("mfs", {"t": "1"})
    assert parse_spec(" raise:size=pot ") == ("raise", {"size": "pot"})
    assert parse_spec("call") == ("call", {})
    for bad, words in [("", "empty strategy name"), (":x=1", "empty"), ("raise:size", "not key=value"),
                       ("raise:size=pot,size=min", "given twice"), ("raise:=pot", "not key=value")]:
        with pytest.raises(StrategySpecError, match=words):
            parse_spec(bad)


@pytest.mark.parametrize("spec,words", [
    ("nosuch", "unknown strategy 'nosuch'; known: .*call"),
    ("raise:sizes=pot", "strategy 'raise' has no parameter 'sizes' \\(parameters: size\\)"),
    ("raise:size=huge", "raise: parameter size='huge' is invalid: expected one of min, pot, allin"),
    ("random:fold=-1", "random: parameter fold='-1' is invalid: must be >= 0"),
    ("random:fold=abc", "random: parameter fold='abc' is invalid"),
    ("call:x=1", "has no parameter 'x' \\(parameters: none\\)"),
])
def test_bad_specs_are_named_clearly(spec, words):
    with pytest.raises(StrategySpecError, match=words):
        resolve(spec)


def test_create_converts_parameters_and_keeps_the_spec():
    game = load_game("hunl")
    s = create("raise:size=pot", game, seed=3)
    assert s.size == "pot" and s.spec == "raise:size=pot" and s.game is game
    r = create("random:fold=0,raise=1", game, seed=3)
    assert r.weights == {F: 0.0, C: 0.47, R: 1.0}


def test_every_strategy_gets_a_seeded_generator():
    game = load_game("hunl")
    a, b = create("random", game, 7), create("random", game, 7)
    assert a.rng.random() == b.rng.random()
    assert create("random", game, 8).rng.random() != create("random", game, 7).rng.random()


def test_default_spec_is_the_first_preference_that_plays_the_game():
    for name in SHIPPED_GAMES:
        # cfr where a policy is shipped, the blueprint in heads-up limit hold'em, adaptive in the other hold'em
        # games, call elsewhere (leducnl)
        expected = "cfr" if name in ("kuhn2p", "kuhn3p", "leduc") else "call" if name == "leducnl" else \
            "blueprint" if name == "hulhe" else "adaptive"
        assert default_spec(load_game(name)) == expected
    for spec in DEFAULT_PREFERENCES:
        resolve(spec)  # every listed spec names a registered strategy with valid parameters


def test_default_spec_skips_strategies_that_cannot_play(monkeypatch):
    class OnlyLimit(Strategy):
        name = "test-only-limit"
        description = "test"

        @classmethod
        def unsupported_reason(cls, game):
            return None if game.is_limit else "limit games only"

    available()
    monkeypatch.setitem(registration._REGISTRY, OnlyLimit.name, OnlyLimit)  # registered for this test only
    monkeypatch.setattr(registry, "DEFAULT_PREFERENCES", ("test-only-limit", "fold"))
    assert default_spec(load_game("hulhe")) == "test-only-limit"
    assert default_spec(load_game("hunl")) == "fold"
    with pytest.raises(UnsupportedGame, match="limit games only"):
        create("test-only-limit", load_game("hunl"))
    monkeypatch.setattr(registry, "DEFAULT_PREFERENCES", ("test-only-limit",))
    with pytest.raises(StrategySpecError, match="no default strategy can play hunl"):
        default_spec(load_game("hunl"))


def test_register_refuses_nameless_and_duplicate_names():
    class Nameless(Strategy):
        pass

    with pytest.raises(ValueError, match="has no name"):
        register(Nameless)

    class Impostor(Strategy):
        name = "call"

    available()
    with pytest.raises(ValueError, match="two strategies are named 'call'"):
        register(Impostor)


def test_unknown_keyword_parameters_are_refused():
    with pytest.raises(TypeError, match="no parameter nope"):
        available()["call"](load_game("hunl"), random.Random(), nope=1)


def test_listing_describes_every_parameter():
    text = describe(available()["raise"])
    assert text.startswith("raise ") and "size:" in text and "min|pot|allin" in text
    assert "fold: weight of folding (default 0.06" in describe(available()["random"])
    assert {"random", "call", "raise", "fold", "human", "cfr"} <= set(available())
    # an empty default is left to the help text; a boolean's default is written as it is typed
    assert Param(str, "", "a file (empty: none)").describe() == "a file (empty: none)"
    assert Param(parse_bool, True, "look ahead").describe() == "look ahead (default 1)"


def test_param_helpers():
    p = Param(int, 3, "a count", lambda v: v > 0, "must be positive")
    assert p.convert("4") == 4
    with pytest.raises(ValueError, match="must be positive"):
        p.convert("0")
    assert parse_bool("Yes") is True and parse_bool("off") is False
    with pytest.raises(ValueError, match="not a boolean"):
        parse_bool("maybe")


# ----------------------------------------------------------------- the players

@pytest.mark.parametrize("game_name", SHIPPED_GAMES)
@pytest.mark.parametrize("spec", ["random", "call", "raise:size=min", "raise:size=pot", "raise:size=allin", "fold"])
def test_every_baseline_action_is_legal(game_name, spec):
    game = load_game(game_name)
    strategy = create(spec, game, seed=1)
    for view in views_to_act(game_name, 25):
        action = strategy.act(view, float("inf"))
        assert view.state.is_legal(action), (spec, view.text, action)


def test_random_frequencies_follow_the_reference_player():
    game = load_game("hunl")
    strategy = create("random", game, seed=11)
    view = View.parse("MATCHSTATE:1:31::|JdTc", game)  # fold, call and raise are all legal
    counts = Counter(strategy.act(view, 0)[0] for _ in range(20000))
    assert abs(counts[F] / 20000 - 0.06) < 0.01
    assert abs(counts[C] / 20000 - 0.47) < 0.02
    assert abs(counts[R] / 20000 - 0.47) < 0.02


def test_random_renormalises_without_fold():
    game = load_game("hunl")
    strategy = create("random", game, seed=12)
    view = View.parse("MATCHSTATE:0:30:c:9s8h|", game)  # free to check: no fold
    counts = Counter(strategy.act(view, 0)[0] for _ in range(10000))
    assert counts[F] == 0
    assert abs(counts[C] / 10000 - 0.5) < 0.03


def test_random_raise_sizes_are_uniform_over_the_legal_range():
    game = load_game("leducnl")
    strategy = create("random:fold=0,call=0", game, seed=13)
    view = View.parse("MATCHSTATE:0:5::Ks|", game)  # raise-to 200..1200
    sizes = Counter(strategy.act(view, 0)[1] for _ in range(50000))
    assert min(sizes) == 200 and max(sizes) == 1200
    assert len(sizes) > 990
    assert abs(sum(k * v for k, v in sizes.items()) / 50000 - 700) < 10


def test_random_only_calls_when_that_is_all_that_is_legal():
    game = load_game("hunl")
    view = View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", game)
    strategy = create("random:fold=0", game, seed=1)
    assert {strategy.act(view, 0) for _ in range(100)} == {CALL}


def test_raise_sizes():
    game = load_game("hunl")
    facing = View.parse("MATCHSTATE:1:31:r300r900:|JdTc", game)
    assert create("raise:size=min", game).act(facing, 0) == raise_to(1500)
    assert create("raise:size=pot", game).act(facing, 0) == raise_to(2700)
    assert create("raise", game).act(facing, 0) == raise_to(1500)
    assert create("raise:size=allin", game).act(facing, 0) == raise_to(20000)
    allin = View.parse("MATCHSTATE:1:31:r300r900c/r1800r3600r9000c/r20000:|JdTc/6dJc9c/Kh", game)
    assert create("raise:size=pot", game).act(allin, 0) == CALL
    limit = View.parse("MATCHSTATE:0:0:r:TdAs|", load_game("hulhe"))
    assert create("raise:size=pot", load_game("hulhe")).act(limit, 0) == RAISE
    capped = View.parse("MATCHSTATE:0:7:rrr:9d7s|", load_game("hulhe"))
    assert create("raise", load_game("hulhe")).act(capped, 0) == CALL


def test_call_and_fold():
    game = load_game("hunl")
    facing = View.parse("MATCHSTATE:1:31:r300r900:|JdTc", game)
    free = View.parse("MATCHSTATE:0:30:c:9s8h|", game)
    assert create("call", game).act(facing, 0) == CALL
    assert create("fold", game).act(facing, 0) == FOLD
    assert create("fold", game).act(free, 0) == CALL


def test_seeded_play_is_reproducible():
    def actions(seed):
        strategy = create("random", load_game("3pnl"), seed=seed)
        return [strategy.act(v, 0) for v in views_to_act("3pnl", 20)]

    assert actions(5) == actions(5)
    assert actions(5) != actions(6)
