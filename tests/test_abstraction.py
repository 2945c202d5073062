"""The hold'em card abstraction: lossless preflop classes, canonical flops, board strength, suit invariance."""

import itertools

import numpy as np
import pytest

from acpcbot.cards import parse_cards
from acpcbot.evaluator import NUM_PAIRS, PAIR_INDEX, PAIRS, rank
from acpcbot.preflop import CLASSES, PAIR_CLASS
from acpcbot.solve.abstraction import (
    BINS,
    CANON_FLOPS,
    FLOP_WEIGHTS,
    PERM_PAIR,
    SUIT_PERMS,
    AbstractionError,
    Buckets,
    canonical_flop,
    class_joint,
    flop_features,
    flop_runouts,
    river_strength,
    turn_features,
)
from acpcbot.solve.blueprint import bucket_histories, bucket_history
from acpcbot.solve.blueprint_train import DEFAULT_BUCKETS


@pytest.fixture(scope="module")
def shipped():
    return Buckets.load(DEFAULT_BUCKETS)


def rename(cards, k):
    """Cards with their suits renamed by SUIT_PERMS[k]."""
    return tuple((c & ~3) + int(SUIT_PERMS[k][c & 3]) for c in cards)


def test_preflop_is_the_169_lossless_classes(shipped):
    sizes = np.bincount(PAIR_CLASS, minlength=169)
    assert len(CLASSES) == 169
    assert sorted(set(sizes.tolist())) == [4, 6, 12]
    assert (sizes == 6).sum() == 13 and (sizes == 4).sum() == 78 and (sizes == 12).sum() == 78
    # a class is exactly one orbit of the suit renamings: nothing is merged that a player could tell apart
    for c in range(169):
        members = set(np.flatnonzero(PAIR_CLASS == c).tolist())
        assert set(PERM_PAIR[:, min(members)].tolist()) == members
    assert [bucket_history(shipped, (), p) for p in range(NUM_PAIRS)] == PAIR_CLASS.tolist()


def test_canonical_flops_are_the_1755_strategically_distinct_flops():
    assert len(CANON_FLOPS) == 1755
    assert FLOP_WEIGHTS.sum() == 22100                     # C(52, 3)
    assert set(FLOP_WEIGHTS.tolist()) == {4, 12, 24}       # orbit sizes under the 24 suit renamings
    flop = parse_cards("2c7d9h")
    assert all(canonical_flop(rename(flop, k))[0] == canonical_flop(flop)[0] for k in range(24))


def test_board_strength_hand_worked():
    royal = parse_cards("AsKsQsJsTs")                       # everyone plays the board: all 1081 live pairs tie
    s = river_strength(np.array([royal]))[0]
    assert (s[s > 0] == 1081).all() and (s > 0).sum() == 1081
    board = parse_cards("AhKhQh2c3d")
    s = river_strength(np.array([board]))[0]
    nuts = PAIR_INDEX[parse_cards("Jh")[0], parse_cards("Th")[0]]
    assert s[nuts] == 2 * 1080 + 1 == s.max()               # the royal flush beats the other 1080 pairs
    shared = [i for i, (a, b) in enumerate(PAIRS) if a in board or b in board]
    assert (s[shared] == 0).all() and len(shared) == 245


def test_board_strength_matches_ranks_on_random_boards():
    rng = np.random.default_rng(3)
    for _ in range(3):
        board = [int(c) for c in rng.choice(52, 5, replace=False)]
        s = river_strength(np.array([board]))[0]
        live = [i for i, (a, b) in enumerate(PAIRS) if a not in board and b not in board]
        ranks = np.array([rank([int(PAIRS[i][0]), int(PAIRS[i][1])] + board) for i in live])
        for j in rng.choice(len(live), 25, replace=False):
            want = 2 * (ranks > ranks[j]).sum() + (ranks == ranks[j]).sum()
            assert s[live[j]] == want


def test_features_count_every_runout():
    flop = tuple(parse_cards("2c7d9h"))
    runs, strength = flop_runouts(flop)
    assert len(runs) == 1176                               # C(49, 2)
    ff = flop_features(strength)
    live = [i for i, (a, b) in enumerate(PAIRS) if a not in flop and b not in flop]
    assert set(ff.sum(1)[live].tolist()) == {1081}          # C(47, 2) runouts per live pair
    tf = turn_features(runs, strength)
    pair = live[0]
    turns = [t for t in range(52) if t not in flop and t not in PAIRS[pair]]
    assert set(tf[turns, pair].sum(1).tolist()) == {46}


def test_bucket_history_is_invariant_under_suit_renaming(shipped):
    rng = np.random.default_rng(7)
    for length in (3, 4, 5):
        for _ in range(4):
            cards = [int(c) for c in rng.choice(52, length + 2, replace=False)]
            board, hole = tuple(cards[:length]), cards[length:]
            pair = int(PAIR_INDEX[hole[0], hole[1]])
            k = int(rng.integers(24))
            moved = rename(board, k)
            assert bucket_history(shipped, moved, int(PERM_PAIR[k, pair])) == bucket_history(shipped, board, pair)
            all_here = bucket_histories(shipped, board)
            all_moved = bucket_histories(shipped, moved)
            live = np.array([not (set(PAIRS[i].tolist()) & set(board)) for i in range(NUM_PAIRS)])
            assert np.array_equal(all_moved[PERM_PAIR[k]][live], all_here[live])


def test_one_pair_and_all_pairs_lookups_agree(shipped):
    rng = np.random.default_rng(9)
    for length in (3, 4, 5):
        cards = [int(c) for c in rng.choice(52, length + 2, replace=False)]
        board = tuple(cards[:length])
        every = bucket_histories(shipped, board)
        for a, b in itertools.combinations(cards[length:] + [c for c in range(52) if c not in cards][:2], 2):
            pair = int(PAIR_INDEX[a, b])
            assert bucket_history(shipped, board, pair) == every[pair]


def test_shipped_transitions_are_distributions(shipped):
    k1, k2, k3 = shipped.k
    t1, t2, t3 = shipped.transitions
    assert t1.shape == (169, k1) and t2.shape == (169 * k1, k2) and t3.shape == (169 * k1 * k2, k3)
    for t in (t1, t2, t3):
        assert np.allclose(t.sum(1), 1) and (t >= 0).all()
    # strength is a percentile on each board, so a random hand's river bucket falls in each band with its width
    pc = class_joint().sum(1)
    chain = (pc[:, None] * t1).reshape(-1)
    chain = (chain[:, None] * t2).reshape(-1)
    river = (chain[:, None] * t3).sum(0)
    widths = np.diff(np.concatenate([[0], shipped.river_edges, [BINS]])) / BINS
    assert np.abs(river - widths).max() < 0.02


def test_flop_table_marks_pairs_sharing_a_flop_card(shipped):
    for f in (0, 700, 1754):
        flop = set(int(c) for c in np.unravel_index(int(CANON_FLOPS[f]), (52, 52, 52)))
        shared = np.array([bool(set(p.tolist()) & flop) for p in PAIRS])
        assert (shipped.flop_bucket[f][shared] == 255).all()
        assert (shipped.flop_bucket[f][~shared] < shipped.k[0]).all()


def test_damaged_bucket_file_is_a_named_error(tmp_path):
    bad = tmp_path / "b.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(AbstractionError, match="b.npz"):
        Buckets.load(bad)
