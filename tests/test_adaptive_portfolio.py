"""adaptive's portfolio on the heads-up limit floor: the deviation is judged by its importance-sampled results.

Golden: a hand worked by hand (the ratios of our own actions only, the
payoff the dealer's); seeded properties: the estimate of the deviation's
gain is unbiased on a toy tree whose values are known exactly, the weight
follows the evidence, and a fresh copy fed the match as AIVAT feeds it
(``policy``, never ``act``) keeps the very same record as the player.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from playkit import Shadowed, play_memory

from acpcbot.engine import CALL, FOLD, RAISE
from acpcbot.gamedef import load_game
from acpcbot.strategies.adaptive.portfolio import (
    GIFTED_P_MIN,
    GIFTED_Z_BAR,
    GIFTED_Z_SPREAD,
    P_MAX,
    P_MIN,
    SUPPORT,
    Z_BAR,
    Z_GIFTS,
    Z_SPREAD,
    GainRecord,
    Portfolio,
    conditional,
    deviation_rows,
    gain_estimate,
    support_for,
)
from acpcbot.strategies.adaptive.stats import OpponentStats
from acpcbot.strategies.persist import ModelFileError
from acpcbot.strategies.registry import create
from acpcbot.world import View

HULHE = load_game("hulhe")
ACTIONS = [FOLD, CALL, RAISE]


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


# ------------------------------------------------------------------ a hand worked by hand

# we (position 1, the small blind) raise, are called, and check it down; AsKs makes the wheel: we lose 20 chips
DECISIONS = ["MATCHSTATE:1:5::|9h8h", "MATCHSTATE:1:5:rc/c:|9h8h/2c3d4s", "MATCHSTATE:1:5:rc/cc/c:|9h8h/2c3d4s/5h",
             "MATCHSTATE:1:5:rc/cc/cc/c:|9h8h/2c3d4s/5h/Td"]
FINAL = "MATCHSTATE:1:5:rc/cc/cc/cc:AsKs|9h8h/2c3d4s/5h/Td"
#: per decision, (floor, deviation) over fold, call, raise: before the flop the floor raises 0.6, the deviation
#: always; on the flop the floor checks or bets half and half, the deviation checks; later they agree
ROWS = [([0.0, 0.4, 0.6], [0.0, 0.0, 1.0]), ([0.0, 0.5, 0.5], [0.0, 1.0, 0.0]),
        ([0.0, 0.5, 0.5], [0.0, 0.5, 0.5]), ([0.0, 0.3, 0.7], [0.0, 0.3, 0.7])]


def _keep_rows(portfolio: Portfolio, count: int = 4) -> list[np.ndarray]:
    """Our rows at the first ``count`` decisions, as act asks them (our holding's row alone); the rows played."""
    played = []
    for line, (floor, deviation) in zip(DECISIONS[:count], ROWS):
        view = View.parse(line, HULHE)
        played.append(portfolio.mix("them", view, ACTIONS, np.array([floor]), np.array([deviation]), 0)[0])
    return played


def test_a_hand_worked_by_hand():
    portfolio = Portfolio()
    p = portfolio.weight("them")
    assert p == pytest.approx(P_MIN + (P_MAX - P_MIN) * _phi(-Z_BAR / Z_SPREAD))  # no record yet: t = 0
    played = _keep_rows(portfolio)
    # the first decision: the prior mixture
    assert played[0] == pytest.approx([0.0, 0.4 * (1 - p), 0.6 * (1 - p) + p])
    # on the flop, after our raise: the deviation had it with chance 1, the floor 0.6; posterior weight of the
    # deviation p / (0.6 (1 - p) + p)
    q = p / (0.6 * (1 - p) + p)
    assert played[1] == pytest.approx([0.0, (1 - q) * 0.5 + q, (1 - q) * 0.5])
    # where the members agree: the floor's row, exactly
    assert np.array_equal(played[2], ROWS[2][0]) and np.array_equal(played[3], ROWS[3][0])
    final = View.parse(FINAL, HULHE)
    assert final.result == -20.0  # two big blinds of 10
    gain = portfolio.end_hand("them", final, -2.0)
    # no values kept: plain importance sampling.  Our raise then check: the floor played them with 0.6 x 0.5
    # (x 0.5 x 0.3 later, both), the deviation with 1 x 1 (x the same): gain = -2 (1 - 0.3) / ((1 - p) 0.3 + p)
    assert gain == pytest.approx(-2.0 * 0.7 / (0.3 * (1 - p) + p))
    record = portfolio.records["them"]
    assert record.hands == 1.0 and record.total == pytest.approx(gain)


def test_every_holdings_rows_follow_each_holdings_posterior():
    # policy's rows (every holding at once): holding 0 as above; holding 1 the floor never raises with it
    portfolio = Portfolio()
    p = portfolio.weight("them")
    first = View.parse(DECISIONS[0], HULHE)
    floor = np.array([[0.0, 0.4, 0.6], [0.0, 1.0, 0.0]])
    deviation = np.array([[0.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    portfolio.mix("them", first, ACTIONS, floor, deviation, None)
    flop = View.parse(DECISIONS[1], HULHE)
    rows = portfolio.mix("them", flop, ACTIONS, np.array([[0.0, 0.5, 0.5]] * 2), np.array([[0.0, 1.0, 0.0]] * 2), None)
    q = p / (0.6 * (1 - p) + p)
    assert rows[0] == pytest.approx([0.0, (1 - q) * 0.5 + q, (1 - q) * 0.5])
    assert rows[1] == pytest.approx([0.0, 1.0, 0.0])  # only the deviation raises it: it is the deviation's hand


def test_a_hand_with_a_decision_not_kept_is_not_counted():
    # the river's rows are missing (a quick answer under time pressure plays no draw from the mixture)
    portfolio = Portfolio()
    _keep_rows(portfolio, 3)
    assert portfolio.end_hand("them", View.parse(FINAL, HULHE), -2.0) is None
    assert "them" not in portfolio.records
    # and the rows kept are dropped with the hand: the next hand starts clean
    _keep_rows(portfolio)
    assert portfolio.end_hand("them", View.parse(FINAL, HULHE), -2.0) is not None


def test_conditional_rows():
    floor = np.array([[0.0, 0.4, 0.6], [1.0, 0.0, 0.0], [0.0, 0.5, 0.5]])
    deviation = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    rows = conditional(0.2, np.array([1.0, 0.3, 0.0]), np.array([0.0, 0.9, 0.0]), floor, deviation)
    assert np.array_equal(rows[0], floor[0])  # only the floor could have come here
    assert rows[1].tolist() == [1.0, 0.0, 0.0]  # the members agree: exactly one-hot (act plays it without a draw)
    assert rows[2] == pytest.approx(0.8 * floor[2] + 0.2 * deviation[2])  # neither: the prior mixture
    assert np.allclose(rows.sum(axis=1), 1.0)


# ------------------------------------------------------------------ unbiased on a toy tree

# two of our decisions with chance between: decision 1 picks a or b, chance deals x or y (0.3 / 0.7), then
# decision 2 picks c or d; payoffs fixed per leaf.  The floor mixes, the deviation is one-hot where it departs.
PAYOFF = {("a", "x", "c"): 3.0, ("a", "x", "d"): -1.0, ("a", "y", "c"): -2.0, ("a", "y", "d"): 4.0,
          ("b", "x", "c"): 1.0, ("b", "x", "d"): 0.5, ("b", "y", "c"): -6.0, ("b", "y", "d"): 2.0}
FLOOR1, DEV1 = np.array([[0.7, 0.3]]), np.array([[0.0, 1.0]])
FLOOR2 = {"x": np.array([[0.5, 0.5]]), "y": np.array([[0.2, 0.8]])}
DEV2 = {"x": np.array([[1.0, 0.0]]), "y": np.array([[0.2, 0.8]])}  # agrees after y
CHANCE = {"x": 0.3, "y": 0.7}
#: the deviation's own values of each action (what a perfect model would give), and a model off by a lot
GOOD1 = np.array([0.3 * 3.0 + 0.7 * (0.2 * -2.0 + 0.8 * 4.0), 0.3 * 1.0 + 0.7 * (0.2 * -6.0 + 0.8 * 2.0)])
GOOD2 = {"x": {"a": np.array([3.0, -1.0]), "b": np.array([1.0, 0.5])},
         "y": {"a": np.array([-2.0, 4.0]), "b": np.array([-6.0, 2.0])}}


def _value(first: np.ndarray, second: dict) -> float:
    return sum(first[0, i] * CHANCE[c] * second[c][0, j] * PAYOFF[(a, c, b)]
               for i, a in enumerate("ab") for c in CHANCE for j, b in enumerate("cd"))


def _play_toy(p: float, hands: int, model: str, seed: int = 7) -> tuple[np.ndarray, dict]:
    """Hands played as act plays them (each decision from the conditional rows, no member drawn); each hand's
    gain estimate with the model's values as controls (``model``: none, good, or bad), and the leaves' counts.

    The hands are drawn together (``conditional`` takes one row per hand), the estimate asked hand by hand."""
    rng = np.random.default_rng(seed)
    one = np.ones(hands)
    first = conditional(p, one, one, np.repeat(FLOOR1, hands, 0), np.repeat(DEV1, hands, 0))
    i = (rng.random(hands) >= first[:, 0]).astype(int)
    deal = np.where(rng.random(hands) < CHANCE["x"], "x", "y")
    floor2 = np.where((deal == "x")[:, None], FLOOR2["x"], FLOOR2["y"])
    dev2 = np.where((deal == "x")[:, None], DEV2["x"], DEV2["y"])
    second = conditional(p, FLOOR1[0, i], DEV1[0, i], floor2, dev2)
    j = (rng.random(hands) >= second[:, 0]).astype(int)
    gains, leaves = [], {}
    for h in range(hands):
        a, c, b = "ab"[i[h]], str(deal[h]), "cd"[j[h]]
        leaves[(a, c, b)] = leaves.get((a, c, b), 0) + 1
        v1 = {"none": None, "good": GOOD1, "bad": np.array([40.0, -25.0])}[model]
        v2 = {"none": None, "good": GOOD2[c][a], "bad": np.array([-9.0, 17.0])}[model]
        steps = [(FLOOR1[0], DEV1[0], v1, int(i[h])), (FLOOR2[c][0], DEV2[c][0], v2, int(j[h]))]
        gains.append(gain_estimate(PAYOFF[(a, c, b)], steps, p))
    return np.array(gains), leaves


@pytest.mark.parametrize("model", ["none", "good", "bad"])
def test_the_gain_estimate_is_unbiased_on_a_toy_tree(model):
    # however small p (here 0.1: ratios up to 10) and however wrong the model's values, the estimates' mean is the
    # exact difference of the members' values, and the hands are the p-mixture of the members' whole hands
    p, hands = 0.1, 40_000
    exact = _value(DEV1, DEV2) - _value(FLOOR1, FLOOR2)
    gains, leaves = _play_toy(p, hands, model)
    for leaf, n in leaves.items():
        i, j = "ab".index(leaf[0]), "cd".index(leaf[2])
        q = CHANCE[leaf[1]] * ((1 - p) * FLOOR1[0, i] * FLOOR2[leaf[1]][0, j] + p * DEV1[0, i] * DEV2[leaf[1]][0, j])
        assert abs(n / hands - q) < 4 * math.sqrt(q * (1 - q) / hands), leaf
    se = gains.std() / math.sqrt(len(gains))
    assert abs(gains.mean() - exact) < 4 * se, (gains.mean(), exact, se)
    assert abs(exact) > 8 * se  # and the test can tell a wrong estimate from a right one


def test_good_values_take_noise_out():
    # the deviation's exact values as controls: the estimate's spread falls well below plain importance sampling
    plain, _ = _play_toy(0.1, 20_000, "none", seed=3)
    good, _ = _play_toy(0.1, 20_000, "good", seed=3)
    assert good.std() < 0.7 * plain.std(), (good.std(), plain.std())


# ------------------------------------------------------------------ the weight follows the evidence

@pytest.mark.parametrize("mean,low,high", [(0.5, P_MAX - 0.01, P_MAX), (-0.5, P_MIN, P_MIN + 0.01)])
def test_the_weight_follows_the_measured_gain(mean, low, high):
    # 3,000 hands of gains with spread 5 big blinds: a mean of +0.5 is some 7 standard errors: the deviation's
    # weight; -0.5 the floor's
    rng = np.random.default_rng(3)
    record = GainRecord()
    for g in rng.normal(mean, 5.0, 3000):
        record.add(float(g))
    assert low <= record.weight() <= high, record.weight()


def test_no_gain_keeps_the_weight_near_its_least():
    # the bar is Z_BAR standard errors above 0: with no gain t is about standard normal, so the weight's median
    # over matches is its value at t = 0, P_MIN plus under 1%, and it passes half the way up only when t passes
    # Z_BAR: a run of luck (t of 1 to 1.5, common over a match with no gain) must not lean on the deviation
    weights = []
    for seed in range(9):
        rng = np.random.default_rng(seed)
        record = GainRecord()
        for g in rng.normal(0.0, 5.0, 3000):
            record.add(float(g))
        weights.append(record.weight())
    assert float(np.median(weights)) < P_MIN + 0.02, weights
    assert max(weights) < (P_MIN + P_MAX) / 2, weights
    record = GainRecord(hands=1000.0, total=1000.0 * 0.2, squares=1000.0 * (25.0 + 0.04))  # t = 1.26
    assert record.weight() < 0.15  # 0.40 with the bar at 1.5 and P_MIN 0.05


def test_the_weight_without_evidence_keeps_adaptive_near_the_floor_under_lbr():
    # adaptive's exploitability is at most (1 - p) x the floor's + p x the deviation's (LBR is a best response:
    # convex in the mixture).  hunl, LBR full, 6,000 deals a seating (docs/results/hunl-commit-lbr.json): the floor
    # +469, adaptive at p = 0.107 +1,680, so the deviation's is at least (1,680 - 0.893 x 469) / 0.107 = 11,786;
    # the bar (adaptive <= 1.5 x the floor) then needs p <= 0.5 x 469 / (11,786 - 469) = 0.0207
    assert GainRecord().weight() <= 0.0207
    assert P_MIN <= 0.0207


def test_a_run_of_luck_barely_moves_the_weight():
    # LBR against adaptive on the hunl floor (2,000 hands traced, 2026-11-30): the deviation lost about 7 big
    # blinds a hand, yet with gains this noisy t reached 1.6 within 200 hands, where a ramp one standard error wide
    # weighed the deviation 0.17; the ramp is Z_SPREAD wide: at t = 1.6 under 0.05, half way at Z_BAR, near P_MAX a
    # standard error above it
    def at(t: float) -> float:
        record = GainRecord(hands=1000.0, total=1000.0 * t * 0.1, squares=1000.0 * (10.0 + (t * 0.1) ** 2))
        assert record.t_statistic() == pytest.approx(t)
        return record.weight()
    assert at(1.6) < 0.05
    assert at(Z_BAR) == pytest.approx((P_MIN + P_MAX) / 2)
    assert at(Z_BAR + 1.0) > P_MAX - 0.03


def test_few_hands_say_nothing():
    record = GainRecord()
    for _ in range(50):
        record.add(10.0)  # however large, 50 hands of one value: no spread to judge by
    assert record.t_statistic() == 0.0
    assert record.weight() == pytest.approx(P_MIN + (P_MAX - P_MIN) * _phi(-Z_BAR / Z_SPREAD))
    assert record.weight() < P_MIN + 0.01


def test_the_deviation_is_the_floor_while_cold_and_below_the_bar():
    floor = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])
    values = np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 40.0]])  # row 1: the raise gains 2 chips a weight over the floor
    assert deviation_rows(values, floor, 10.0, 49, 10.0) is floor  # cold
    rows = deviation_rows(values, floor, 10.0, 50, 10.0)  # bar 3 chips; gains 0 and (40 - 20) / 10 = 2: below it
    assert np.array_equal(rows, floor)
    rows = deviation_rows(values, floor, 10.0, 50 * 9, 10.0)  # bar 1 chip: row 1 deviates to its best
    assert np.array_equal(rows, np.array([[0.0, 0.5, 0.5], [0.0, 0.0, 1.0]]))


def test_the_deviation_keeps_to_the_floors_support():
    # over fold, call, a small raise, a big raise.  Row 0: the model's best is the big raise, which the floor plays
    # 3 times in 100: below SUPPORT, so the deviation takes the best of the floor's own actions, the small raise
    # (60 against the floor's 0.4 x 60 + 0.03 x 500 = 39: 2.1 chips a weight, past the bar of 1); row 1: the big
    # raise is in the floor's support (0.5): the deviation takes it
    floor = np.array([[0.0, 0.57, 0.4, 0.03], [0.2, 0.3, 0.0, 0.5]])
    values = np.array([[0.0, 0.0, 60.0, 500.0], [0.0, 0.0, 0.0, 40.0]])
    rows = deviation_rows(values, floor, 10.0, 50 * 9, 10.0)
    assert np.array_equal(rows, np.array([[0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]))
    # support 0: any action (the deviation before the restriction)
    rows = deviation_rows(values, floor, 10.0, 50 * 9, 10.0, support=0.0)
    assert np.array_equal(rows, np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]]))


def test_the_support_bounds_the_importance_ratio():
    # wherever the deviation plays an action the floor plays it at least SUPPORT of the time, so each decision's
    # ratio of the deviation's chance to the mixture's is at most 1 / SUPPORT whatever the weight p: the hand's
    # estimate cannot blow up as p falls (without it a one-hot off the floor's support weighs 1 / p)
    rng = np.random.default_rng(5)
    floor = rng.dirichlet(np.full(4, 0.3), size=500)
    values = rng.normal(0.0, 30.0, size=(500, 4))
    rows = deviation_rows(values, floor, 1.0, 10_000, 10.0)
    moved = ~np.all(rows == floor, axis=1)
    assert moved.sum() > 100
    assert np.all(floor[moved][rows[moved] > 0] >= SUPPORT)
    for p in (0.001, 0.01, 0.5):
        ratio = rows / ((1 - p) * floor + p * rows + 1e-300)
        assert ratio[rows > 0].max() <= 1.0 / SUPPORT + 1e-9


def test_the_support_is_no_limits():
    # no-limit: an action off the floor's support can be an all-in; limit: a bet, and the restriction there took
    # most of the deviation's gain against uc3m
    hunl = load_game("hunl")
    assert support_for(hunl) == SUPPORT > 0 and support_for(HULHE) == 0.0
    assert create("adaptive:resolve=0", HULHE, 1).support_share == 0.0
    assert create("adaptive:resolve=0,support=0.2", HULHE, 1).support_share == 0.2


def test_bad_support_is_refused_naming_it():
    with pytest.raises(ValueError, match="support"):
        create("adaptive:support=1.5", HULHE, 1)
    with pytest.raises(ValueError, match="support"):
        create("adaptive:support=-0.1", HULHE, 1)
    with pytest.raises(ValueError, match="support"):
        create("adaptive:support=many", HULHE, 1)


# ------------------------------------------------------------------ risking what an opponent gives away

def _results(mean: float, t: float) -> GainRecord:
    """A record of our results with mean ``mean`` over 1,000 hands whose t-statistic is ``t`` (same sign)."""
    spread = mean * math.sqrt(1000.0) / t
    record = GainRecord(hands=1000.0, total=1000.0 * mean, squares=1000.0 * (spread ** 2 + mean ** 2))
    assert record.t_statistic() == pytest.approx(t)
    return record


def test_an_opponent_gives_chips_away_only_past_the_bar():
    portfolio = Portfolio()
    assert not portfolio.gifted("them")  # nothing known
    portfolio.results["them"] = _results(2.0, Z_GIFTS - 0.1)
    assert not portfolio.gifted("them") and portfolio.support("them", SUPPORT) == SUPPORT
    portfolio.results["them"] = _results(2.0, Z_GIFTS)
    assert portfolio.gifted("them") and portfolio.support("them", SUPPORT) == 0.0
    assert not portfolio.gifted("another")  # per opponent
    portfolio.results["them"] = _results(-2.0, -3.0)  # we lose to it: never
    assert not portfolio.gifted("them")
    cautious = Portfolio(gifts=False)  # adaptive:gifts=0
    cautious.results["them"] = _results(2.0, 5.0)
    assert not cautious.gifted("them") and cautious.support("them", SUPPORT) == SUPPORT


def test_while_gifted_the_free_deviation_has_its_own_record_and_ramp():
    portfolio = Portfolio()
    portfolio.records["them"] = GainRecord(hands=1000.0, total=1000.0, squares=1000.0 * 2.0)  # cautious t = 31.6
    portfolio.results["them"] = _results(2.0, 3.0)
    # a free deviation not measured yet: its ramp's value at t = 0, not the cautious record's P_MAX
    assert portfolio.weight("them") == pytest.approx(
        GIFTED_P_MIN + (P_MAX - GIFTED_P_MIN) * _phi(-GIFTED_Z_BAR / GIFTED_Z_SPREAD))
    assert 0.1 < portfolio.weight("them") < 0.11  # 0.05 + 0.85 Phi(-1.5): adaptive's weight before its retune
    portfolio.gifted_records["them"] = GainRecord(hands=1000.0, total=-1000.0, squares=1000.0 * 2.0)
    assert portfolio.weight("them") == pytest.approx(GIFTED_P_MIN, abs=1e-9)  # it loses: its least weight


def test_a_hand_counts_where_it_was_played_and_our_result_always():
    # gifted as the hand starts: its gain goes to the free deviation's record, with the weight it was played at,
    # even though the hand's loss (t falls below the bar) closes the mode for the next hand
    portfolio = Portfolio()
    portfolio.results["them"] = _results(0.2, Z_GIFTS + 1e-6)
    p = portfolio.weight("them")
    _keep_rows(portfolio)
    gain = portfolio.end_hand("them", View.parse(FINAL, HULHE), -2.0)
    assert gain == pytest.approx(-2.0 * 0.7 / (0.3 * (1 - p) + p))
    assert portfolio.gifted_records["them"].total == pytest.approx(gain) and "them" not in portfolio.records
    assert portfolio.results["them"].hands == pytest.approx(1000.0 * 0.5 ** (1 / 3000) + 1.0)
    assert not portfolio.gifted("them")
    # a hand without rows kept (a quick answer) is no sample of the members, but our result is our result
    _keep_rows(portfolio, 3)
    before = portfolio.results["them"].hands
    assert portfolio.end_hand("them", View.parse(FINAL, HULHE), -2.0) is None
    assert portfolio.results["them"].hands == pytest.approx(before * 0.5 ** (1 / 3000) + 1.0)


#: adaptive's result per hand (chips) as measured against LBR full and against uc3m in hunl (counts; see "about")
RESULTS_PER_HAND = json.loads((Path(__file__).parent / "fixtures" / "hunl_results_per_hand.json").read_text())


def _share_gifted(against: str, hands: int, seed: int) -> float:
    """The share of ``hands`` hands a fresh portfolio plays gifted with results drawn from those measured against
    ``against`` (with replacement)."""
    values, counts = np.array(RESULTS_PER_HAND[against], dtype=float).T
    rng = np.random.default_rng(seed)
    portfolio, gifted = Portfolio(), 0
    record = portfolio.results.setdefault("them", GainRecord())
    for r in rng.choice(values / 100.0, size=hands, p=counts / counts.sum()):
        gifted += portfolio.gifted("them")
        record.add(float(r))
    return gifted / hands


def test_lbr_pays_before_it_opens_the_mode_and_a_weak_player_opens_it():
    # the results adaptive's matches really had (hunl, 2026-11-30): against LBR full (24,000 hands; LBR won 0.81 big
    # blinds a hand, spread 40, heavy-tailed: one big pot can lift t for a while) and against uc3m (4,000 hands,
    # +2.8 a hand, spread 39).  Over matches of 1,000 hands against LBR the free deviation plays a tiny share of the
    # hands (0.1% in these draws; 1.2% at a bar of 1.5, which 4 of 24 real LBR matches passed), against
    # uc3m about half of each 2,000-hand match
    lbr = [_share_gifted("lbr", 1000, seed) for seed in range(60)]
    assert float(np.mean(lbr)) < 0.005, lbr
    uc3m = [_share_gifted("uc3m", 2000, seed) for seed in range(20)]
    assert float(np.median(uc3m)) > 0.4, uc3m


def test_bad_gifts_is_refused_naming_it():
    with pytest.raises(ValueError, match="gifts"):
        create("adaptive:gifts=maybe", HULHE, 1)
    assert create("adaptive:resolve=0,gifts=0", HULHE, 1).portfolio.gifts is False


# ------------------------------------------------------------------ in adaptive: act, policy, and AIVAT's copy

def test_a_copy_fed_only_policies_keeps_the_players_record():
    from acpcbot.strategies.adaptive import COLD_HANDS
    hands = COLD_HANDS + 40
    # the table floor: the record's arithmetic is the same on the re-solved one, at a second of CPU a river hand
    seat = Shadowed(HULHE, "adaptive:resolve=0", 21)  # a fresh copy fed the match as AIVAT's replay feeds it
    result = play_memory("hulhe", ["adaptive", "maniac"], hands, 3, names=["me", "them"], time_per_hand=1e6,
                         strategies=[seat, create("maniac", HULHE, 22)])
    assert all(c.fallbacks == 0 for c in result.clients)
    target, copy = seat.target.portfolio.records, seat.copy.portfolio.records
    assert set(target) == {"them"}
    assert target["them"].hands == pytest.approx(sum(0.5 ** (i / 3000) for i in range(hands)))  # every hand
    assert target["them"].total != 0.0  # past the cold hands the deviation departed and was measured
    # the same record, to the last bits the model's values differ by between act's search (our holding's row) and
    # policy's (every holding's): they are the estimate's controls
    assert copy["them"].hands == target["them"].hands
    assert copy["them"].total == pytest.approx(target["them"].total, rel=1e-9, abs=1e-9)
    assert copy["them"].squares == pytest.approx(target["them"].squares, rel=1e-9)


# ------------------------------------------------------------------ cold, the floor is the blueprint's own play

@pytest.mark.parametrize("line", [
    "MATCHSTATE:1:1:rc/rc/rc/rrr:|AhAd/2c3d4s/5h/Td",  # three raises on the river: the blueprint may cap it
    "MATCHSTATE:0:1:rc/rrr:KhKd|/Ks8d2c",              # and on the flop
    "MATCHSTATE:1:1:rc/c:|9h8h/2c3d4s",                # an ordinary spot
])
def test_a_cold_floor_is_the_blueprints_own_policy(line):
    # every holding's row, over every action the blueprint plays: before, past the search's three raises in a
    # round adaptive left the raise out and renormalised the blueprint's row over fold and call
    from playkit import started
    view = View.parse(line, HULHE)
    ours = started("adaptive:resolve=0", HULHE).policy(view)
    # the shipped table adaptive stands on with resolve=0 (re-solved on the river by default: test_adaptive_floor)
    theirs = started("blueprint:resolve=0", HULHE).policy(view)
    assert ours.actions == theirs.actions
    live = np.asarray(theirs.probs).sum(axis=1) > 0
    assert np.allclose(np.asarray(ours.probs)[live], np.asarray(theirs.probs)[live])


# ------------------------------------------------------------------ kept across matches (model=FILE)

def test_the_records_round_trip_through_json():
    portfolio = Portfolio()
    portfolio.records["them"] = GainRecord(hands=120.5, total=3.25, squares=40.0)
    portfolio.results["them"] = _results(2.0, Z_GIFTS + 0.5)
    saved = json.loads(json.dumps(portfolio.to_json("them")))
    assert saved == {"cautious": [120.5, 3.25, 40.0], "results": [1000.0, 2000.0, pytest.approx(
        1000.0 * ((2.0 * math.sqrt(1000.0) / (Z_GIFTS + 0.5)) ** 2 + 4.0))]}  # the gifted record: none yet
    again = Portfolio()
    again.load("them", saved)
    assert again.records["them"] == portfolio.records["them"] and "them" not in again.gifted_records
    assert again.gifted("them") and again.weight("them") == portfolio.weight("them")
    assert Portfolio().to_json("nobody") == {}


@pytest.mark.parametrize("data, field", [
    ([1, 2, 3], "portfolio"),
    ({"cautious": [1, 2]}, "cautious"),
    ({"cautious": "123"}, "cautious"),  # three characters are not three numbers
    ({"gifted": [1, True, 1]}, "gifted"),
    ({"gifted": [-1, 0, 0]}, "gifted"),
    ({"results": [10, 1, -1]}, "results"),
    ({"results": [10, "x", 1]}, "results"),
    ({"results": [10, float("nan"), 1]}, "results"),
    ({"luck": [1, 1, 1]}, "luck"),
])
def test_a_malformed_saved_record_is_refused_naming_it(data, field):
    with pytest.raises(ValueError, match=field):
        Portfolio().load("them", data)


def test_adaptive_keeps_its_records_in_the_model_file(tmp_path):
    path = tmp_path / "adaptive.json"
    player = create(f"adaptive:resolve=0,model={path}", HULHE, 1)
    player.portfolio.results["p2"] = _results(2.0, Z_GIFTS + 0.5)
    player.portfolio.gifted_records["p2"] = GainRecord(hands=300.0, total=90.0, squares=900.0)
    player.stats["p2"] = OpponentStats()
    player.saver.changed("p2")
    player.end_match()
    entry = json.loads(path.read_text())["entries"]["p2"]
    assert entry["portfolio"]["gifted"] == [300.0, 90.0, 900.0]
    again = create(f"adaptive:resolve=0,model={path}", HULHE, 1)
    assert again.portfolio.gifted("p2") and again.portfolio.gifted_records["p2"].total == 90.0
    # a file written before the records were kept has none: the player starts cautious
    del entry["portfolio"]
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "adaptive", "version": 3, "entries": {"p2": entry}}))
    assert create(f"adaptive:resolve=0,model={path}", HULHE, 1).portfolio.results == {}
    entry["portfolio"] = {"results": [1, 2]}
    path.write_text(json.dumps({"format": "acpcbot-model", "kind": "adaptive", "version": 3, "entries": {"p2": entry}}))
    with pytest.raises(ModelFileError, match=r"adaptive\.json.*'p2'.*results"):
        create(f"adaptive:resolve=0,model={path}", HULHE, 1)
