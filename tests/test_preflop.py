"""Preflop tables: classes, exact equity data, Chen score, Sklansky–Malmuth groups, utility ranking."""

from __future__ import annotations

import numpy as np
import pytest

from acpcbot import preflop as pf
from acpcbot.cards import CardError, parse_card
from acpcbot.evaluator import NUM_PAIRS, equity, pair_cards


def test_169_classes_cover_the_1326_pairs():
    assert len(pf.CLASSES) == len(set(pf.CLASSES)) == 169
    counts = np.bincount(pf.PAIR_CLASS, minlength=169)
    for cls, n in zip(pf.CLASSES, counts):
        assert n == (6 if len(cls) == 2 else 4 if cls.endswith("s") else 12), cls
        assert len(pf.class_combos(cls)) == n
    assert counts.sum() == NUM_PAIRS
    for i in range(0, NUM_PAIRS, 13):
        assert pf.CLASSES[pf.PAIR_CLASS[i]] == pf.hand_class(*pair_cards(i))


@pytest.mark.parametrize("c1, c2, cls", [
    ("As", "Kd", "AKo"), ("Ks", "As", "AKs"), ("7h", "7c", "77"), ("9d", "Td", "T9s"), ("2c", "3d", "32o"),
])
def test_hand_class(c1, c2, cls):
    assert pf.hand_class(c1, c2) == cls
    assert pf.hand_class(parse_card(c1), parse_card(c2)) == cls


# docs/studies.md: the 2012 study's hard-coded equities.
STUDY_EQUITIES = {"AA": 0.8520, "KK": 0.8240, "QQ": 0.7993, "JJ": 0.7747, "TT": 0.7501, "99": 0.7206, "88": 0.6916}


def test_equity_table_reproduces_the_study_table():
    for cls, value in STUDY_EQUITIES.items():
        assert abs(pf.preflop_equity(cls) - value) <= 0.0005, cls
    assert abs(pf.preflop_equity("AA") - 0.8520) <= 0.0005


def test_equity_table_is_zero_sum():
    # Over every (hero pair, opponent pair, board) deal each side's win is the
    # other's loss: sum of 2*wins + ties over all classes equals all deals.
    counts = pf._load_counts()
    assert (2 * counts[:, 0] + counts[:, 1]).sum() == counts[:, 2].sum()
    # every pair meets 1225 others on C(48, 5)... counted per (board, opponent): C(50,5) * 990 per pair
    combos = np.bincount(pf.PAIR_CLASS, minlength=169)
    assert (counts[:, 2] == combos * 2118760 * 990).all()


def test_equity_table_order_and_shape():
    table = pf.preflop_equity_table()
    assert max(table, key=table.get) == "AA" and min(table, key=table.get) == "32o"
    assert table["AKs"] > table["AKo"] > table["AQo"]
    win, tie = pf.preflop_win_tie("AA")
    assert win + tie / 2 == pytest.approx(table["AA"])


@pytest.mark.parametrize("hole, cls, seed", [("Td9d", "T9s", 1), ("Qc3h", "Q3o", 2)])
def test_equity_table_agrees_with_monte_carlo(hole, cls, seed):
    e = equity(hole, "", samples=40_000, rng=seed)
    assert abs(e.equity - pf.preflop_equity(cls)) < 3 * e.stderr


@pytest.mark.parametrize("c1, c2, score", [
    ("As", "Ah", 20), ("Ks", "Kh", 16), ("2s", "2h", 5), ("5s", "5h", 5), ("6s", "6h", 6),
    ("As", "Ks", 12), ("As", "Kd", 10), ("Js", "Ts", 9), ("7s", "2h", -1), ("5s", "4s", 6),
    ("Ts", "9h", 6), ("Qs", "9s", 7), ("Qs", "Js", 9), ("Ks", "9h", 4), ("As", "5s", 7), ("9s", "7s", 7),
])
def test_chen_score(c1, c2, score):
    # hand-worked: e.g. 54s = 2.5 + 2 (suited) + 1 (connected, below Q) = 5.5 -> 6;
    # 72o = 3.5 - 5 (gap 4) = -1.5 -> -1; A5s = 10 + 2 - 5 = 7; 97s = 4.5 + 2 - 1 + 1 = 6.5 -> 7;
    # Q9s = 7 + 2 - 2 (gap 2) = 7; QJs = 7 + 2 = 9 (no bonus: the queen is not below a queen)
    assert pf.chen_score(c1, c2) == pf.chen_score(c2, c1) == score


def test_sklansky_malmuth_groups():
    sizes = np.bincount(list(pf.SM_GROUP.values()), minlength=9)[1:]
    assert sizes.tolist() == [5, 5, 6, 8, 18, 10, 18, 15]
    assert pf.sm_group("As", "Ah") == 1 and pf.sm_group("As", "Ks") == 1
    assert pf.sm_group("As", "Kd") == 2 and pf.sm_group("Ts", "9s") == 4
    assert pf.sm_group("As", "2s") == 5 and pf.sm_group("Ks", "2s") == 7 and pf.sm_group("Ks", "9s") == 6
    assert pf.sm_group("Ts", "8d") == 8 and pf.sm_group("7s", "2h") == 9 and pf.sm_group("As", "2d") == 9


def test_utility_ranking():
    assert sorted(pf.UTILITY_RANKING) == sorted(pf.CLASSES)
    assert [pf.utility_rank(c) for c in ("AA", "KK", "QQ", "AKs", "JJ")] == [1, 2, 3, 4, 5]
    assert pf.utility_rank("72o") == 169 and pf.utility_rank("82o") == 168


def test_class_range():
    r = pf.class_range(["AA", "AKs"])
    assert r.sum() == 10 and r.shape == (NUM_PAIRS,)
    w = pf.class_range({"KK": 0.5, "72o": 2})
    assert w.sum() == pytest.approx(0.5 * 6 + 2 * 12)


@pytest.mark.parametrize("call, error, fragment", [
    (lambda: pf.hand_class("As", "As"), ValueError, "same card"),
    (lambda: pf.hand_class("As", "Ax"), CardError, "c2"),
    (lambda: pf.hand_class(52, 0), ValueError, "c1"),
    (lambda: pf.chen_score("1s", "As"), CardError, "rank"),
    (lambda: pf.preflop_equity("KAs"), ValueError, "unknown hand class"),
    (lambda: pf.utility_rank("AKx"), ValueError, "unknown hand class"),
    (lambda: pf.class_combos("AAs"), ValueError, "unknown hand class"),
    (lambda: pf.class_range({"AA": -1}), ValueError, ">= 0"),
])
def test_bad_input(call, error, fragment):
    with pytest.raises(error, match=fragment):
        call()
