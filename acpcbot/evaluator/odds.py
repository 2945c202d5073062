"""Equity of a hold'em hand at showdown against random hands or ranges: exact enumeration or vectorised Monte Carlo."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .pairs import CHUNK, PAIR_A, PAIR_B, cards_mask, combinations, key_sums, live_pairs, ranges_list, remaining
from .ranking import CardsLike, as_cards, check_distinct, popcount, rank_unchecked, ranks_from_keys
from .tables import KEY_A, KEY_A_LIST, KEY_B, SUIT_BASE


@dataclass(frozen=True)
class Equity:
    """Showdown result shares of a hand: win, tie and loss add to 1; ties are shared in ``equity``."""

    win: float
    tie: float
    loss: float
    equity: float
    stderr: float  # standard error of ``equity`` (0 when exact)
    exact: bool
    samples: int  # Monte Carlo deals, or (runout, opponent holding) combinations enumerated


DEFAULT_SAMPLES = 20_000
#: Auto mode enumerates exactly when (runouts x opponent holdings) is at most this.
EXACT_LIMIT = 2_000_000


def equity(hole: CardsLike, board: CardsLike = (), opponents: int = 1, ranges: object = None,
           samples: int | None = None, exact: bool | None = None,
           rng: np.random.Generator | int | None = None) -> Equity:
    """Win, tie and loss shares and equity of a hold'em hand at showdown.

    ``ranges``: None (random hands), one range for every opponent, or a
    sequence of one range (or None) per opponent; a range is 1326 weights
    indexed by ``pair_index``.  ``exact=None`` enumerates every runout and
    holding when that is cheap (heads-up: runouts x holdings <= EXACT_LIMIT,
    e.g. river, turn, flop against any range, preflop against one hand; two
    opponents on the river) and otherwise runs ``samples`` (default
    DEFAULT_SAMPLES) vectorised Monte Carlo deals; ``exact=True`` insists
    on enumeration, ``exact=False`` on Monte Carlo.  ``rng`` seeds the
    sampling.  Opponent holdings are drawn from their ranges conditioned on
    all cards being distinct.
    """
    h = as_cards(hole, "hole")
    if len(h) != 2:
        raise ValueError(f"hole: a hold'em hand has 2 cards, got {len(h)}")
    bd = as_cards(board, "board")
    if len(bd) > 5:
        raise ValueError(f"board: at most 5 cards, got {len(bd)}")
    check_distinct([("hole", h), ("board", bd)])
    rl = ranges_list(ranges, opponents, "ranges")
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, (int, np.integer))
                                or samples < 2):
        raise ValueError(f"samples must be an int >= 2, got {samples!r}")
    dead = cards_mask(h + bd)
    live = [live_pairs(r, dead, f"ranges[{i}]" if ranges is not None else "opponent") for i, r in enumerate(rl)]
    # The board runs out from the cards left beside the opponent's pair.
    n_runouts = math.comb(48 - len(bd), 5 - len(bd))
    can_exact = (opponents == 1) or (opponents == 2 and len(bd) == 5)
    cost = n_runouts * len(live[0][0]) if opponents == 1 else len(live[0][0]) * len(live[1][0])
    if exact is None:
        exact = can_exact and cost <= EXACT_LIMIT
    elif exact and not can_exact:
        raise ValueError("exact equity is available heads-up, or with two opponents on the river")
    if exact:
        if opponents == 1:
            return _exact_headsup(h, bd, *live[0])
        return _exact_river_two(h, bd, live[0], live[1])
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    return _monte_carlo(h, bd, rl, live, samples or DEFAULT_SAMPLES, gen)


def _exact_headsup(hole: tuple[int, ...], board: tuple[int, ...],
                   pair_idx: np.ndarray, weights: np.ndarray) -> Equity:
    """Every runout against every holding of one opponent, weighted by the range."""
    known = hole + board
    deck = remaining(cards_mask(known))
    runs = deck[combinations(len(deck), 5 - len(board))]
    ra, rb = key_sums(runs)
    board_a = SUIT_BASE + sum(KEY_A_LIST[c] for c in board)
    board_b = cards_mask(board)
    hero = ranks_from_keys(board_a + ra + sum(KEY_A_LIST[c] for c in hole),
                            board_b + rb + cards_mask(hole), 7)
    pa, pb = PAIR_A[pair_idx], PAIR_B[pair_idx]
    win = tie = total = 0.0
    combos = 0
    step = max(1, CHUNK // len(pair_idx))
    for s in range(0, len(runs), step):
        a = (board_a + ra[s:s + step])[:, None] + pa[None, :]
        b = (board_b + rb[s:s + step])[:, None] + pb[None, :]
        opp = ranks_from_keys(a.ravel(), b.ravel(), 7).reshape(a.shape)
        ok = (rb[s:s + step, None] & pb[None, :]) == 0
        w = np.where(ok, weights[None, :], 0.0)
        hr = hero[s:s + step, None]
        combos += int(ok.sum())
        total += w.sum()
        win += w[opp > hr].sum()
        tie += w[opp == hr].sum()
    win, tie, total = float(win), float(tie), float(total)
    loss = total - win - tie
    return Equity(win / total, tie / total, loss / total, (win + tie / 2) / total, 0.0, True, combos)


def _exact_river_two(hole: tuple[int, ...], board: tuple[int, ...],
                     live1: tuple[np.ndarray, np.ndarray], live2: tuple[np.ndarray, np.ndarray]) -> Equity:
    """River against two opponents: every pair of disjoint holdings."""
    board_a = SUIT_BASE + sum(KEY_A_LIST[c] for c in board)
    board_b = cards_mask(board)
    hero = rank_unchecked(hole + board)
    ranks = []
    for idx, _ in (live1, live2):
        ranks.append(ranks_from_keys(board_a + PAIR_A[idx], board_b + PAIR_B[idx], 7))
    (i1, w1), (i2, w2) = live1, live2
    ok = (PAIR_B[i1][:, None] & PAIR_B[i2][None, :]) == 0
    w = np.where(ok, w1[:, None] * w2[None, :], 0.0)
    r1, r2 = ranks[0][:, None], ranks[1][None, :]
    total = float(w.sum())
    if total <= 0:
        raise ValueError("ranges: the two opponents' ranges have no disjoint holdings")
    win = float(w[(r1 > hero) & (r2 > hero)].sum())
    tied = (np.minimum(r1, r2) == hero)
    n_tied = (r1 == hero).astype(np.int64) + (r2 == hero)
    tie = float(w[tied].sum())
    eq_tie = float((w * np.where(tied, 1.0 / (1 + n_tied), 0.0)).sum())
    loss = total - win - tie
    return Equity(win / total, tie / total, loss / total, (win + eq_tie) / total, 0.0, True, int(ok.sum()))


def _deal_fill(rng: np.random.Generator, deck: np.ndarray, count: int, size: int,
               used: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``size`` candidate rows of ``count`` cards from ``deck`` in uniformly random order.

    Returns (cards, ok): rows with ok False repeat a card or hit their row's
    ``used`` mask and must be discarded (rejection keeps the rest uniform).
    """
    m = len(deck)
    if count == 0:
        return np.zeros((size, 0), dtype=np.int64), np.ones(size, dtype=bool)
    if math.perm(m, count) / m ** count >= 0.25:
        cards = deck[rng.integers(0, m, size=(size, count))]
        bits = KEY_B[cards[:, 0]]
        for i in range(1, count):
            bits = bits | KEY_B[cards[:, i]]
        ok = popcount(bits) == count
        if used is not None:
            ok &= (bits & used) == 0
        return cards, ok
    # Many cards to deal: the `count` smallest of random keys, used cards last.
    keys = rng.random((size, m), dtype=np.float32)
    if used is not None:
        keys[(used[:, None] & KEY_B[deck][None, :]) != 0] = 2.0
    idx = np.argpartition(keys, count - 1, axis=1)[:, :count]
    # argpartition leaves the chosen cards in no random order; sorting them by key does.
    order = np.argsort(np.take_along_axis(keys, idx, axis=1), axis=1)
    return deck[np.take_along_axis(idx, order, axis=1)], np.ones(size, dtype=bool)


def _monte_carlo(hole: tuple[int, ...], board: tuple[int, ...], rl: list[np.ndarray | None],
                 live: list[tuple[np.ndarray, np.ndarray]], samples: int, rng: np.random.Generator) -> Equity:
    """Vectorised Monte Carlo: ranged opponents from their ranges, the rest of the deal uniform."""
    deck = remaining(cards_mask(hole + board))
    ranged = [i for i, r in enumerate(rl) if r is not None]
    n_random = len(rl) - len(ranged)
    fill = 2 * n_random + 5 - len(board)
    cdfs = [np.cumsum(live[i][1]) for i in ranged]
    board_a = SUIT_BASE + sum(KEY_A_LIST[c] for c in board)
    board_b = cards_mask(board)
    hole_a, hole_b = sum(KEY_A_LIST[c] for c in hole), cards_mask(hole)
    share_sum = share_sq = 0.0
    wins = ties = done = drawn = 0
    # First guess of the share of candidate deals kept: the fill's chance of
    # no repeated card (ranged opponents' overlaps are learnt from the first batch).
    rate = math.perm(len(deck), fill) / len(deck) ** fill if fill else 1.0
    rate = rate if rate >= 0.25 else 1.0
    while done < samples:
        want = samples - done
        size = min(int(want / max(rate, 0.01) * 1.1) + 64, 4 * CHUNK)
        drawn += size
        if drawn > 200 * samples + 100_000:
            raise ValueError("ranges: the opponents' ranges leave almost no consistent deal")
        used = np.zeros(size, dtype=np.int64) if ranged else None
        ok = np.ones(size, dtype=bool)
        opp_a, opp_b = [], []
        for i, cdf in zip(ranged, cdfs):
            pick = live[i][0][np.minimum(np.searchsorted(cdf, rng.random(size) * cdf[-1], side="right"),
                                         len(cdf) - 1)]
            pb = PAIR_B[pick]
            ok &= (used & pb) == 0
            used |= pb
            opp_a.append(PAIR_A[pick])
            opp_b.append(pb)
        cards, ok_fill = _deal_fill(rng, deck, fill, size, used)
        ok &= ok_fill
        keep = np.flatnonzero(ok)[:want]
        rate = max(ok.mean(), 1e-3)
        if not keep.size:
            continue
        cards = cards[keep]
        a = np.full(len(keep), board_a, dtype=np.int64)
        b = np.full(len(keep), board_b, dtype=np.int64)
        for j in range(2 * n_random, fill):
            a += KEY_A[cards[:, j]]
            b += KEY_B[cards[:, j]]
        hero = ranks_from_keys(a + hole_a, b + hole_b, 7)
        opp = [ranks_from_keys(a + oa[keep], b + ob[keep], 7) for oa, ob in zip(opp_a, opp_b)]
        for j in range(n_random):
            c1, c2 = cards[:, 2 * j], cards[:, 2 * j + 1]
            opp.append(ranks_from_keys(a + KEY_A[c1] + KEY_A[c2], b + KEY_B[c1] + KEY_B[c2], 7))
        opp_ranks = np.vstack(opp)
        best = opp_ranks.min(axis=0)
        win = hero < best
        tie = hero == best
        share = win.astype(np.float64)
        if tie.any():
            n_tied = (opp_ranks[:, tie] == hero[tie]).sum(axis=0)
            share[tie] = 1.0 / (1 + n_tied)
        wins += int(win.sum())
        ties += int(tie.sum())
        share_sum += float(share.sum())
        share_sq += float((share * share).sum())
        done += len(keep)
    mean = share_sum / done
    var = max(share_sq / done - mean * mean, 0.0) * done / (done - 1)
    return Equity(wins / done, ties / done, (done - wins - ties) / done, mean,
                  math.sqrt(var / done), False, done)


