"""adaptive's decision core: a best response to an opponent policy over the rest of the hand, vectorised over holdings.

Hands are seen through *strength bins* (``NUM_BINS`` bins of the share of
the other live pairs a pair beats on a board; ``adaptive_ranges``): the
opponent's policy at any of its decisions is P(fold, call, raise | its bin)
(``OpponentPolicy.probs``), and showdowns compare bins (a higher bin wins,
the same bin splits).  The opponent's reach at a node of the current
betting round is its range at the root, ``w0``, times a per-bin factor
``g``, so every sum over its 1326 pairs collapses to 64 numbers; on a
runout its weight moves from its bin now to its bin on the river through a
64 x 64 table per runout.  Our holdings enter only through their own bins,
so the search is vectorised over them: one row for a decision (``act``),
all 1326 for the strategy's policy, with the same arithmetic per row.
(Card removal is the board's only: our own cards do not thin the
opponent's range inside the search.)

The tree: every legal action of the current betting round, ours from a
documented set of sizes (``OUR_FRACTIONS`` of the pot, ``PREFLOP_FRACTIONS``
before the flop, and all-in; once we have acted, fold, call or all-in; past ``RAISE_CAP`` raises in
the round only all-in, so we never feed a raise war), the opponent's fold,
call and its modelled raise.  Where the round closes before the river the
hand continues on each of ``R`` sampled runouts: the streets between are
checked through, and a river betting round (check, ``RIVER_FRACTIONS`` of
the pot or all-in; facing a raise, fold or call) is played out, our choices knowing the runout, the
opponent's by its bin on that river.  An all-in runs out on every runout.
Values are chips won or lost over the whole hand, weighted by the
opponent's reach (unnormalised: a decision compares them row by row).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol, Sequence

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType, State, raise_to
from ..evaluator import NUM_PAIRS
from .adaptive_ranges import SCORE_BINS

NUM_BINS = SCORE_BINS
#: our raise sizes in the round we decide in, as fractions of the pot after calling (plus all-in)
OUR_FRACTIONS = (0.33, 0.5, 0.75, 1.0, 1.5)
#: the same before the flop (about 2, 3 and 4 big blinds opening from the small blind)
PREFLOP_FRACTIONS = (0.5, 1.0, 1.5)
#: our bets when we open the river round of a runout (plus all-in); answering a raise there we fold or call
RIVER_FRACTIONS = (1.0,)
#: after this many raises in a betting round we raise no more except all-in (no-limit) or not at all (limit)
RAISE_CAP = 3
#: a size leaving less than this share of the pot behind is replaced by all-in
SHORT_BEHIND = 0.25

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE


class OpponentPolicy(Protocol):
    """What the search needs of the opponent: its action chances by strength bin, and its raise size."""

    def probs(self, state: State, hist: np.ndarray | None) -> np.ndarray:
        """(3, NUM_BINS): P(fold, call, raise | bin) where it acts in ``state``; ``hist`` is its range over the
        bins (None on the river of a runout, where the bins are that river's)."""

    def raise_to(self, state: State) -> Action:
        """The raise it makes where it acts in ``state`` and raises."""


# --------------------------------------------------------------------- strength bins

def strength_bins(ranks: np.ndarray) -> np.ndarray:
    """The strength bin of every pair on each board, from its treys ranks ((R, 1326) or (1326,); 0: not live).

    A pair's strength is the share of the other live pairs it beats (ties
    half), binned into NUM_BINS; pairs that are not live get bin 0.
    """
    ranks = np.atleast_2d(ranks).astype(np.int64)
    live = ranks > 0
    R = len(ranks)
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


def signed_sums(q: np.ndarray) -> np.ndarray:
    """For weights ``q`` over bins (last axis): per bin a of ours, the weight below a minus the weight above a."""
    c = np.cumsum(q, axis=-1)
    total = c[..., -1:]
    return (c - q) - (total - c)


# --------------------------------------------------------------------- our actions

def our_raises(state: State, fractions: Sequence[float]) -> list[Action]:
    """Our raises where we act in ``state``: the fractions of the pot after calling (at least the minimum) and all-in.

    Past RAISE_CAP raises in the round: all-in only (no-limit), none (limit).
    A size that would leave less than SHORT_BEHIND of the pot behind is all-in.
    """
    bounds = state.raise_bounds()
    if bounds is None:
        return []
    lo, hi = bounds
    if state.game.is_limit:
        return [RAISE] if state.num_raises < RAISE_CAP else []
    if state.num_raises >= RAISE_CAP:
        return [raise_to(hi)]
    sizes = {hi}
    for frac in fractions:
        target = max(state.raise_to_fraction(frac), lo)
        if target < hi:
            after = state.pot_after_raise_called(target)
            sizes.add(hi if hi - target < SHORT_BEHIND * after else target)
    return [raise_to(s) for s in sorted(sizes)]


def quick_raise(state: State) -> Action | None:
    """The quick answer's raise where we act in ``state``, None when it makes none: limit, the raise (within
    RAISE_CAP); no-limit, pot-sized (after calling), all-in where that is all-in or leaves less than SHORT_BEHIND
    of the pot behind, and past RAISE_CAP only such an all-in."""
    bounds = state.raise_bounds()
    if bounds is None:
        return None
    if state.game.is_limit:
        return RAISE if state.num_raises < RAISE_CAP else None
    lo, hi = bounds
    target = min(max(state.raise_to_fraction(1.0), lo), hi)
    after = state.pot_after_raise_called(target)
    if hi - target < SHORT_BEHIND * after:
        return raise_to(hi)
    return raise_to(target) if state.num_raises < RAISE_CAP else None


def our_actions(state: State, fractions: Sequence[float]) -> list[Action]:
    """Fold (when facing a bet), check or call, and :func:`our_raises`."""
    out: list[Action] = [FOLD] if state.to_call() > 0 else []
    return out + [CALL] + our_raises(state, fractions)


def reply_actions(state: State) -> list[Action]:
    """Our answers inside the search once we have acted in a round: fold, call, or all-in (limit: the raise)."""
    out: list[Action] = [FOLD] if state.to_call() > 0 else []
    out.append(CALL)
    raises = our_raises(state, ())
    if raises:
        out.append(raises[-1])
    return out


# --------------------------------------------------------------------- the search

class Runouts:
    """Sampled completions of the board: every pair's treys rank on each (0: not live); strength bins on demand."""

    def __init__(self, ranks: np.ndarray) -> None:
        self.ranks = ranks  # (R, 1326)
        self.live = ranks > 0
        self._bins: np.ndarray | None = None
        self._cells: np.ndarray | None = None
        self._counts: np.ndarray | None = None
        self._move_cells: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._signs: dict[int, np.ndarray] = {}

    @property
    def bins(self) -> np.ndarray:
        """(R, 1326): every pair's strength bin on each river (made on first use)."""
        if self._bins is None:
            self._bins = strength_bins(self.ranks)
        return self._bins

    def move_cells(self, bins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every live (runout r, pair) in order: its cell b * R * NUM_BINS + r * NUM_BINS + c of a move table
        (bin now b by ``bins``, river bin c), and the pair; kept for the last ``bins`` asked (one per street)."""
        hit = self._move_cells
        if hit is None or hit[0] is not bins:
            R = len(self.ranks)
            runout, pair = np.nonzero(self.live)  # row-major: the order of a ravelled (R, 1326) table
            cells = bins[pair] * (R * NUM_BINS) + runout * NUM_BINS + self.bins[runout, pair]
            hit = self._move_cells = (bins, cells, pair)
        return hit[1], hit[2]

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


class Search:
    """One decision's search for our rows ``ours`` (pair indices) against the opponent's range ``w0``.

    ``bins`` are every pair's strength bins on the board now; ``runouts``
    the sampled completions (None on the river).
    """

    def __init__(self, root: State, me: int, opp: int, policy: OpponentPolicy, bins: np.ndarray, w0: np.ndarray,
                 ours: np.ndarray, runouts: Runouts | None, allin: Runouts | None = None) -> None:
        self.root = root
        self.me = me
        self.opp = opp
        self.policy = policy
        self.last_round = root.game.num_rounds - 1
        #: the opponent's weight per bin now
        self.mass = np.bincount(bins, weights=w0, minlength=NUM_BINS)
        self.our_bins = bins[ours]
        self.runouts = runouts
        self.m = len(ours)
        if runouts is not None:
            self.cont = _Moves(runouts, bins, w0, ours)
            self.allin = self.cont if allin is None else _Moves(allin, bins, w0, ours)

    # ----------------------------------------------------------------- entry

    def action_values(self) -> tuple[list[Action], np.ndarray]:
        """Our actions at the root and their values, (actions, (m, len(actions))): chips over the whole hand.

        Three passes: the current round is laid out (every node's reach by
        the opponent's bin, the rounds' ends valued at once where no runout
        is needed), then every end that goes on to the river is played out
        there together with the others (one walk of each shape of river
        round, vectorised over the ends, the runouts and the bins), then the
        layout is folded up (the best of ours, the sum of the opponent's).
        """
        g = np.ones(NUM_BINS)
        actions = our_actions(self.root, OUR_FRACTIONS if self.root.round else PREFLOP_FRACTIONS)
        self._leaves: list[tuple[State, np.ndarray]] = []
        self._allins: list[tuple[float, np.ndarray]] = []
        plans = [self._after(self.root, a, g) for a in actions]
        ends = (self._continuations(), self._all_ins())
        return actions, np.stack([_fold_up(p, ends) for p in plans], axis=1)

    def _after(self, state: State, action: Action, g: np.ndarray) -> "_Plan":
        s = state.copy()
        s.apply_unchecked(action)
        return self._node(s, g)

    # ----------------------------------------------------------------- the current round, laid out

    def _node(self, s: State, g: np.ndarray) -> "_Plan":
        if s.finished or s.round != self.root.round:
            return self._end_of_round(s, g)
        if s.current_player == self.me:
            return (_BEST, [self._after(s, a, g) for a in reply_actions(s)])
        probs = self._probs(s, self.mass * g)
        parts = []
        for kind in (_F, _C, _R):
            p = probs[int(kind)]
            if p.any():
                action = (FOLD, CALL, None)[int(kind)] or self.policy.raise_to(s)
                parts.append(self._after(s, action, g * p))
        return (_SUM, parts)

    def _end_of_round(self, s: State, g: np.ndarray) -> "_Plan":
        me, opp = self.me, self.opp
        if s.folded[me] or s.folded[opp]:
            value = -s.spent[me] if s.folded[me] else s.spent[opp]
            return (_VALUE, np.full(self.m, value * float((self.mass * g).sum())))
        if self.runouts is None:  # a showdown on the river
            stake = min(s.spent[me], s.spent[opp])
            return (_VALUE, stake * signed_sums(self.mass * g)[self.our_bins])
        if s.finished:  # all-in: the board runs out
            stake = min(s.spent[me], s.spent[opp])
            if self.allin.deferred:  # valued with the others at once (_all_ins)
                self._allins.append((stake, g))
                return (_ALLIN, len(self._allins) - 1)
            return (_VALUE, stake * (self.allin.showdown * g).sum(axis=1))
        river = s.copy()
        while river.round < self.last_round:
            river.apply_unchecked(CALL)
        self._leaves.append((river, g))
        return (_LATER, len(self._leaves) - 1)

    # ----------------------------------------------------------------- the river of every runout, all ends at once

    def _continuations(self) -> np.ndarray:
        """(ends, m): the value of every end of the round that goes on, its river round played on every runout."""
        out = np.zeros((len(self._leaves), self.m))
        if not self._leaves:
            return out
        groups: dict[tuple, list[int]] = {}
        skeletons = []
        for i, (river, _) in enumerate(self._leaves):
            skeleton = river_skeleton(river, self.me, self.opp, self.policy)
            skeletons.append(skeleton)
            groups.setdefault(skeleton.shape, []).append(i)
        reach = self.cont.reach(np.stack([g for _, g in self._leaves]))  # (ends, R, NUM_BINS)
        for members in groups.values():
            batch = [skeletons[i] for i in members]
            values = self._walk(batch, 0, reach[members])
            out[members] = self.cont.mean(values)
        return out

    def _all_ins(self) -> np.ndarray:
        """(all-ins, m): the value of every all-in end laid out for many rows on a range that is no function of
        the bins now (a policy after the flop): the opponent's reach by its river bin on every all-in runout
        against ours there, all ends at once; the same sums as ``_Moves.showdown`` (m x NUM_BINS per runout),
        taken in the order that makes the per-runout work the ends' and not the bins'."""
        if not self._allins:
            return np.zeros((0, self.m))
        stakes = np.array([stake for stake, _ in self._allins])
        reach = self.allin.reach(np.stack([g for _, g in self._allins]))  # (all-ins, R, NUM_BINS)
        return stakes[:, None] * self.allin.mean(signed_sums(reach))

    def _walk(self, batch: list["Skeleton"], node: int, q: np.ndarray) -> np.ndarray:
        """Values (ends, R, NUM_BINS) by our river bin of river rounds of one shape; ``q`` the opponent's reach."""
        kind, _, children, _ = batch[0].nodes[node]
        if kind == FOLDED:
            value = np.array([s.nodes[node][1] for s in batch])[:, None, None]
            return np.broadcast_to(value * q.sum(axis=2, keepdims=True), q.shape)
        if kind == SHOWDOWN:
            stake = np.array([s.nodes[node][1] for s in batch])[:, None, None]
            return stake * signed_sums(q)
        if kind == OURS:  # we know the runout: the best per runout and bin
            best = self._walk(batch, children[0], q)
            for c in children[1:]:
                best = np.maximum(best, self._walk(batch, c, q))
            return best
        probs = np.stack([self._probs(s.nodes[node][3], None) for s in batch])[:, :, None, :]  # (ends, 3, 1, B)
        total = np.zeros(q.shape)
        for k, c in children:
            total = total + self._walk(batch, c, q * probs[:, k])
        return total

    # ----------------------------------------------------------------- the opponent

    def _probs(self, s: State, weight: np.ndarray | None) -> np.ndarray:
        """Its (fold, call, raise) chances per bin where it acts in ``s``, by the policy, made legal.

        ``weight`` is its weight per bin (None on a runout's river: the policy reads its usual ranges there).
        """
        if weight is None:
            hist = None
        else:
            z = weight.sum()
            hist = weight / z if z > 0 else np.full(NUM_BINS, 1.0 / NUM_BINS)
        probs = self.policy.probs(s, hist)
        if s.raise_bounds() is None:
            probs = np.array([probs[0], probs[1] + probs[2], np.zeros(NUM_BINS)])
        if s.to_call(self.opp) <= 0:
            probs = np.array([np.zeros(NUM_BINS), probs[0] + probs[1], probs[2]])
        return probs


_VALUE, _LATER, _ALLIN, _BEST, _SUM = range(5)
#: a laid-out node of the current round: (_VALUE, values (m,)), (_LATER | _ALLIN, end index),
#: (_BEST | _SUM, [children])
_Plan = tuple


def _fold_up(plan: _Plan, ends: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """The values (m,) of a laid-out node, its ends valued in ``ends``: (those that go on, the all-ins)."""
    kind, body = plan
    if kind == _VALUE:
        return body
    if kind in (_LATER, _ALLIN):
        return ends[kind - _LATER][body]
    parts = [_fold_up(p, ends) for p in body]
    out = parts[0]
    for p in parts[1:]:
        out = np.maximum(out, p) if kind == _BEST else out + p
    return out


class _Moves:
    """The opponent's weight moving from its bin now to its bin on each runout's river, and ours there."""

    def __init__(self, runouts: Runouts, bins: np.ndarray, w0: np.ndarray, ours: np.ndarray) -> None:
        self._key = (runouts, bins)
        self._w0 = w0
        self.ours = ours
        self._every = len(ours) == NUM_PAIRS and bool((ours == np.arange(NUM_PAIRS)).all())
        self.our_live = runouts.live if self._every else runouts.live[:, ours]
        self._count = runouts.counts if self._every else self.our_live.sum(axis=0)
        self._showdown: np.ndarray | None = None
        self._moves: tuple | None = None

    def _tables(self) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """(move, factor, our river bins), made on first use (an all-in of one row needs none of them)."""
        if self._moves is None:
            runouts, bins = self._key
            # A range that is a function of the bin now (before the flop, every narrowing is by these bins)
            # scales the uniform range's tables, which are kept: the rows of a policy cost a lookup.
            counts = np.bincount(bins, minlength=NUM_BINS)
            factor = np.divide(np.bincount(bins, weights=self._w0, minlength=NUM_BINS), counts,
                               out=np.zeros(NUM_BINS), where=counts > 0)
            if not np.allclose(factor[bins], self._w0, rtol=1e-12, atol=1e-300):
                factor = None
            move = _uniform_move(runouts, bins) if factor is not None else _move(runouts, bins, self._w0)
            self._moves = (move, factor, runouts.bins[:, self.ours])
        return self._moves

    @property
    def deferred(self) -> bool:
        """Whether all-ins are valued all at once (``Search._all_ins``) rather than through :attr:`showdown`:
        for many rows on a range that is no function of the bins now, whose showdown table is not kept."""
        return len(self.ours) > 1 and self._tables()[1] is None

    @property
    def showdown(self) -> np.ndarray:
        """(m, NUM_BINS): per our row, the mean over its runouts of the opponent's weight in each bin now, signed
        by who wins that runout's showdown: an all-in's value is the stake times this, dotted with the reach.

        One row (a decision): by the exact ranks on every runout; every row (a
        policy): by the strength bins on the rivers (a higher bin wins).
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
                    self._showdown = _uniform_showdown(runouts, bins)[self.ours] * factor[None, :]
        return self._showdown

    def reach(self, g: np.ndarray) -> np.ndarray:
        """The opponent's weight by its river bin on every runout, (ends, R, NUM_BINS), for reaches ``g``
        (ends, NUM_BINS) by its bin now."""
        move, factor, _ = self._tables()
        if factor is not None:
            g = g * factor
        return (g @ move).reshape(len(g), -1, NUM_BINS)

    def mean(self, values: np.ndarray) -> np.ndarray:
        """(ends, m) row values from (ends, R, NUM_BINS) values by our bin on each runout: the mean over the
        runouts a row may hold."""
        runouts = self._key[0]
        cells = runouts.cells if self._every else runouts.cells[:, self.ours]
        # one gather from a flat table whose extra last cell is the 0 of the runouts a row is not live on
        ends = len(values)
        flat = np.zeros((ends, cells.shape[0] * NUM_BINS + 1))
        flat[:, :-1] = values.reshape(ends, -1)
        per = np.take(flat, cells, axis=1).sum(axis=1)
        return np.divide(per, self._count, out=np.zeros(per.shape), where=self._count > 0)


def _showdown_sums(move: np.ndarray, our_river: np.ndarray, our_live: np.ndarray, count: np.ndarray) -> np.ndarray:
    """(m, NUM_BINS): per row, the mean over its runouts of each bin's weight now, signed by the river showdown."""
    R = our_river.shape[0]
    move = move.reshape(NUM_BINS, R, NUM_BINS)
    if our_river.shape[1] == 1:
        signs = np.sign(our_river[:, 0][:, None] - np.arange(NUM_BINS)[None, :]) * our_live
        out = (move.reshape(NUM_BINS, R * NUM_BINS) @ signs.ravel().astype(np.float64))[None, :]
    else:
        table = signed_sums(move)  # [b, r, a]: below a minus above a, on runout r, of bin b's weight
        out = np.zeros((our_river.shape[1], NUM_BINS))
        for r in range(R):
            out += (table[:, r, :][:, our_river[r]] * our_live[r]).T
    return np.divide(out, count[:, None], out=np.zeros_like(out), where=count[:, None] > 0)


_UNIFORM_SHOWDOWNS: dict[tuple[int, int], tuple[Runouts, np.ndarray, np.ndarray]] = {}


def _uniform_showdown(runouts: Runouts, bins: np.ndarray) -> np.ndarray:
    """:func:`_showdown_sums` of a uniform range for every pair, kept for the same runouts and bins."""
    key = (id(runouts), id(bins))
    hit = _UNIFORM_SHOWDOWNS.get(key)
    if hit is None or hit[0] is not runouts or hit[1] is not bins:
        if len(_UNIFORM_SHOWDOWNS) > 4:
            _UNIFORM_SHOWDOWNS.clear()
        everyone = np.arange(NUM_PAIRS)
        table = _showdown_sums(_uniform_move(runouts, bins), runouts.bins[:, everyone], runouts.live[:, everyone],
                               runouts.live.sum(axis=0))
        hit = _UNIFORM_SHOWDOWNS[key] = (runouts, bins, table)
    return hit[2]


def _move(runouts: Runouts, bins: np.ndarray, w0: np.ndarray) -> np.ndarray:
    """move[b, r * NUM_BINS + c]: the opponent's weight in bin b now that is in bin c on runout r's river."""
    R = len(runouts.ranks)
    cells, pairs = runouts.move_cells(bins)
    return np.bincount(cells, weights=w0[pairs], minlength=R * NUM_BINS * NUM_BINS).reshape(NUM_BINS, R * NUM_BINS)


_UNIFORM_MOVES: dict[tuple[int, int], tuple[Runouts, np.ndarray, np.ndarray]] = {}


def _uniform_move(runouts: Runouts, bins: np.ndarray) -> np.ndarray:
    """:func:`_move` of a uniform range, kept for the same runouts and bins (every first decision before the flop)."""
    key = (id(runouts), id(bins))
    hit = _UNIFORM_MOVES.get(key)
    if hit is None or hit[0] is not runouts or hit[1] is not bins:
        if len(_UNIFORM_MOVES) > 16:
            _UNIFORM_MOVES.clear()
        hit = _UNIFORM_MOVES[key] = (runouts, bins, _move(runouts, bins, np.ones(len(bins))))
    return hit[2]


# --------------------------------------------------------------------- river rounds, built once

OURS, THEIRS, FOLDED, SHOWDOWN = range(4)


@dataclass
class Skeleton:
    """A river betting round as the search plays it: nodes (kind, value, children, state), the root first.

    Our nodes list their children; the opponent's (action kind, child)
    pairs and keep the engine state (its spot); a fold keeps the chips won
    (+) or lost (-), a showdown the chips at stake.
    """

    nodes: list[tuple[int, float, list, State | None]]
    #: the tree's form (each node's kind and children): river rounds of one shape are walked together
    shape: tuple = ()


_SKELETONS: dict[tuple, Skeleton] = {}


def river_skeleton(s: State, me: int, opp: int, policy: OpponentPolicy) -> Skeleton:
    """The river round from ``s`` (engine states all the way), cached by the chips in and the opponent's raises."""
    key = (s.game, tuple(s.spent), s.current_player, me, tuple(s.actions[s.round]), _raise_key(s, opp, policy))
    hit = _SKELETONS.get(key)
    if hit is not None:
        return hit
    nodes: list[tuple[int, float, list, State | None]] = []

    def build(state: State) -> int:
        index = len(nodes)
        nodes.append((0, 0.0, [], None))
        if state.finished:
            if state.folded[me] or state.folded[opp]:
                nodes[index] = (FOLDED, float(-state.spent[me] if state.folded[me] else state.spent[opp]), [], None)
            else:
                nodes[index] = (SHOWDOWN, float(min(state.spent[me], state.spent[opp])), [], None)
            return index
        if state.current_player == me:
            opening = me not in state.actors[state.round]
            children = []
            for action in our_actions(state, RIVER_FRACTIONS) if opening else reply_actions(state)[:2]:
                child = state.copy()
                child.apply_unchecked(action)
                children.append(build(child))
            nodes[index] = (OURS, 0.0, children, None)
            return index
        pairs = []
        legal = state.legal_actions()
        for kind in (_F, _C, _R):
            if kind not in legal:
                continue
            child = state.copy()
            child.apply_unchecked((FOLD, CALL, None)[int(kind)] or policy.raise_to(state))
            pairs.append((int(kind), build(child)))
        nodes[index] = (THEIRS, 0.0, pairs, state)
        return index

    build(s)
    if len(_SKELETONS) > 4096:
        _SKELETONS.clear()
    shape = tuple((kind, tuple(c if isinstance(c, int) else tuple(c) for c in children))
                  for kind, _, children, _ in nodes)
    skeleton = _SKELETONS[key] = Skeleton(nodes, shape)
    return skeleton


def _raise_key(s: State, opp: int, policy: OpponentPolicy) -> tuple:
    """What of the opponent's raising a river round depends on: its first raise there, if any."""
    probe = s.copy()
    while not probe.finished and probe.current_player != opp:
        probe.apply_unchecked(CALL)
    if probe.finished or probe.raise_bounds() is None:
        return ()
    return (policy.raise_to(probe),)


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


def all_pairs() -> np.ndarray:
    """Every pair's index: the rows of a policy."""
    return np.arange(NUM_PAIRS)
