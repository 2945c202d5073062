"""Equity, hand strength and potential: exact enumeration against brute force, Monte Carlo within 3 SE."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from treys import Evaluator

from acpcbot import evaluator as ev
from acpcbot.cards import TREYS_INT, parse_cards
from acpcbot.evaluator import odds

TREYS = Evaluator()


def treys_rank(cards) -> int:
    t = [TREYS_INT[c] for c in cards]
    return TREYS.evaluate(t[:2], t[2:])


# Brute-forced over all 1,712,304 boards with treys alone by
# tools/exact_matchups.py: (boards, hero wins, ties).
GOLDEN_MATCHUPS = {
    ("AsAh", "KdKc"): (1712304, 1388072, 6538),   # AA vs KK, no shared suit
    ("AsAh", "KsKh"): (1712304, 1410336, 9308),   # AA vs KK, same suits
    ("AhKh", "QsQc"): (1712304, 787966, 6732),    # AKs vs QQ
    ("AsKs", "QsQh"): (1712304, 781594, 8111),    # AKs vs QQ sharing the suit
}


@pytest.mark.parametrize("hero, villain", list(GOLDEN_MATCHUPS))
def test_preflop_matchups_exact(hero, villain):
    boards, wins, ties = GOLDEN_MATCHUPS[(hero, villain)]
    e = ev.equity(hero, "", ranges=ev.range_of_pairs([parse_cards(villain)]))
    assert e.exact and e.samples == boards and e.stderr == 0.0
    assert round(e.win * boards) == wins and round(e.tie * boards) == ties
    assert e.equity == pytest.approx((wins + ties / 2) / boards, abs=1e-12)
    assert e.win + e.tie + e.loss == pytest.approx(1.0)
    # The villain's side of the same deal.
    other = ev.equity(villain, "", ranges=ev.range_of_pairs([parse_cards(hero)]))
    assert round(other.loss * boards) == wins and other.equity == pytest.approx(1 - e.equity)


def test_monte_carlo_within_three_standard_errors_of_exact():
    for (hero, villain), (boards, wins, ties) in GOLDEN_MATCHUPS.items():
        exact = (wins + ties / 2) / boards
        mc = ev.equity(hero, "", ranges=ev.range_of_pairs([parse_cards(villain)]),
                       samples=20_000, exact=False, rng=5)
        assert not mc.exact and mc.samples == 20_000 and 0 < mc.stderr < 0.01
        assert abs(mc.equity - exact) < 3 * mc.stderr


def test_against_a_random_hand_matches_the_exact_preflop_table():
    from acpcbot.preflop import preflop_equity
    for seed, (hole, cls) in enumerate([("AsAh", "AA"), ("7c2d", "72o"), ("AhKh", "AKs"), ("5d5c", "55")]):
        e = ev.equity(hole, "", samples=40_000, rng=seed)
        assert not e.exact
        assert abs(e.equity - preflop_equity(cls)) < 3 * e.stderr


def _by_runout(cards: tuple[int, ...]):
    """treys' rank of ``cards`` and a runout, each runout's looked up once: our hand does not depend on the
    opponent's pair, so the loops below would rank it again for every pair (the same ranks, half the calls)."""
    return functools.lru_cache(maxsize=None)(lambda run: treys_rank(cards + run))


def brute_headsup(hole: str, board: str, pairs=None) -> tuple[float, float, float]:
    """(win, tie, total) by plain loops with treys: every opponent pair, every runout."""
    h, b = parse_cards(hole), parse_cards(board)
    rest = [c for c in range(52) if c not in h + b]
    pairs = list(itertools.combinations(rest, 2)) if pairs is None else pairs
    ours = _by_runout(h + b)
    win = tie = total = 0
    for p in pairs:
        deck = [c for c in rest if c not in p]
        for run in itertools.combinations(deck, 5 - len(b)):
            hr, orank = ours(run), treys_rank(p + b + run)
            win += hr < orank
            tie += hr == orank
            total += 1
    return win, tie, total


@pytest.mark.parametrize("hole, board", [("AsAh", "2c7d9h3s4s"), ("8s9s", "Ts7d2sKh"), ("2c2d", "AsKsQs7h")])
def test_exact_river_and_turn_against_a_full_range_equal_brute_force(hole, board):
    win, tie, total = brute_headsup(hole, board)
    e = ev.equity(hole, board)
    assert e.exact and e.samples == total
    assert e.win == pytest.approx(win / total, abs=1e-12) and e.tie == pytest.approx(tie / total, abs=1e-12)


def test_exact_flop_against_a_small_range_equals_brute_force():
    pairs = [parse_cards(p) for p in ("KsKh", "Ts9s", "7c7h", "AdQd")]
    win, tie, total = brute_headsup("AsJc", "Js7d2s", pairs)
    e = ev.equity("AsJc", "Js7d2s", ranges=ev.range_of_pairs(pairs))
    assert e.exact and e.samples == total
    assert e.win == pytest.approx(win / total, abs=1e-12) and e.tie == pytest.approx(tie / total, abs=1e-12)


def test_range_weights_mix_linearly_and_scale_freely():
    a, b = parse_cards("KsKh"), parse_cards("Ts9s")
    ea = ev.equity("AsJc", "Js7d2s", ranges=ev.range_of_pairs([a]))
    eb = ev.equity("AsJc", "Js7d2s", ranges=ev.range_of_pairs([b]))
    r = np.zeros(ev.NUM_PAIRS)
    r[ev.pair_index(*a)], r[ev.pair_index(*b)] = 2.0, 1.0
    mix = ev.equity("AsJc", "Js7d2s", ranges=r)
    assert mix.equity == pytest.approx((2 * ea.equity + eb.equity) / 3, abs=1e-12)
    assert ev.equity("AsJc", "Js7d2s", ranges=7.5 * r).equity == pytest.approx(mix.equity, abs=1e-12)


def test_exact_river_two_opponents_equals_brute_force():
    hole, board = parse_cards("QhJh"), parse_cards("Th9h2c3dKs")
    rng = np.random.default_rng(4)
    r1 = np.where(rng.random(ev.NUM_PAIRS) < 0.08, rng.random(ev.NUM_PAIRS) + 0.5, 0.0)
    r2 = np.where(rng.random(ev.NUM_PAIRS) < 0.08, 1.0, 0.0)
    dead = set(hole + board)
    win = tie = eq = total = 0.0
    hr = treys_rank(hole + board)
    for i in np.flatnonzero(r1):
        p = ev.pair_cards(int(i))
        if dead & set(p):
            continue
        o1 = treys_rank(p + board)
        for j in np.flatnonzero(r2):
            q = ev.pair_cards(int(j))
            if (dead | set(p)) & set(q):
                continue
            o2 = treys_rank(q + board)
            w = r1[i] * r2[j]
            total += w
            if hr < min(o1, o2):
                win += w
                eq += w
            elif hr == min(o1, o2):
                tie += w
                eq += w / (1 + (o1 == hr) + (o2 == hr))
    e = ev.equity(hole, board, opponents=2, ranges=[r1, r2])
    assert e.exact
    assert (e.win, e.tie, e.equity) == pytest.approx((win / total, tie / total, eq / total), abs=1e-12)
    mc = ev.equity(hole, board, opponents=2, ranges=[r1, r2], exact=False, samples=20_000, rng=9)
    assert abs(mc.equity - e.equity) < 3 * mc.stderr


def test_exact_two_opponents_random_on_the_river_agrees_with_monte_carlo():
    e = ev.equity("AsAh", "2c7d9h3s4s", opponents=2)
    mc = ev.equity("AsAh", "2c7d9h3s4s", opponents=2, exact=False, samples=30_000, rng=2)
    assert e.exact and not mc.exact
    assert abs(mc.equity - e.equity) < 3 * mc.stderr


def test_multiway_monte_carlo_against_a_dealt_out_brute_force():
    # Three opponents holding known pairs: the only randomness is the turn
    # and river, which brute force enumerates.
    hole, board = parse_cards("AhKh"), parse_cards("Qh7h2c")
    opps = [parse_cards(p) for p in ("QsQc", "7s2s", "JcTc")]
    eq = 0.0
    rest = [c for c in range(52) if c not in hole + board + sum(opps, ())]
    runs = list(itertools.combinations(rest, 2))
    for run in runs:
        hr = treys_rank(hole + board + run)
        ors = [treys_rank(o + board + run) for o in opps]
        if hr <= min(ors):
            eq += 1 / (1 + sum(o == hr for o in ors))
    exact = eq / len(runs)
    mc = ev.equity(hole, board, opponents=3, ranges=[ev.range_of_pairs([o]) for o in opps],
                   samples=20_000, rng=3)
    assert not mc.exact and abs(mc.equity - exact) < 3 * mc.stderr


def test_many_opponents_mix_random_and_ranged():
    # Nine random opponents take the keyed-sampling path; the shares must
    # still add up and sit near the known ~0.31 of AA nine-handed.
    e = ev.equity("AsAh", "", opponents=9, samples=20_000, rng=1)
    assert e.win + e.tie + e.loss == pytest.approx(1.0)
    assert 0.28 < e.equity < 0.34
    kings = ev.range_of_pairs([parse_cards("KdKc")])
    a = ev.equity("AsAh", "", opponents=3, ranges=[None, kings, None], samples=10_000, rng=1)
    b = ev.equity("AsAh", "", opponents=3, ranges=[kings, None, None], samples=10_000, rng=2)
    # the seat order of the opponents does not matter
    assert abs(a.equity - b.equity) < 3 * np.hypot(a.stderr, b.stderr)
    assert a.equity < ev.equity("AsAh", "", opponents=3, samples=10_000, rng=1).equity


def test_fill_sampler_is_uniform_and_avoids_used_cards():
    rng = np.random.default_rng(0)
    deck = np.arange(40, dtype=np.int64)
    used = np.full(60_000, ev.KEY_B[3] | ev.KEY_B[17])
    for count in (3, 20):  # rejection path, then the keyed path
        cards, ok = odds._deal_fill(rng, deck, count, 60_000, used)
        cards = cards[ok]
        assert not np.isin(cards, [3, 17]).any()
        assert all(len(set(row)) == count for row in cards[:500].tolist())
        # every free card equally likely in the first and the last position
        for col in (0, count - 1):
            freq = np.bincount(cards[:, col], minlength=40)[[c for c in range(40) if c not in (3, 17)]]
            expected = len(cards) / 38
            chi2 = ((freq - expected) ** 2 / expected).sum()
            assert chi2 < 80  # 37 degrees of freedom: p ~ 1e-4


def test_monte_carlo_is_reproducible_with_a_seed():
    a = ev.equity("Td9d", "", samples=3_000, rng=42)
    b = ev.equity("Td9d", "", samples=3_000, rng=np.random.default_rng(42))
    c = ev.equity("Td9d", "", samples=3_000, rng=43)
    assert a == b and a != c


def test_auto_mode_chooses_enumeration_only_when_cheap():
    assert ev.equity("AsAh", "2c7d9h").exact          # heads-up flop, full range
    assert not ev.equity("AsAh", "", samples=1000, rng=0).exact  # preflop, full range
    assert not ev.equity("AsAh", "2c7d9h3s", opponents=2, samples=1000, rng=0).exact
    assert not ev.equity("AsAh", "2c7d9h", exact=False, samples=1000, rng=0).exact


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(hole="AsAh", board="AsKd2c"), "both hole and board"),
    (dict(hole="AsAhKd"), "2 cards"),
    (dict(hole="AsAh", board="2c3c4c5c6c7c"), "at most 5"),
    (dict(hole="AsAx"), "suit"),
    (dict(hole="AsAh", opponents=0), "opponents"),
    (dict(hole="AsAh", samples=1), "samples"),
    (dict(hole="AsAh", ranges=np.ones(10)), "1326 weights"),
    (dict(hole="AsAh", ranges=-np.ones(1326)), ">= 0"),
    (dict(hole="AsAh", ranges=np.zeros(1326)), "no hole pair"),
    (dict(hole="AsAh", ranges=[np.ones(1326)] * 3, opponents=2), "3 ranges for 2"),
    (dict(hole="AsAh", opponents=3, exact=True), "exact equity"),
])
def test_equity_rejects_bad_input(kwargs, fragment):
    with pytest.raises(ValueError, match=fragment):
        ev.equity(**kwargs)


def test_a_range_blocked_by_the_known_cards_is_an_error():
    only_aces = ev.range_of_pairs([parse_cards("AsAd")])
    with pytest.raises(ValueError, match="no hole pair"):
        ev.equity("AsKh", "", ranges=only_aces)


# --- hand strength and potential ----------------------------------------------------

def test_billings_example_hand_strength_and_potential():
    # "The challenge of poker" (Billings et al. 2002): A♦Q♣ on 3♥4♣J♥ is
    # ahead of 628, tied with 9 and behind 444 of the 1081 holdings, HS 0.585,
    # two-card PPot 0.208 and NPot 0.274.
    s = ev.showdown_shares("AdQc", "3h4cJh")
    assert [round(x * 1081) for x in (s.ahead, s.tied, s.behind)] == [628, 9, 444]
    assert ev.hand_strength("AdQc", "3h4cJh") == pytest.approx(0.585, abs=5e-4)
    ppot, npot = ev.hand_potential("AdQc", "3h4cJh", cards_ahead=None)
    assert ppot == pytest.approx(0.208, abs=5e-4) and npot == pytest.approx(0.274, abs=5e-4)


def brute_potential(hole: str, board: str, ahead: int) -> tuple[float, float]:
    """Billings' HP-matrix algorithm written out with loops and treys."""
    h, b = parse_cards(hole), parse_cards(board)
    rest = [c for c in range(52) if c not in h + b]
    hp = np.zeros((3, 3))
    hr_now = treys_rank(h + b)
    state = lambda mine, theirs: 0 if mine < theirs else (1 if mine == theirs else 2)  # noqa: E731
    ours = _by_runout(h + b)
    for p in itertools.combinations(rest, 2):
        now = state(hr_now, treys_rank(p + b))
        for run in itertools.combinations([c for c in rest if c not in p], ahead):
            hp[now, state(ours(run), treys_rank(p + b + run))] += 1
    tot = hp.sum(axis=1)
    ppot = (hp[2, 0] + hp[2, 1] / 2 + hp[1, 0] / 2) / (tot[2] + tot[1] / 2)
    npot = (hp[0, 2] + hp[1, 2] / 2 + hp[0, 1] / 2) / (tot[0] + tot[1] / 2)
    return ppot, npot


@pytest.mark.parametrize("hole, board", [("8s9s", "Ts7d2sKh"), ("AdQc", "3h4cJh")])
def test_one_card_potential_equals_brute_force(hole, board):
    assert ev.hand_potential(hole, board) == pytest.approx(brute_potential(hole, board, 1), abs=1e-12)


def test_hand_strength_with_a_range_and_several_opponents():
    hole, board = "QhJh", "Th9h2c"
    rng = np.random.default_rng(8)
    weights = rng.random(ev.NUM_PAIRS)
    s = ev.showdown_shares(hole, board, weights)
    # brute force: weighted share of holdings beaten now
    h, b = parse_cards(hole), parse_cards(board)
    hr = treys_rank(h + b)
    num = den = 0.0
    for i in range(ev.NUM_PAIRS):
        p = ev.pair_cards(i)
        if set(p) & set(h + b):
            continue
        o = treys_rank(p + b)
        num += weights[i] * ((o > hr) + (o == hr) / 2)
        den += weights[i]
    assert s.strength == pytest.approx(num / den, abs=1e-12)
    assert ev.hand_strength(hole, board, weights, opponents=3) == pytest.approx((num / den) ** 3, abs=1e-12)
    other = np.ones(ev.NUM_PAIRS)
    both = ev.hand_strength(hole, board, [weights, other], opponents=2)
    assert both == pytest.approx(s.strength * ev.hand_strength(hole, board), abs=1e-12)


def test_river_hand_strength_is_exact_equity_and_has_no_potential():
    hole, board = "8s9s", "Ts7d2sKh6c"
    assert ev.hand_strength(hole, board) == pytest.approx(ev.equity(hole, board).equity, abs=1e-12)
    assert ev.hand_potential(hole, board) == (0.0, 0.0)
    assert ev.effective_hand_strength(hole, board) == pytest.approx(ev.hand_strength(hole, board))


def test_effective_hand_strength_formula():
    hole, board = "8s9s", "Ts7d2s"
    hs = ev.hand_strength(hole, board, opponents=2)
    ppot, _ = ev.hand_potential(hole, board, opponents=2)
    assert ev.effective_hand_strength(hole, board, opponents=2) == pytest.approx(hs + (1 - hs) * ppot)


def test_multiway_potential_with_known_opponent_hands_equals_brute_force():
    # With each opponent's holding fixed the multiway potential is exact: the
    # runout alone decides who is ahead of, tied with or behind everyone.
    hole, board = parse_cards("8s9s"), parse_cards("Ts7d2sKh")
    opps = [parse_cards("KdKc"), parse_cards("AsQs")]
    hp = np.zeros((3, 3))

    def multi(mine, theirs):
        best = min(theirs)
        return 0 if mine < best else (1 if mine == best else 2)
    now = multi(treys_rank(hole + board), [treys_rank(o + board) for o in opps])
    for river in [c for c in range(52) if c not in hole + board + opps[0] + opps[1]]:
        hr = treys_rank(hole + board + (river,))
        hp[now, multi(hr, [treys_rank(o + board + (river,)) for o in opps])] += 1
    tot = hp.sum(axis=1)
    ppot = (hp[2, 0] + hp[2, 1] / 2 + hp[1, 0] / 2) / (tot[2] + tot[1] / 2)
    got = ev.hand_potential(hole, board, [ev.range_of_pairs([o]) for o in opps], opponents=2)
    assert got[0] == pytest.approx(ppot, abs=1e-12) and got[1] == 0.0


@pytest.mark.parametrize("call, fragment", [
    (lambda: ev.hand_strength("AsAh", ""), "3..5"),
    (lambda: ev.hand_strength("AsAh", "AsKd2c"), "both hole and board"),
    (lambda: ev.hand_potential("AsAh", "2c7d9h", cards_ahead=0), "cards_ahead"),
    (lambda: ev.showdown_shares("AsAh", "2c7d9h", np.ones(5)), "1326 weights"),
])
def test_strength_rejects_bad_input(call, fragment):
    with pytest.raises(ValueError, match=fragment):
        call()
