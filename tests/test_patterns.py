"""The 2020 study's patterned players: buckets, triples and the players' actions."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import PAIRS, pair_index
from acpcbot.gamedef import load_game
from acpcbot.preflop import hand_class
from acpcbot.protocol import format_match_state
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.patterns import (
    PAIR_PREFLOP_BUCKET,
    PATTERNS,
    ManiacStrategy,
    RockStrategy,
    StationStrategy,
    maniac_triple,
    pair_postflop_buckets,
    pattern_triple,
    postflop_bucket,
    preflop_bucket,
    rock_triple,
    station_triple,
    triple_table,
)
from acpcbot.strategies.registry import create
from acpcbot.world import View

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


# ----------------------------------------------------------------- buckets

@pytest.mark.parametrize("hole,k", [
    ("AsAh", 0), ("AsKs", 0), ("JdJc", 0),            # G1
    ("AsKd", 1), ("TsTd", 1), ("KhQh", 1),            # G2
    ("AhTh", 2), ("AsQd", 2), ("9c9d", 2),            # G3
    ("Tc9c", 3), ("AsJd", 3), ("8d8h", 3),            # G4
    ("As2s", 4), ("7h7d", 4), ("Qd9d", 4),            # G5 (Axs: A2s..A9s)
    ("6s6c", 5), ("AcTd", 5), ("5h4h", 5),            # G6
    ("Ks2s", 6), ("Jh9d", 6), ("2c2d", 6),            # G7 (Kxs: K2s..K8s)
    ("8c7d", 7), ("Ad9h", 7), ("Th8c", 7),            # G8
    ("3c2c", 7), ("7c2d", 8), ("Kd2h", 8), ("Ah8d", 8), ("9c3c", 8),  # G8, then none
])
def test_preflop_buckets_are_the_sklansky_malmuth_groups(hole, k):
    assert preflop_bucket(cards(hole)) == k


def test_every_pair_has_the_bucket_of_its_class():
    for i, (a, b) in enumerate(PAIRS):
        assert PAIR_PREFLOP_BUCKET[i] == preflop_bucket((int(a), int(b))), hand_class(int(a), int(b))
    # G1 holds AA KK QQ JJ (6 combos each) and AKs (4): 28 pairs; "none" is the rest
    counts = np.bincount(PAIR_PREFLOP_BUCKET, minlength=9)
    assert counts[0] == 28 and counts.sum() == 1326


@pytest.mark.parametrize("hand,k", [
    ("AsKsQsJsTs", 0),            # royal flush
    ("AhKhQhJhTh2c3d", 0),
    ("5s4s3s2sAs", 1),            # 5-high straight flush: not royal
    ("AsKs5s4s3s2s", 1),          # A-K-5-4-3-2 suited: the 5-high straight flush
    ("KdQdJdTd9d", 1),            # king-high straight flush: not royal
    ("9h8h7h6h6c5h4d", 1),        # the straight flush among the suited cards only
    ("AcAdKsKhKdKc2s", 2),        # quads behind a full-house reading
    ("5c5d5h3s3d", 3), ("AsAdKcKhKd", 3),
    ("As9s7s4s2s", 4),
    ("AsKdQhJcTs", 5), ("5d4c3h2sAc", 5),  # the wheel is a straight
    ("QcQdQh5s2d", 6),
    ("AsAdQcQh5d", 7),
    ("AsAd9c7h5d", 8),
    ("AsKd9c7h5d", 9),
])
def test_postflop_buckets_are_the_made_hand_categories(hand, k):
    cs = cards(hand)
    assert postflop_bucket(cs[:2], cs[2:]) == k


@pytest.mark.parametrize("board", ["AsKsQs", "7c7d2h", "9h8h7h6h", "AsKdQhJc2s", "2c3d4h5s9c"])
def test_pair_buckets_agree_with_the_bucket_of_each_pair(board):
    bd = cards(board)
    buckets = pair_postflop_buckets(bd)
    rng = random.Random(len(board))
    for i in rng.sample(range(1326), 300):
        a, b = (int(x) for x in PAIRS[i])
        if a in bd or b in bd:
            assert buckets[i] == -1
        else:
            assert buckets[i] == postflop_bucket((a, b), bd)
    # the dead pairs are exactly those holding a board card
    assert (buckets == -1).sum() == 1326 - (52 - len(bd)) * (51 - len(bd)) // 2


def test_royal_flush_pair_is_bucket_zero_only_for_the_ace_high_straight_flush():
    buckets = pair_postflop_buckets(cards("KsQsJs"))
    assert buckets[pair_index(*cards("AsTs"))] == 0
    assert buckets[pair_index(*cards("Ts9s"))] == 1


# ----------------------------------------------------------------- triples

@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("postflop,top", [(False, 8), (True, 9)])
def test_every_triple_is_a_distribution(pattern, postflop, top):
    table = triple_table(pattern, postflop)
    assert table.shape == (top + 1, 3)
    for k in range(top + 1):
        t = pattern_triple(pattern, k, postflop)
        assert min(t) >= 0
        assert sum(t) == pytest.approx(1.0, abs=1e-12)
        assert tuple(table[k]) == t


def test_triples_hand_computed():
    approx = pytest.approx
    # maniac: fold .025k, call .05+.025k, raise .95-.05k
    assert maniac_triple(0) == approx((0.0, 0.05, 0.95))
    assert maniac_triple(3) == approx((0.075, 0.125, 0.80))
    assert maniac_triple(8) == approx((0.2, 0.25, 0.55))
    assert maniac_triple(9, postflop=True) == approx((0.225, 0.275, 0.5))
    # rock preflop (n = 8): fold .99k²/64, raise .99(k-8)²/64
    assert rock_triple(0) == approx((0.0, 0.01, 0.99))
    assert rock_triple(2) == approx((0.061875, 0.38125, 0.556875))
    assert rock_triple(4) == approx((0.2475, 0.505, 0.2475))
    assert rock_triple(8) == approx((0.99, 0.01, 0.0))
    # rock postflop (n = 9): fold .99k²/81, raise .99(k-9)²/81
    assert rock_triple(0, postflop=True) == approx((0.0, 0.01, 0.99))
    assert rock_triple(5, postflop=True) == approx((0.99 * 25 / 81, 1 - 0.99 * 41 / 81, 0.99 * 16 / 81))
    assert rock_triple(8, postflop=True) == approx((0.78222222, 0.20555556, 0.01222222))
    assert rock_triple(9, postflop=True) == approx((0.99, 0.01, 0.0))
    # station: fold .0375k, call .85-.025k, raise .15-.0125k
    assert station_triple(0) == approx((0.0, 0.85, 0.15))
    assert station_triple(4) == approx((0.15, 0.75, 0.10))
    assert station_triple(9, postflop=True) == approx((0.3375, 0.625, 0.0375))


def test_bad_buckets_and_patterns_are_named():
    with pytest.raises(ValueError, match="preflop bucket must be an int 0..8, got 9"):
        maniac_triple(9)
    with pytest.raises(ValueError, match="postflop bucket must be an int 0..9, got -1"):
        station_triple(-1, postflop=True)
    with pytest.raises(ValueError, match="unknown pattern 'loose'"):
        pattern_triple("loose", 0)
    with pytest.raises(ValueError, match="unknown pattern"):
        triple_table("loose", True)


# ----------------------------------------------------------------- the players

def view_of(game_name: str, hole: str, betting: list, board: str = "") -> View:
    """The view of the player to act after ``betting`` (engine actions), with ``hole`` and ``board``."""
    game = load_game(game_name)
    state = State(game, 0, [()] * game.num_players, cards(board))
    for a in betting:
        state.apply(a)
    p = state.current_player
    state.deal_hole(p, cards(hole))  # the others' cards stay unknown: the view shows only its own
    return View.parse(format_match_state(state, p), game)


@pytest.mark.parametrize("cls", [ManiacStrategy, RockStrategy, StationStrategy])
def test_patterns_refuse_games_other_than_holdem(cls):
    for name in ("leduc", "kuhn2p", "kuhn3p"):
        assert "Texas hold'em" in cls.unsupported_reason(load_game(name))
        with pytest.raises(UnsupportedGame, match=f"strategy '{cls.name}' cannot play"):
            cls(load_game(name), random.Random(0))
    for name in ("hunl", "hulhe", "3pl", "3pnl", "6pnl"):
        assert cls.unsupported_reason(load_game(name)) is None


def _frequencies(spec: str, view: View, n: int = 3000) -> Counter:
    s = create(spec, view.game, seed=1)
    return Counter(s.act(view, 0.0).type for _ in range(n))


@pytest.mark.parametrize("spec,hole,board,betting,k,postflop", [
    ("maniac", "AsAd", "", [], 0, False),
    ("maniac", "7c2h", "", [], 8, False),
    ("rock", "8d8h", "", [], 3, False),
    ("station", "Jh9d", "", [], 6, False),
    ("rock", "AsAd", "Ah7c2d", [CALL, CALL], 6, True),
    ("station", "Kc9h", "Ah7c2d", [CALL, CALL], 9, True),
])
def test_players_sample_their_bucket_triple(spec, hole, board, betting, k, postflop):
    # hunl preflop: the small blind faces the big blind, so all three actions are legal;
    # on the flop the big blind acts first and folds become checks, so fold + call are one outcome
    view = view_of("hunl", hole, betting, board)
    f, c, r = pattern_triple(spec, k, postflop)
    n = 3000
    got = _frequencies(spec, view, n)
    se = lambda p: (p * (1 - p) / n) ** 0.5 + 1e-9  # noqa: E731
    if view.can_fold:
        assert abs(got[F] / n - f) <= 4 * se(f)
        assert abs(got[C] / n - c) <= 4 * se(c)
    else:
        assert got[F] == 0
        assert abs(got[C] / n - (f + c)) <= 4 * se(f + c)
    assert abs(got[R] / n - r) <= 4 * se(r)


def test_raise_is_pot_sized_and_clamped_in_no_limit():
    # hunl: blinds 50/100 (reverse: position 1 posts 50 and acts first)
    view = view_of("hunl", "AsAd", [])
    s = create("maniac", view.game, seed=3)
    raises = {s.act(view, 0.0) for _ in range(200)} - {CALL, FOLD}
    # to call 50, pot after calling 200: raise to 100 + 200
    assert raises == {raise_to(300)}
    half = create("maniac:pot=0.5", view.game, seed=3)
    assert {half.act(view, 0.0) for _ in range(200)} - {CALL, FOLD} == {raise_to(200)}
    # facing a raise to 19000 of 20000: a pot raise is clamped to all-in
    deep = view_of("hunl", "AsAd", [raise_to(19000)])
    assert {s.act(deep, 0.0) for _ in range(200)} - {CALL, FOLD} == {raise_to(20000)}


def test_raise_is_r_in_limit_and_a_call_when_no_raise_is_left():
    view = view_of("hulhe", "AsAd", [])
    s = create("maniac", view.game, seed=3)
    assert {s.act(view, 0.0) for _ in range(100)} <= {RAISE, CALL}
    assert RAISE in {s.act(view, 0.0) for _ in range(100)}
    capped = view_of("hulhe", "AsAd", [RAISE, RAISE, RAISE])  # preflop cap of 3 raises reached
    assert not capped.can_raise
    assert {s.act(capped, 0.0) for _ in range(100)} <= {CALL, FOLD}


def test_rock_never_folds_when_checking_is_free():
    view = view_of("hunl", "7c2d", [CALL])  # the big blind may check
    s = create("rock", view.game, seed=5)
    assert {s.act(view, 0.0) for _ in range(300)} <= {CALL, raise_to(400)}
    assert CALL in {s.act(view, 0.0) for _ in range(300)}


def test_decisions_are_reproducible_from_the_seed():
    view = view_of("hunl", "Jh9d", [])
    a = create("station", view.game, seed=9)
    b = create("station", view.game, seed=9)
    assert [a.act(view, 0.0) for _ in range(50)] == [b.act(view, 0.0) for _ in range(50)]


def test_bad_pot_parameter_is_refused():
    from acpcbot.strategies.registry import StrategySpecError
    with pytest.raises(StrategySpecError, match="maniac: parameter pot='0' is invalid: must be > 0"):
        create("maniac:pot=0", load_game("hunl"))
