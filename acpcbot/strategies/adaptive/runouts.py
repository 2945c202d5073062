"""The sampled runouts of adaptive's search: every pair's rank and strength bin on them, and a range moved onto them.

A :class:`Runouts` holds full boards completing the board now (every
pair's treys rank on each, its strength bin on each river, made on first
use and kept).  A :class:`_Moves` carries the opponent's range from its
bin now to its bin on each runout's river (a 64 x (R x 64) table per
range), so that the search's sums over its 1326 pairs are sums over bins;
what does not depend on the range (where each pair's weight lands, the
uniform range's tables before the flop) is kept per runouts and street.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from ...evaluator import NUM_PAIRS, pair_ranks

#: strength scores are binned this finely for range histograms and reference percentiles (ranges bins by it too)
SCORE_BINS = 64
NUM_BINS = SCORE_BINS


# --------------------------------------------------------------------- strength bins

def strength_bins(ranks: np.ndarray) -> np.ndarray:
    """The strength bin of every pair on each board, from its treys ranks ((R, 1326) or (1326,); 0: not live).

    A pair's strength is the share of the other live pairs it beats (ties
    half), binned into NUM_BINS; pairs that are not live get bin 0.
    """
    ranks = np.atleast_2d(ranks)
    R = len(ranks)
    if R > _BINS_BLOCK:  # a block of boards at a time: their rank counts stay in the processor's cache
        return np.concatenate([strength_bins(ranks[i:i + _BINS_BLOCK]) for i in range(0, R, _BINS_BLOCK)])
    ranks = ranks.astype(np.int64)
    live = ranks > 0
    # per board, how many live pairs have each rank (treys ranks are below 8192), then how many have a rank up to
    # each: a count, where sorting the pairs would cost a sort and two binary searches
    offset = np.arange(R, dtype=np.int64)[:, None] * _RANK_SLOTS
    through = np.cumsum(np.bincount((ranks + offset)[live], minlength=R * _RANK_SLOTS).reshape(R, _RANK_SLOTS),
                        axis=1).ravel()
    hi = through[ranks + offset]  # live pairs with a rank up to ours (ours among them)
    lo = through[np.maximum(ranks - 1, 0) + offset]  # live pairs with a smaller rank (dead pairs: ignored below)
    n = live.sum(axis=1, keepdims=True)
    worse = n - hi  # treys: a higher rank is a worse hand
    ties = hi - lo - 1
    score = (worse + 0.5 * ties) / np.maximum(n - 1, 1)
    return np.where(live, np.minimum((score * NUM_BINS).astype(np.int64), NUM_BINS - 1), 0)


#: treys ranks lie in 1..7462: the slots of a board's rank counts
_RANK_SLOTS = 8192
#: boards whose strength bins are made at once (the 400 before the flop: in blocks, twice as fast)
_BINS_BLOCK = 16
#: rows from which _Moves.mean gathers an end at a time (a policy's 1326)
_MANY_ROWS = 64


def signed_sums(q: np.ndarray) -> np.ndarray:
    """For weights ``q`` over bins (last axis): per bin a of ours, the weight below a minus the weight above a."""
    c = np.add.accumulate(q, axis=-1)  # np.cumsum's very sums, without its wrapper
    below = c - q
    # (total - c) into c itself, then below - above: the same operations, two temporaries fewer; the totals
    # copied out first (read from the array written, numpy would copy them by a slower path of its own)
    np.subtract(c[..., -1:].copy(), c, out=c)
    below -= c
    return below



class Runouts:
    """Sampled completions of the board: every pair's treys rank on each (0: not live); strength bins on demand."""

    def __init__(self, ranks: np.ndarray | None, boards: np.ndarray | None = None,
                 first: "Runouts | None" = None) -> None:
        """Runouts of these ``ranks`` (R, 1326); or of full ``boards`` (R, 5) whose ranks are made on first use,
        those of ``first`` (runouts of the boards they begin with) reused: an all-in's many runouts cost
        nothing in a game where nobody can be all-in."""
        self._ranks = ranks
        self._boards = boards
        self._first = first
        self._live: np.ndarray | None = None
        self._bins: np.ndarray | None = None
        self._cells: np.ndarray | None = None
        self._counts: np.ndarray | None = None
        self._move_cells: tuple[np.ndarray, np.ndarray] | None = None
        self._signs: dict[int, np.ndarray] = {}
        self._ties: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def ranks(self) -> np.ndarray:
        """(R, 1326): every pair's treys rank on each runout, 0 where it is not live."""
        if self._ranks is None:
            assert self._boards is not None
            done = 0 if self._first is None else len(self._first.ranks)
            rest = self._boards[done:]
            made = [self._first.ranks] if self._first is not None else []
            if len(rest):
                made.append(pair_ranks(rest))
            self._ranks = made[0] if len(made) == 1 else np.concatenate(made)
        return self._ranks

    @property
    def live(self) -> np.ndarray:
        """(R, 1326): whether each pair is live on each runout."""
        if self._live is None:
            self._live = self.ranks > 0
        return self._live

    @property
    def bins(self) -> np.ndarray:
        """(R, 1326): every pair's strength bin on each river (made on first use)."""
        if self._bins is None:
            self._bins = strength_bins(self.ranks)
        return self._bins

    def move_cells(self, bins: np.ndarray) -> np.ndarray:
        """Every (runout r, pair) in row-major order: its cell b * R * NUM_BINS + r * NUM_BINS + c of a move table
        (bin now b by ``bins``, river bin c; a pair not live has river bin 0 and is weighed 0 by :func:`_move`);
        kept for the last ``bins`` asked (one per street)."""
        hit = self._move_cells
        if hit is None or hit[0] is not bins:
            R = len(self.ranks)
            # the whole grid, not only the live cells: finding those (np.nonzero) and gathering them cost more
            cells = (bins * (R * NUM_BINS))[None, :] + (np.arange(R)[:, None] * NUM_BINS + self.bins)
            hit = self._move_cells = (bins, cells.ravel())
        return hit[1]

    @property
    def counts(self) -> np.ndarray:
        """(1326,): the runouts each pair is live on (made on first use)."""
        if self._counts is None:
            self._counts = self.live.sum(axis=0)
        return self._counts

    @property
    def cells(self) -> np.ndarray:
        """(R, 1326): where each pair's river bin on each runout sits in a flat (R * NUM_BINS) table of values,
        R * NUM_BINS (one past its end) where the pair is not live (made on first use)."""
        if self._cells is None:
            R = len(self.ranks)
            self._cells = np.where(self.live, np.arange(R)[:, None] * NUM_BINS + self.bins, R * NUM_BINS)
        return self._cells

    def head(self, count: int) -> "Runouts":
        """The first ``count`` runouts (sharing the tables already made)."""
        out = Runouts(self.ranks[:count])
        if self._bins is not None:
            out._bins = self._bins[:count]
        return out

    def signs(self, row: int) -> np.ndarray:
        """(1326,): per pair, over the runouts where it and pair ``row`` are both live, the showdowns ``row``
        wins minus those it loses (exact ranks; kept per row)."""
        out = self._signs.get(row)
        if out is None:
            mine = self.ranks[:, row]
            # treys: a lower rank is the better hand
            wins = np.sign(self.ranks - mine[:, None]) * (self.live & self.live[:, row:row + 1])
            out = self._signs[row] = wins.sum(axis=0, dtype=np.float64)
        return out

    def showdown_sums(self, u: np.ndarray) -> np.ndarray:
        """(E, 1326) from weights ``u`` (E, 1326): per pair, summed over the runouts it is live on, the weight of
        the live pairs it beats minus that of those beating it (exact ranks): ``u @ signs(row)`` for every row
        at once."""
        order, hi, lo = self._tied()
        R = len(order)
        out = np.empty((len(u), NUM_PAIRS))
        # one row of u at a time: its (R, 1326) tables stay in the cache (four times faster than all rows at once)
        mine = np.zeros(NUM_PAIRS + 1)  # a row of u, and the 0 of a pair not live
        c = np.zeros((R, NUM_PAIRS + 1))  # c[r, k]: the weight of the k best pairs on runout r
        flat = c.reshape(-1)
        w = np.empty((R, NUM_PAIRS))
        t = np.empty((R, NUM_PAIRS))
        for e in range(len(u)):
            mine[:NUM_PAIRS] = u[e]
            np.take(mine, order, out=w)  # each runout's pairs, best first (those not live weigh nothing)
            np.cumsum(w, axis=1, out=c[:, 1:])
            # beaten: the weight ranked below (treys: above) the pair's ties; beating: that ranked before them
            np.take(flat, hi, out=t)
            np.subtract(c[:, -1:], t, out=t)
            np.take(flat, lo, out=w)
            t -= w  # a pair not live on a runout: its total minus its total minus 0
            t.sum(axis=0, out=out[e])
        return out

    def _tied(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(R, 1326) each, made on first use: every runout's pairs by rank (best first; NUM_PAIRS where not live),
        and where each pair's ties end and begin in that order, as flat indices into the (R, NUM_PAIRS + 1)
        cumulative sums (a pair not live: the runout's total and its 0)."""
        if self._ties is None:
            ranks = self.ranks
            R = len(ranks)
            order = np.argsort(ranks, axis=1, kind="stable")
            ordered = np.take_along_axis(ranks, order, axis=1)
            # in that order, where each run of equal ranks begins and ends (a pass each, not a binary search)
            at = np.broadcast_to(np.arange(NUM_PAIRS), (R, NUM_PAIRS))
            begins = np.ones((R, NUM_PAIRS), dtype=bool)
            begins[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
            ends = np.ones((R, NUM_PAIRS), dtype=bool)
            ends[:, :-1] = begins[:, 1:]
            lo = np.empty((R, NUM_PAIRS), dtype=np.int64)
            hi = np.empty((R, NUM_PAIRS), dtype=np.int64)
            np.put_along_axis(lo, order, np.maximum.accumulate(np.where(begins, at, 0), axis=1), axis=1)
            np.put_along_axis(hi, order, np.minimum.accumulate(np.where(ends, at + 1, NUM_PAIRS)[:, ::-1],
                                                               axis=1)[:, ::-1], axis=1)
            order = np.where(np.take_along_axis(self.live, order, axis=1), order, NUM_PAIRS)
            row = np.arange(R, dtype=np.int64)[:, None] * (NUM_PAIRS + 1)
            self._ties = (order, np.where(self.live, hi, NUM_PAIRS) + row, np.where(self.live, lo, 0) + row)
        return self._ties



class _Moves:
    """The opponent's weight moving from its bin now to its bin on each runout's river, and ours there.

    ``exact``: many rows' all-ins are valued by exact ranks (:meth:`exact_all_ins`), as one row's always are,
    so that a policy's rows are what ``act`` would play (after the flop); else by the strength bins on the
    rivers (before the flop, where ``act`` reads the policy's own table).
    """

    def __init__(self, runouts: Runouts, bins: np.ndarray, w0: np.ndarray, ours: np.ndarray,
                 exact: bool = False) -> None:
        self._key = (runouts, bins)
        self._w0 = w0
        self.ours = ours
        self.exact = exact
        self._every = len(ours) == NUM_PAIRS and bool((ours == np.arange(NUM_PAIRS)).all())
        self._live: np.ndarray | None = None
        self._counts: np.ndarray | None = None
        self._showdown: np.ndarray | None = None
        self._moves: tuple[np.ndarray, np.ndarray | None, np.ndarray] | None = None

    @property
    def our_live(self) -> np.ndarray:
        """(R, m): whether each of our rows is live on each runout (made on first use: the runouts' ranks are)."""
        if self._live is None:
            live = self._key[0].live
            self._live = live if self._every else live[:, self.ours]
        return self._live

    @property
    def _count(self) -> np.ndarray:
        """(m,): the runouts each of our rows is live on."""
        if self._counts is None:
            self._counts = self._key[0].counts if self._every else self.our_live.sum(axis=0)
        return self._counts

    def _tables(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(move, factor, our river bins), made on first use (an all-in of one row needs none of them)."""
        if self._moves is None:
            runouts, bins = self._key
            # A range that is a function of the bin now (before the flop, every narrowing is by these bins)
            # scales the uniform range's tables, which are kept: the rows of a policy cost a lookup.
            counts = np.bincount(bins, minlength=NUM_BINS)
            factor: np.ndarray | None  # None: the range is uniform within each bin
            factor = np.divide(np.bincount(bins, weights=self._w0, minlength=NUM_BINS), counts,
                               out=np.zeros(NUM_BINS), where=counts > 0)
            # np.allclose(factor[bins], w0, rtol=1e-12, atol=1e-300) for finite weights, without its overhead
            if not (np.abs(factor[bins] - self._w0) <= 1e-300 + 1e-12 * np.abs(self._w0)).all():
                factor = None
            move = _uniform_move(runouts, bins) if factor is not None else _move(runouts, bins, self._w0)
            self._moves = (move, factor, runouts.bins if self._every else runouts.bins[:, self.ours])
        return self._moves

    @property
    def deferred(self) -> bool:
        """Whether all-ins are valued all at once by exact ranks (``Search._all_ins``, many rows after the flop)
        rather than through :attr:`showdown`."""
        return len(self.ours) > 1 and self.exact

    def exact_all_ins(self, g: np.ndarray) -> np.ndarray:
        """(ends, m): per row, the mean over its runouts of the opponent's reach ``g`` (ends, NUM_BINS, by its
        bin now) that it beats minus that which beats it, by exact ranks: one row's :attr:`showdown` dotted with
        ``g``, for many rows at once."""
        runouts, bins = self._key
        # ends reached with the same reach (a third of them, against LBR) are valued once
        first: dict[bytes, int] = {}
        again = [first.setdefault(row.tobytes(), len(first)) for row in g]
        if len(first) < len(g):
            g = g[[again.index(k) for k in range(len(first))]]
        sums = runouts.showdown_sums(self._w0[None, :] * g[:, bins])
        if len(first) < len(again):
            sums = sums[again]
        if not self._every:
            sums = sums[:, self.ours]
        return np.divide(sums, self._count, out=np.zeros(sums.shape), where=self._count > 0)

    @property
    def showdown(self) -> np.ndarray:
        """(m, NUM_BINS): per our row, the mean over its runouts of the opponent's weight in each bin now, signed
        by who wins that runout's showdown: an all-in's value is the stake times this, dotted with the reach.

        One row (a decision): by the exact ranks on every runout; many rows
        (not ``exact``): by the strength bins on the rivers (a higher bin wins).
        """
        if self._showdown is None:
            runouts, bins = self._key
            if len(self.ours) == 1:
                row = int(self.ours[0])
                count = max(int(self._count[0]), 1)
                self._showdown = (np.bincount(bins, weights=self._w0 * runouts.signs(row), minlength=NUM_BINS)
                                  / count)[None, :]
            else:
                move, factor, our_river = self._tables()
                if factor is None:
                    self._showdown = _showdown_sums(move, our_river, self.our_live, self._count)
                else:
                    table = _uniform_showdown(runouts, bins)
                    # every row in order (a policy's): the table itself, not a gathered copy of it
                    self._showdown = (table if self._every else table[self.ours]) * factor[None, :]
        return self._showdown

    def reach(self, g: np.ndarray) -> np.ndarray:
        """The opponent's weight by its river bin on every runout, (ends, R, NUM_BINS), for reaches ``g``
        (ends, NUM_BINS) by its bin now."""
        move, factor, _ = self._tables()
        if factor is not None:
            g = g * factor
        return (g @ move).reshape(len(g), -1, NUM_BINS)

    @property
    def our_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """One row: (every runout, the row's river bin on it), the cells of a (ends, R, NUM_BINS) table it reads."""
        river = self._tables()[2]
        return np.arange(len(river)), river[:, 0]

    def mean_at(self, values: np.ndarray) -> np.ndarray:
        """One row: :meth:`mean` of values (ends, R, 1) kept at the row's river bin on each runout (``our_cells``):
        the very array mean gathers (0 where the row is not live), summed alike."""
        per = np.where(self.our_live, values, 0.0).sum(axis=1)
        return np.divide(per, self._count, out=np.zeros(per.shape), where=self._count > 0)

    @staticmethod
    def flat(values: np.ndarray) -> np.ndarray:
        """(ends, R * NUM_BINS + 1): values (ends, R, NUM_BINS) flat, and an extra last cell, the 0 of the runouts a
        row is not live on: what :meth:`mean` gathers from."""
        ends = len(values)
        flat = np.zeros((ends, values.shape[1] * NUM_BINS + 1))
        flat[:, :-1] = values.reshape(ends, -1)
        return flat

    def mean(self, values: np.ndarray) -> np.ndarray:
        """(ends, m) row values from (ends, R, NUM_BINS) values by our bin on each runout: the mean over the
        runouts a row may hold."""
        return self._mean_flat(self.flat(values))

    def _mean_flat(self, flat: np.ndarray) -> np.ndarray:
        """:meth:`mean` from its :meth:`flat` table."""
        runouts = self._key[0]
        cells = runouts.cells if self._every else runouts.cells[:, self.ours]
        # one gather from a flat table whose extra last cell is the 0 of the runouts a row is not live on
        ends = len(flat)
        if cells.shape[1] < _MANY_ROWS:
            per = np.take(flat, cells, axis=1).sum(axis=1)
        else:  # an end at a time: its (R, m) gather stays in the processor's cache (the same sums, runout by runout)
            per = np.empty((ends, cells.shape[1]))
            for e in range(ends):
                np.add.reduce(np.take(flat[e], cells), axis=0, out=per[e])  # sum(), without its wrapper
        return np.divide(per, self._count, out=np.zeros(per.shape), where=self._count > 0)

    def mean_rows(self, flat: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """(ends, len(rows)): the rows ``rows`` of :meth:`mean` for every pair, from its :meth:`flat` table, bit for
        bit (the mean of every pair's own rows: not the few rows' sums, which numpy adds in another order)."""
        assert self._every
        if len(rows) == NUM_PAIRS and np.array_equal(rows, np.arange(NUM_PAIRS)):  # every pair in order (a policy's
            # table): mean's own sums, at its speed
            return self._mean_flat(flat)
        runouts = self._key[0]
        cells = runouts.cells[:, rows]
        # every pair's sums run from 0 runout by runout (a reduction over the runouts, outer to the pairs): the
        # same additions in the same order, here as a running sum from a leading 0 (numpy sums a few rows'
        # runouts pairwise)
        per = np.zeros((len(flat), cells.shape[0] + 1, len(rows)))
        per[:, 1:] = np.take(flat, cells, axis=1)
        total = np.add.accumulate(per, axis=1)[:, -1]
        count = runouts.counts[rows]
        return np.divide(total, count, out=np.zeros(total.shape), where=count > 0)

    def showdown_rows(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), NUM_BINS): the rows ``rows`` of every pair's :attr:`showdown` (the strength bins on the
        rivers, as a policy's table has them: not one row's exact ranks), worked out for those rows alone where
        the range is uniform within each bin (the products of each row are its own)."""
        assert self._every and not self.exact
        if self._showdown is None:
            runouts, bins = self._key
            factor = self._tables()[1]
            if factor is not None:
                return _uniform_showdown(runouts, bins)[rows] * factor[None, :]
        return self.showdown[rows]


def _showdown_sums(move: np.ndarray, our_river: np.ndarray, our_live: np.ndarray, count: np.ndarray) -> np.ndarray:
    """(m, NUM_BINS): per row, the mean over its runouts of each bin's weight now, signed by the river showdown."""
    R = our_river.shape[0]
    move = move.reshape(NUM_BINS, R, NUM_BINS)
    if our_river.shape[1] == 1:
        signs = np.sign(our_river[:, 0][:, None] - np.arange(NUM_BINS)[None, :]) * our_live
        out = (move.reshape(NUM_BINS, R * NUM_BINS) @ signs.ravel().astype(np.float64))[None, :]
    else:
        table = signed_sums(move)  # [b, r, a]: below a minus above a, on runout r, of bin b's weight
        # [r, a, b]: each runout's table a row per river bin of ours, so that a runout's rows for every pair are
        # one contiguous gather (the same products, added runout by runout in order); a row not live on a runout
        # reads an extra row of zeros there, which adds nothing (the sums start at +0 and never hold -0)
        rows = np.zeros((R, NUM_BINS + 1, NUM_BINS))
        rows[:, :NUM_BINS] = table.transpose(1, 2, 0)
        at = np.where(our_live, our_river, NUM_BINS)
        out = np.zeros((our_river.shape[1], NUM_BINS))
        term = np.empty_like(out)
        for r in range(R):
            np.take(rows[r], at[r], axis=0, out=term)
            out += term
    return np.divide(out, count[:, None], out=np.zeros_like(out), where=count[:, None] > 0)


def _move(runouts: Runouts, bins: np.ndarray, w0: np.ndarray) -> np.ndarray:
    """move[b, r * NUM_BINS + c]: the opponent's weight in bin b now that is in bin c on runout r's river."""
    R = len(runouts.ranks)
    # every (runout, pair) in order, those not live weighing 0: each cell sums the live weights in the same order
    weights = (runouts.live * w0).ravel()
    return np.bincount(runouts.move_cells(bins), weights=weights,
                       minlength=R * NUM_BINS * NUM_BINS).reshape(NUM_BINS, R * NUM_BINS)


#: the uniform range's tables kept per (runouts, bins): (runouts, bins, table), the least recently used first
_UNIFORM_SHOWDOWNS: dict[tuple[int, int], tuple[Runouts, np.ndarray, np.ndarray]] = {}
_UNIFORM_MOVES: dict[tuple[int, int], tuple[Runouts, np.ndarray, np.ndarray]] = {}


def _kept(cache: dict, limit: int, runouts: Runouts, bins: np.ndarray, make: Callable[[], np.ndarray]) -> np.ndarray:
    """The table ``make()`` for these runouts and bins, kept in ``cache`` (at most ``limit``, the least recently
    used dropped first: the tables before the flop, used at nearly every decision, are not the ones dropped)."""
    key = (id(runouts), id(bins))
    hit = cache.pop(key, None)
    if hit is None or hit[0] is not runouts or hit[1] is not bins:
        while len(cache) >= limit:
            del cache[next(iter(cache))]
        hit = (runouts, bins, make())
    cache[key] = hit
    return hit[2]


def _uniform_showdown(runouts: Runouts, bins: np.ndarray) -> np.ndarray:
    """:func:`_showdown_sums` of a uniform range for every pair, kept for the same runouts and bins."""
    return _kept(_UNIFORM_SHOWDOWNS, 5, runouts, bins, lambda: _showdown_sums(
        _uniform_move(runouts, bins), runouts.bins, runouts.live, runouts.counts))


def _uniform_move(runouts: Runouts, bins: np.ndarray) -> np.ndarray:
    """:func:`_move` of a uniform range, kept for the same runouts and bins (every first decision before the flop)."""
    return _kept(_UNIFORM_MOVES, 17, runouts, bins, lambda: _move(runouts, bins, np.ones(len(bins))))


def warm_uniform(played: Runouts, allin: Runouts, bins: np.ndarray) -> None:
    """Make the uniform range's tables of these runouts now (before the flop: a fraction of a second at the start
    of a match rather than inside its first decision)."""
    _uniform_move(played, bins)
    _uniform_showdown(allin, bins)



# --------------------------------------------------------------------- runouts

@lru_cache(maxsize=64)
def _board_pool(key: int, size: int, known: tuple[int, ...], need: int) -> np.ndarray:
    """``size`` random completions of ``known`` by ``need`` cards (seeded by ``key``)."""
    gen = np.random.default_rng(key)
    deck = np.array([c for c in range(52) if c not in known], dtype=np.int64)
    picks = np.argsort(gen.random((size, len(deck))), axis=1)[:, :need]
    return np.hstack([np.broadcast_to(np.array(known, dtype=np.int64), (size, len(known))), deck[picks]])


def runout_boards(board: Sequence[int], count: int, seed: int) -> np.ndarray:
    """(count, 5) full boards completing ``board``, drawn by a generator seeded by ``seed``.

    With one card to come: every remaining card once, in a seeded random order (``count`` is ignored).
    """
    board = tuple(int(c) for c in board)
    if len(board) == 4:
        deck = np.array([c for c in range(52) if c not in board], dtype=np.int64)
        order = np.random.default_rng(seed).permutation(len(deck))
        return np.hstack([np.broadcast_to(np.array(board, dtype=np.int64), (len(deck), 4)), deck[order][:, None]])
    return _board_pool(seed, count, board, 5 - len(board))
