"""The 2020 study's Bayesian player: its formulas, the opponent range, the pattern posterior, the player."""

from __future__ import annotations

import random

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.engine import CALL, FOLD, RAISE, ActionType, State, raise_to
from acpcbot.evaluator import PAIRS, pair_index, showdown_shares
from acpcbot.gamedef import load_game
from acpcbot.preflop import chen_score
from acpcbot.protocol import format_match_state
from acpcbot.strategies.base import UnsupportedGame
from acpcbot.strategies.bayes import (
    LOOSEN,
    TIGHTEN,
    TREMBLE,
    BayesStrategy,
    PatternBelief,
    action_table,
    adjust_triple,
    adjustment,
    bluff,
    chen_triple,
    combine_shares,
    facing_reraise,
    improving_cards,
    loosen,
    odd_bote,
    postflop_triple,
    river_triple,
    tighten,
)
from acpcbot.strategies.bayes_ranges import HandRange
from acpcbot.strategies.patterns import PAIR_PREFLOP_BUCKET, PATTERNS, pair_postflop_buckets, triple_table
from acpcbot.strategies.registry import create
from acpcbot.world import View

F, C, R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
approx = pytest.approx


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


# ----------------------------------------------------------------- HandRange

def test_range_starts_at_one_and_loses_visible_cards():
    r = HandRange()
    assert r.live == 1326 and r.total == 1326
    r.reset(cards("AsAd"))
    assert r.live == 50 * 49 // 2  # pairs of the 50 cards left
    r.remove_cards(cards("Kh7c2d"))
    assert r.live == 47 * 46 // 2
    assert r.pair_weight(*cards("AsKd")) == 0 and r.pair_weight(*cards("KsKd")) == 1
    r.remove_cards(cards("Kh"))  # again: nothing changes
    assert r.live == 47 * 46 // 2


def test_range_observe_multiplies_and_expect_is_the_weighted_mean():
    r = HandRange()
    like = np.linspace(0.0, 1.0, 1326)
    assert r.expect(like) == approx(like.mean())
    assert r.observe(like)
    assert r.weights == approx(like)
    assert r.expect(like) == approx((like * like).sum() / like.sum())
    assert r.probabilities().sum() == approx(1.0)


def test_range_ignores_an_update_that_would_empty_it_and_rescales_tiny_weights():
    r = HandRange()
    r.weights[:] = 0
    r.weights[5] = 1.0
    like = np.ones(1326)
    like[5] = 0.0
    assert r.observe(like) is False and r.weights[5] == 1.0
    r = HandRange()
    like = np.full(1326, 1e-30)
    like[7] = 2e-30
    for _ in range(20):  # 1e-600 would underflow to zero
        assert r.observe(like)
    assert r.weights.max() > 0 and r.weights[7] / r.weights[8] == approx(2.0 ** 20)


def test_range_bad_input_is_named():
    with pytest.raises(ValueError, match="1326 finite weights"):
        HandRange(np.ones(5))
    with pytest.raises(ValueError, match="cards must be ints 0..51"):
        HandRange().remove_cards([52])
    with pytest.raises(ValueError, match="same card"):
        HandRange().pair_weight(3, 3)


# ----------------------------------------------------------------- preflop

@pytest.mark.parametrize("hole,score,triple,reraise_triple", [
    ("AsAd", 20, (0, 0.1, 0.9), (0, 0.2, 0.8)),
    ("AsKs", 12, (0, 0.1, 0.9), (0, 0.2, 0.8)),
    ("AsKd", 10, (0, 0.25, 0.75), (0, 0.8, 0.2)),
    ("KsJs", 9, (0.25, 0.65, 0.1), (0.85, 0.1, 0.05)),   # 8 + 2 suited - 1 for the gap
    ("5s5d", 5, (0.25, 0.65, 0.1), (0.85, 0.1, 0.05)),
    ("6s5d", 4, (0.69, 0.3, 0.01), (0.99, 0.01, 0)),   # 3, no gap, both below a queen: +1
    ("9s6d", 3, (0.99, 0.01, 0), (0.99, 0.01, 0)),     # 4.5, gap 2 costs 2: 2.5 rounds up to 3
    ("7s2d", -1, (0.99, 0.01, 0), (0.99, 0.01, 0)),
])
def test_chen_bands(hole, score, triple, reraise_triple):
    c = cards(hole)
    assert chen_score(*c) == score
    assert chen_triple(score) == approx(triple)
    assert chen_triple(score, reraise=True) == approx(reraise_triple)


def test_chen_band_edges_on_rounded_scores():
    # the bands 10-11.5, 5-9.5, 3.5-4.5 on rounded scores: 10-11, 5-9, 4; below: 3 and less
    assert [chen_triple(s)[2] for s in (13, 12, 11, 10, 9, 5, 4, 3, 0)] == \
        [0.9, 0.9, 0.75, 0.75, 0.1, 0.1, 0.01, 0.0, 0.0]
    assert [chen_triple(s, True)[0] for s in (12, 11, 10, 9, 5, 4, 3)] == [0, 0, 0, 0.85, 0.85, 0.99, 0.99]
    for s in range(-2, 21):
        assert sum(chen_triple(s)) == approx(1.0) and sum(chen_triple(s, True)) == approx(1.0)


def _state(game_name: str, actions) -> State:
    state = State(load_game(game_name))
    for a in actions:
        state.apply(a)
    return state


def test_facing_a_reraise():
    assert not facing_reraise(_state("hunl", []))  # the small blind faces only the blind
    assert not facing_reraise(_state("hunl", [raise_to(300)]))  # one raise
    assert facing_reraise(_state("hunl", [raise_to(300), raise_to(900)]))  # a raise and a re-raise
    assert facing_reraise(_state("hulhe", [RAISE, RAISE]))
    assert not facing_reraise(_state("hunl", [CALL, raise_to(300), raise_to(900), CALL]))  # flop: not preflop
    # three players: a raise and a re-raise before us
    assert facing_reraise(_state("3pnl", [raise_to(300), raise_to(900)]))


# ----------------------------------------------------------------- flop, turn, river

def test_postflop_triple_hand_computed():
    # raise = .8(.5 + .5*.2) + .1*.25 + .1*.2 = .525; fold = .8(.3 + .7*.1) + .1*.75 + .1*.2 = .391
    assert postflop_triple(0.5, 0.3, 0.2, 0.1, 0.25, 0.2) == approx((0.391, 0.084, 0.525))
    # raise .86 and fold .54 exceed 1: renormalised, call 0
    assert postflop_triple(0.9, 0.1, 0.5, 0.5, 0.5, 0.5) == approx((0.54 / 1.4, 0.0, 0.86 / 1.4))
    assert river_triple(0.6, 0.1, 0.3) == (0.3, 0.1, 0.6)
    assert odd_bote(100, 400) == 0.25 and odd_bote(0, 300) == 0.0  # 100 to call into 300


def test_improving_cards_on_the_flop():
    # AhKh on QhJh2c: 9 hearts (flush, Th a royal flush), 3 tens (straight), 3 aces and 3 kings (a pair
    # the board does not make); queens, jacks and deuces only pair the board: 18 of 47
    assert improving_cards(cards("AhKh"), cards("QhJh2c")) == (18, 47)


def test_improving_cards_on_the_turn():
    # a set of sevens: the last seven (quads) and the 3 kings, 3 deuces, 3 nines (full houses): 10 of 46
    assert improving_cards(cards("7c7d"), cards("7hKs2d9c")) == (10, 46)
    # nothing improves the nuts but the royal flush
    assert improving_cards(cards("AsKs"), cards("QsJsTs2d")) == (0, 46)


def test_combine_shares_against_independent_opponents():
    assert combine_shares([(0.5, 0.1, 0.4)]) == approx((0.5, 0.1, 0.4))
    # ahead of both .5*.6; not behind either .6*.8 = .48
    assert combine_shares([(0.5, 0.1, 0.4), (0.6, 0.2, 0.2)]) == approx((0.3, 0.18, 0.52))


# ----------------------------------------------------------------- adjustment and bluff

def test_loosen_and_tighten():
    assert loosen((0.5, 0.3, 0.2)) == approx((0.3, 0.4, 0.3))
    assert tighten((0.2, 0.5, 0.3)) == approx((0.36, 0.4, 0.24))


@pytest.mark.parametrize("posterior,raised,pair,expected", [
    ([0.7, 0.2, 0.1], False, True, LOOSEN),    # maniac, pair or better
    ([0.7, 0.2, 0.1], True, False, TIGHTEN),   # maniac, less than a pair
    ([0.0, 0.0, 1.0], False, False, TIGHTEN),  # station, high card
    ([0.0, 0.1, 0.9], False, True, LOOSEN),
    ([0.1, 0.8, 0.1], False, False, LOOSEN),   # rock that did not raise: loosen whatever we hold
    ([0.1, 0.8, 0.1], True, False, TIGHTEN),   # rock that raised: as for maniac
    ([0.1, 0.8, 0.1], True, True, LOOSEN),
    ([0.45, 0.4, 0.15], True, True, None),     # top two within 0.1: unsure
    ([0.5, 0.4, 0.1], True, True, None),
])
def test_adjustment(posterior, raised, pair, expected):
    assert adjustment(np.array(posterior), raised, pair) == expected


def test_adjust_triple_needs_every_opponent_to_agree():
    t = (0.5, 0.3, 0.2)
    assert adjust_triple(t, [LOOSEN]) == approx(loosen(t))
    assert adjust_triple(t, [TIGHTEN, TIGHTEN]) == approx(tighten(t))
    assert adjust_triple(t, [LOOSEN, TIGHTEN]) == t
    assert adjust_triple(t, [LOOSEN, None]) == t
    assert adjust_triple(t, [None]) == t


def test_bluff():
    assert bluff((0.6, 0.3, 0.1), 0.3) == approx((0.0, 0.6, 0.4))  # u < 1 - fold
    assert bluff((0.6, 0.3, 0.1), 0.5) == (0.6, 0.3, 0.1)
    assert bluff((0.3, 0.5, 0.2), 0.0) == (0.3, 0.5, 0.2)  # fold not the largest
    assert bluff((0.4, 0.4, 0.2), 0.0) == (0.4, 0.4, 0.2)


# ----------------------------------------------------------------- likelihoods and the posterior

@pytest.mark.parametrize("legal", [(F, C, R), (C, R), (F, C), (C,)])
@pytest.mark.parametrize("postflop", [False, True])
def test_action_tables_are_distributions_over_the_legal_actions(legal, postflop):
    total = sum(action_table(a, legal, postflop) for a in legal)
    assert total == approx(np.ones_like(total))
    # a check absorbs the pattern's fold where folding is not allowed, a call its raise where raising is not
    for m, pattern in enumerate(PATTERNS):
        t = triple_table(pattern, postflop)
        expected = t[:, 1] + (t[:, 0] if F not in legal else 0) + (t[:, 2] if R not in legal else 0)
        assert action_table(C, legal, postflop)[m] == approx(expected)


def _brute_likelihood(weights: np.ndarray, buckets: np.ndarray, table_row: np.ndarray) -> float:
    num = den = 0.0
    for i in range(1326):
        if weights[i] > 0:
            num += weights[i] * table_row[buckets[i]]
            den += weights[i]
    return num / den


def test_posterior_is_bayes_with_a_mixture_likelihood_over_the_range():
    m = PatternBelief()
    dead = cards("AsAd")
    m.start_hand(dead)
    live = HandRange()
    live.reset(dead)
    legal = (F, C, R)
    lik = m.observe(R, legal, PAIR_PREFLOP_BUCKET, False)
    expected = []
    for k, pattern in enumerate(PATTERNS):
        mix = _brute_likelihood(live.weights, PAIR_PREFLOP_BUCKET, triple_table(pattern, False)[:, 2])
        expected.append((1 - TREMBLE) * mix + TREMBLE / 3)
    assert lik == approx(expected)
    assert m.posterior() == approx(np.array(expected) / sum(expected))
    # the study summed the other two likelihoods; the posterior here is proportional to each one's own
    assert m.likely_pattern() == "maniac"
    # second action, on the flop: a check; each pattern's range was conditioned on its own raise
    board = cards("Kh7c2d")
    m.remove_cards(board)
    buckets = pair_postflop_buckets(board)
    lik2 = m.observe(C, (C, R), buckets, True)
    for k, pattern in enumerate(PATTERNS):
        w = live.weights.copy()
        w[buckets < 0] = 0
        w *= triple_table(pattern, False)[PAIR_PREFLOP_BUCKET, 2]
        check = triple_table(pattern, True)[:, 0] + triple_table(pattern, True)[:, 1]
        mix = _brute_likelihood(w, buckets, check)
        assert lik2[k] == approx((1 - TREMBLE) * mix + TREMBLE / 2)
    post = np.array(expected) * lik2
    assert m.posterior() == approx(post / post.sum())


def test_decision_range_follows_the_most_likely_pattern():
    m = PatternBelief()
    m.start_hand(cards("2c3d"))
    m.observe(R, (F, C, R), PAIR_PREFLOP_BUCKET, False)
    assert m.likely_pattern() == "maniac"
    raise_prob = triple_table("maniac", False)[:, 2]
    aa = pair_index(*cards("AhAs"))
    seven_two = pair_index(*cards("7h2s"))
    assert m.range.weights[aa] == approx(raise_prob[0])
    assert m.range.weights[seven_two] == approx(raise_prob[8])
    assert m.range.weights[pair_index(*cards("2c2h"))] == 0  # holds our card
    assert m.raised


def test_showdown_replaces_the_mixture_by_the_exact_likelihood():
    m = PatternBelief()
    m.start_hand(cards("2c3d"))
    m.observe(R, (F, C, R), PAIR_PREFLOP_BUCKET, False)
    board = cards("Kh7c2d")
    m.remove_cards(board)
    m.observe(C, (C, R), pair_postflop_buckets(board), True)
    shown = cards("KsKd")  # G1 preflop, trips on the flop (bucket 6)
    m.finish_hand(shown)
    exact = []
    for pattern in PATTERNS:
        p1 = triple_table(pattern, False)[0, 2]
        p2 = triple_table(pattern, True)[6, 0] + triple_table(pattern, True)[6, 1]
        exact.append(((1 - TREMBLE) * p1 + TREMBLE / 3) * ((1 - TREMBLE) * p2 + TREMBLE / 2))
    assert m.posterior() == approx(np.array(exact) / sum(exact))
    # the next hand starts from this posterior with fresh ranges
    m.start_hand(cards("4c5d"))
    assert m.posterior() == approx(np.array(exact) / sum(exact))
    assert m.range.live == 50 * 49 // 2 and not m.raised


def test_a_pattern_is_not_ruled_out_by_one_impossible_action():
    m = PatternBelief()
    m.start_hand(())
    board = cards("AsKsQs")
    m.remove_cards(board)
    buckets = pair_postflop_buckets(board)
    # a royal-flush-only range: rock never folds it, yet a fold was seen
    for r in [m.range] + m.pattern_ranges:
        r.weights[:] = 0
        r.weights[pair_index(*cards("JsTs"))] = 1
    m.observe(F, (F, C, R), buckets, True)
    assert (m.posterior() > 0).all()
    assert m.range.live == 1  # the impossible update was skipped, not applied


# ----------------------------------------------------------------- the player

def view_of(game_name: str, holes: list[str], betting, board: str = "", viewer: int | None = None) -> View:
    game = load_game(game_name)
    state = State(game, 0, [cards(h) for h in holes], cards(board))
    for a in betting:
        state.apply(a)
    p = state.current_player if viewer is None else viewer
    return View.parse(format_match_state(state, p), game)


def test_bayes_refuses_games_other_than_holdem():
    for name in ("leduc", "kuhn2p", "leducnl"):
        with pytest.raises(UnsupportedGame, match="strategy 'bayes' cannot play"):
            BayesStrategy(load_game(name), random.Random(0))
    for name in ("hunl", "hulhe", "3pl", "3pnl", "6pnl"):
        assert BayesStrategy.unsupported_reason(load_game(name)) is None


def test_bayes_preflop_uses_the_chen_triples():
    s = create("bayes:bluff=0", load_game("hunl"), seed=1)
    v = view_of("hunl", ["7c2d", "AsKd"], [])  # position 1 (small blind) acts first
    s.observe(v)
    assert s.decide(v) == chen_triple(10)
    v = view_of("hunl", ["AsKd", "7c2d"], [raise_to(300), raise_to(900)], viewer=1)
    s2 = create("bayes:bluff=0", load_game("hunl"), seed=1)
    s2.observe(v)
    assert s2.decide(v) == chen_triple(-1, reraise=True)
    assert s2.last["reraise"]


def test_bayes_counts_opponent_actions_and_visible_cards():
    game = load_game("hunl")
    s = create("bayes", game, seed=1)
    holes = ["QcJc", "AsKd"]  # bayes sits at position 1
    betting = [raise_to(300), raise_to(900), CALL, raise_to(1800)]
    board = "Kh7c2d"
    for i in range(len(betting) + 1):
        s.observe(view_of("hunl", holes, betting[:i], board, viewer=1))
    model = s.models[1]
    assert model.actions == 2  # the call preflop and the raise on the flop
    w = model.range.weights
    for c in cards("AsKdKh7c2d"):
        assert not w[(PAIRS == c).any(axis=1)].any()
    assert model.raised
    # the flop decision: strength against that range
    view = view_of("hunl", holes, betting, board, viewer=1)
    s.act(view, 0.0)
    sh = showdown_shares(cards("AsKd"), cards(board), w)
    assert s.last["ahead"] == approx(sh.ahead) and s.last["behind"] == approx(sh.behind)
    assert s.last["odd_bote"] == approx(900 / (2700 + 900))
    assert s.last["odd_mano"] == approx(improving_cards(cards("AsKd"), cards(board))[0] / 47)


def test_bayes_river_triple_before_adjustment():
    s = create("bayes", load_game("hunl"), seed=2)
    betting = [CALL, CALL, CALL, CALL, CALL, CALL, CALL]
    view = view_of("hunl", ["QcJc", "AsKd"], betting, "Kh7c2d3s9h", viewer=1)  # position 0 checked the river
    assert view.is_my_turn and view.round == 3
    s.observe(view)
    s.act(view, 0.0)
    sh = showdown_shares(cards("AsKd"), cards("Kh7c2d3s9h"), s.models[1].range.weights)
    assert s.last["base"] == approx((sh.behind, sh.tied, sh.ahead))


def test_opponents_keep_their_model_when_seats_rotate():
    game = load_game("3pnl")  # position 2 acts first preflop
    s = create("bayes", game, seed=3)

    def hand(hand_id: int, me: int, betting) -> None:
        holes = [cards("2c3d"), cards("4c5d"), cards("6c7d")]
        state = State(game, hand_id, holes, cards("Kh7c2dAs9h"))
        s.observe(View.parse(format_match_state(state, me), game))
        for a in betting:
            state.apply(a)
            view = View.parse(format_match_state(state, me), game)
            s.observe(view)
        if state.finished:
            s.end_hand(view)

    # we sit at position 0: position 2 (seat offset 2) raises, we call, position 1 (offset 1) folds
    hand(0, 0, [raise_to(300), CALL, FOLD])
    assert s.models[1].actions == 1 and s.models[2].actions == 1
    assert s.models[2].raised and not s.models[1].raised
    # next hand we sit at position 2 (seats rotate): offset 1 is now position 0, offset 2 position 1
    hand(1, 2, [CALL, raise_to(300)])
    assert s.models[1].actions == 2 and s.models[1].raised
    assert s.models[2].actions == 1 and not s.models[2].raised


def test_bayes_decisions_are_reproducible_from_the_seed():
    game = load_game("hunl")
    view = view_of("hunl", ["QcJc", "AsKd"], [CALL, CALL], "Kh7c2d", viewer=1)
    runs = []
    for _ in range(2):
        s = create("bayes", game, seed=5)
        s.observe(view)
        runs.append([s.act(view, 0.0) for _ in range(30)])
    assert runs[0] == runs[1]
    assert {a.type for a in runs[0]} <= {C, R}  # nothing to call: a fold is a check
