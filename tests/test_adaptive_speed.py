"""adaptive's search made fast without changing what it computes: the shortcuts agree with the plain sums.

Each shortcut of issue 14's latency and issue 17's LBR speed has its plain
form checked here (counting ranks against comparing every pair; all-ins
valued all ends at once against the showdown table; one flat gather
against the mean over the runouts a row is live on), and what is kept
between decisions is checked to be kept (the hand's runouts across a
policy's copy; the tables before the flop made at the start of a match),
or never handed to a decision it does not fit (a river round built with
another policy's raises).
"""

from __future__ import annotations

import numpy as np
import pytest
from playkit import started

from acpcbot.cards import parse_cards
from acpcbot.engine import ActionType, State, raise_to
from acpcbot.evaluator import NUM_PAIRS, pair_ranks
from acpcbot.gamedef import load_game
from acpcbot.strategies.adaptive import runouts as adaptive_runouts, search as adaptive_search
from acpcbot.strategies.adaptive import ALL_PAIRS, preflop_runouts
from acpcbot.strategies.adaptive.policy import ModelPolicy
from acpcbot.strategies.adaptive.ranges import preflop_bins
from acpcbot.strategies.adaptive.runouts import NUM_BINS, Runouts, _move, _Moves, runout_boards, strength_bins
from acpcbot.strategies.adaptive.search import SHOWDOWN, river_skeleton
from acpcbot.strategies.adaptive.stats import OpponentStats
from acpcbot.world import View

HUNL = load_game("hunl")


# ----------------------------------------------------------------- the sums, plain and fast

@pytest.mark.parametrize("board", ["AhKd8c", "AhKd8c4s", "AhKd8c4s2h", "7s7d7c", "5h6h7h8h"])
def test_strength_bins_are_the_share_of_live_pairs_each_beats(board):
    cards = tuple(parse_cards(board))
    ranks = pair_ranks(runout_boards(cards, 6, 3))  # (R, 1326) treys ranks, 0 where a pair is not live
    bins = strength_bins(ranks)
    for r in range(len(ranks)):
        live = ranks[r] > 0
        n = int(live.sum())
        theirs = ranks[r][live].astype(np.int64)
        for pair in np.flatnonzero(live)[::37]:  # every 37th live pair: the plain count is quadratic
            mine = int(ranks[r, pair])
            beaten = (theirs > mine).sum() + 0.5 * ((theirs == mine).sum() - 1)  # treys: higher is worse
            assert bins[r, pair] == min(int(beaten / (n - 1) * NUM_BINS), NUM_BINS - 1), (r, pair)
        assert (bins[r][~live] == 0).all()


def test_a_range_is_moved_onto_the_runouts_pair_by_pair():
    gen = np.random.default_rng(5)
    board = tuple(parse_cards("Qh8d3c"))
    runouts = Runouts(pair_ranks(runout_boards(board, 7, 11)))
    now = strength_bins(pair_ranks(board))[0]
    w0 = gen.random(NUM_PAIRS) * (gen.random(NUM_PAIRS) < 0.6)
    plain = np.zeros((NUM_BINS, len(runouts.ranks), NUM_BINS))
    for r in range(len(runouts.ranks)):
        for pair in np.flatnonzero(runouts.live[r]):
            plain[now[pair], r, runouts.bins[r, pair]] += w0[pair]
    assert np.allclose(_move(runouts, now, w0).reshape(plain.shape), plain, rtol=1e-12, atol=0)


def test_runout_means_are_over_the_runouts_a_row_is_live_on():
    gen = np.random.default_rng(6)
    board = tuple(parse_cards("Qh8d3c"))
    runouts = Runouts(pair_ranks(runout_boards(board, 9, 12)))
    now = strength_bins(pair_ranks(board))[0]
    values = gen.normal(size=(3, len(runouts.ranks), NUM_BINS))
    for ours, rows in ((ALL_PAIRS, range(0, NUM_PAIRS, 97)), (np.array([17, 400, 1200]), range(3))):
        got = _Moves(runouts, now, np.ones(NUM_PAIRS), ours).mean(values)
        for row in rows:
            on = np.flatnonzero(runouts.live[:, ours[row]])
            plain = values[:, on, runouts.bins[on, ours[row]]].mean(axis=1) if len(on) else np.zeros(3)
            assert np.allclose(got[:, row], plain, rtol=1e-12, atol=1e-12), row


def test_a_policys_all_ins_after_the_flop_are_each_rows_exact_showdowns():
    # a policy's rows value the all-ins all ends at once (Runouts.showdown_sums); a search of one row values them
    # by its exact signs on every runout (the decision act takes): the same values, row by row
    line = "MATCHSTATE:0:3:r300c/:AsKd|/2c7h9s"
    player = started("adaptive", HUNL)
    view = View.parse(line, HUNL)
    fast = player._search(view, player.sync(view), 1, ALL_PAIRS)
    actions, values = fast.action_values()
    assert fast.allin.deferred and fast._allins  # the all-ins were valued all at once
    for row in range(0, NUM_PAIRS, 97):
        one = player._search(view, player.sync(view), 1, np.array([row]))
        one_actions, one_values = one.action_values()
        assert not one.allin.deferred and one_actions == actions
        assert np.allclose(values[row], one_values[0], rtol=1e-9, atol=1e-6), row


# ----------------------------------------------------------------- what is kept, and what is never handed on

def test_a_policy_leaves_the_hands_runouts_to_act():
    player = started("adaptive", HUNL)
    view = View.parse("MATCHSTATE:0:3:r300c/:AsKd|/2c7h9s", HUNL)
    player.sync(view)
    player.policy(view)  # asked on a copy of the tracker: the runouts it drew are the hand's, act need not redraw
    assert 3 in player.hand.runouts
    kept = player.hand.runouts[3]
    player.act(view, 0.0)
    assert player.hand.runouts[3] is kept


def test_the_tables_before_the_flop_are_made_at_the_start_of_a_match(monkeypatch):
    adaptive_runouts._UNIFORM_SHOWDOWNS.clear()
    adaptive_runouts._UNIFORM_MOVES.clear()
    player = started("adaptive", HUNL)
    made = []
    real = adaptive_runouts._showdown_sums
    monkeypatch.setattr(adaptive_runouts, "_showdown_sums", lambda *a: made.append(1) or real(*a))
    player.act(View.parse("MATCHSTATE:1:1::|AsKd", HUNL), 0.0)  # the first decision of the match
    player.policy(View.parse("MATCHSTATE:0:2:r300:7c2d|", HUNL))
    assert made == []
    played, allin = preflop_runouts()
    assert adaptive_runouts._uniform_showdown(allin, preflop_bins()) is not None and made == []


class _Raiser:
    """A card-blind policy: calls, and raises ``opening`` chips when it opens, ``over`` over a bet."""

    def __init__(self, opening: int, over: int) -> None:
        self.opening, self.over = opening, over

    def probs(self, state, hist):
        return np.array([np.zeros(NUM_BINS), np.full(NUM_BINS, 0.5), np.full(NUM_BINS, 0.5)])

    def raise_to(self, state):
        lo, hi = state.raise_bounds()
        to = self.over if state.to_call() > 0 else self.opening
        return raise_to(min(max(to, lo), hi))


def _river(line: str) -> State:
    return View.parse(line, HUNL).state


def test_a_river_round_is_never_built_with_another_policys_raises():
    # both open the river with the same bet; over our pot-sized bet one min-raises, the other goes all-in.
    # Keyed by the first raise alone, the second was handed the first one's river round (and its stakes).
    state = _river("MATCHSTATE:1:9:r300c/cc/cc/:|AsKd/2c7h9s/Jd/4h")
    me, opp = 1, 0
    assert state.current_player == opp
    small = river_skeleton(state, me, opp, _Raiser(900, 1))  # the minimum over our bet
    big = river_skeleton(state, me, opp, _Raiser(900, 5000))
    stakes = lambda sk: {value for kind, value, _, _ in sk.nodes if kind == SHOWDOWN}  # noqa: E731
    assert 5000.0 in stakes(big) and 5000.0 not in stakes(small)


def test_a_river_round_is_handed_on_to_a_policy_that_raises_alike():
    state = _river("MATCHSTATE:1:9:r300c/cc/cc/:|AsKd/2c7h9s/Jd/4h")
    first = river_skeleton(state, 1, 0, _Raiser(900, 5000))
    assert river_skeleton(state, 1, 0, _Raiser(900, 5000)) is first  # another object, the same raises: kept
    assert river_skeleton(state, 1, 0, _Raiser(1200, 5000)) is not first  # another opening bet
    assert river_skeleton(state, 1, 0, _Raiser(900, 5000)) is first  # the first is still kept beside it
    grown = OpponentStats()
    bet = _river("MATCHSTATE:1:9:r300c/cc/cc/r600:|AsKd/2c7h9s/Jd/4h")
    for _ in range(5):  # a model that learnt big raises over bets after the flop
        grown.observe(bet, raise_to(20000))
    plain = river_skeleton(state, 1, 0, ModelPolicy(OpponentStats(), 0, HUNL))
    assert river_skeleton(state, 1, 0, ModelPolicy(OpponentStats(), 0, HUNL)) is plain
    assert river_skeleton(state, 1, 0, ModelPolicy(grown, 0, HUNL)) is not plain


def test_river_rounds_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(adaptive_search, "SKELETONS_KEPT", 8)
    monkeypatch.setattr(adaptive_search, "_SKELETONS", {})
    stats = OpponentStats()
    for k in range(20):
        state = _river(f"MATCHSTATE:1:9:r300c/cc/r{400 + 50 * k}c/:|AsKd/2c7h9s/Jd/4h")
        river_skeleton(state, 1, 0, ModelPolicy(stats, 0, HUNL))
        for over in range(2000, 2000 + 100 * adaptive_search.SKELETON_VARIANTS + 300, 100):
            river_skeleton(state, 1, 0, _Raiser(900 + 50 * k, over))
    assert len(adaptive_search._SKELETONS) == 8
    assert all(len(kept) <= adaptive_search.SKELETON_VARIANTS for kept in adaptive_search._SKELETONS.values())


def test_a_spot_keyed_policy_is_asked_once_per_spot_on_the_rivers(monkeypatch):
    asked = []
    real = ModelPolicy._prepare  # every question, asked one by one (probs) or many at once (probs_many)

    def counting(self, state, hist):
        if hist is None:
            asked.append(1)
        return real(self, state, hist)

    monkeypatch.setattr(ModelPolicy, "_prepare", counting)
    line = "MATCHSTATE:0:3:r300c/:AsKd|/2c7h9s"
    player = started("adaptive", HUNL)
    view = View.parse(line, HUNL)
    keyed = player._search(view, player.sync(view), 1, np.array([0])).action_values()[1]
    once = len(asked)
    monkeypatch.setattr(ModelPolicy, "spot_keyed", False)
    asked.clear()
    player = started("adaptive", HUNL)
    plain = player._search(view, player.sync(view), 1, np.array([0])).action_values()[1]
    assert np.array_equal(keyed, plain)
    assert 0 < once < len(asked) / 2, (once, len(asked))


def test_nobody_all_in_in_limit_so_no_all_in_runouts_are_ranked():
    game = load_game("hulhe")
    player = started("adaptive:blueprint=0", game)
    view = View.parse("MATCHSTATE:0:3:rc/:AsKd|/2c7h9s", game)
    player.act(view, 0.0)
    played, allin = player.hand.runouts[3]
    assert allin._ranks is None  # the many runouts an all-in would run out on: drawn, never ranked
    assert np.array_equal(allin.ranks[:len(played.ranks)], played.ranks)  # asked for: made, the first shared
    hunl = started("adaptive", HUNL)
    hunl.act(View.parse("MATCHSTATE:0:3:r300c/:AsKd|/2c7h9s", HUNL), 0.0)
    assert hunl.hand.runouts[3][1]._ranks is not None  # in no-limit we can always shove


# ----------------------------------------------------------------- the opponent model's shortcuts

def test_one_row_of_the_threshold_model_is_that_row_of_all_three():
    from acpcbot.strategies.adaptive.ranges import threshold_likelihood, threshold_likelihoods
    u = np.random.default_rng(8).random(NUM_PAIRS)
    for triple in ((0.3, 0.5, 0.2), (0.0, 0.6, 0.4), (0.4, 0.6, 0.0), (0.0, 1.0, 0.0)):
        for facing in (True, False):
            every = threshold_likelihoods(u, triple, facing)
            for kind in range(3):
                assert np.array_equal(threshold_likelihood(u, triple, facing, kind), every[kind]), (triple, kind)


def test_predictions_on_python_floats_are_numpys_to_the_bit():
    from acpcbot.strategies.adaptive.stats import FAMILY, FAMILY_PRIORS, PRIOR_TRIPLES, PRIOR_WEIGHTS, ActionStats, Spot

    def plain(stats, spot):  # the element-wise numpy form the floats replace
        family = FAMILY[spot.kind]
        mean = np.array(FAMILY_PRIORS[family], dtype=np.float64)
        for level, (key, weight) in enumerate(zip(stats._keys(spot), PRIOR_WEIGHTS)):
            if level == 1:
                shifted = np.maximum(mean + np.subtract(PRIOR_TRIPLES[spot.kind], FAMILY_PRIORS[family]), 0.01)
                if family == "free":
                    shifted[0] = 0.0
                mean = shifted / shifted.sum()
            row = stats.counts.get(key)
            if row is not None:
                mean = (row + weight * mean) / (row.sum() + weight)
        return mean

    gen = np.random.default_rng(9)
    stats = ActionStats()
    spots = [Spot(street, kind, bucket) for street in range(4) for kind in PRIOR_TRIPLES for bucket in range(5)]
    for step in range(400):
        spot = spots[int(gen.integers(len(spots)))]
        stats.add(spot, ActionType(int(gen.integers(3))), float(gen.choice([1.0, 0.3, 2.5])))
        if step % 40 == 0:
            for s in spots:
                assert np.array_equal(stats.predict(s), plain(stats, s)), s


def test_bets_under_an_overbet_share_the_models_answer():
    # the bet over the pot enters only beyond TYPICAL_OVERBET: spots differing below it share one entry, which is
    # what a fresh policy computes for each
    from acpcbot.strategies.adaptive.stats import spot_of
    stats = OpponentStats()
    small = _river("MATCHSTATE:1:9:r300c/cc/cc/r500:|AsKd/2c7h9s/Jd/4h")
    other = _river("MATCHSTATE:1:9:r300c/cc/cc/r520:|AsKd/2c7h9s/Jd/4h")
    assert spot_of(small, 1) == spot_of(other, 1) and small.bet_to_pot(1) != other.bet_to_pot(1)
    shared = ModelPolicy(stats, 1, HUNL)
    first = shared.probs(small, None)
    assert shared.probs(other, None) is first
    assert np.array_equal(ModelPolicy(stats, 1, HUNL).probs(other, None), first)


def test_a_search_leaves_the_states_it_is_given_as_they_were(monkeypatch):
    # the layout and the river rounds apply actions in place to the states they made themselves, never to the root
    view = View.parse("MATCHSTATE:0:3:r300c/:AsKd|/2c7h9s", HUNL)
    player = started("adaptive", HUNL)
    before = (list(view.state.spent), [list(a) for a in view.state.actions], view.state.current_player)
    player._search(view, player.sync(view), 1, np.array([0])).action_values()
    assert (list(view.state.spent), [list(a) for a in view.state.actions], view.state.current_player) == before
    state = _river("MATCHSTATE:1:9:r300c/cc/cc/:|AsKd/2c7h9s/Jd/4h")
    monkeypatch.setattr(adaptive_search, "_SKELETONS", {})  # built here, not handed on from another test
    river_skeleton(state, 1, 0, _Raiser(900, 5000))
    assert state.current_player == 0 and state.actions[state.round] == []
