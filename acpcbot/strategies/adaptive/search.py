"""adaptive's decision core: a best response to an opponent policy over the rest of the hand, vectorised over holdings.

Hands are seen through *strength bins* (``NUM_BINS`` bins of the share of
the other live pairs a pair beats on a board; ``adaptive.ranges``): the
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
before the flop, and all-in; once we have acted, fold, call or all-in;
past ``RAISE_CAP`` raises in the round only all-in, so we never feed a
raise war; limit games cap a round's raises themselves, and there we raise
up to that cap), the opponent's fold, call and its modelled raise.  Where
the round closes before the river the hand continues on each of ``R``
sampled runouts: the streets between are checked through, and a river
betting round (check, ``RIVER_FRACTIONS`` of the pot or all-in; facing a
raise, fold or call, and in limit raise) is played out, our choices knowing
the runout, the opponent's by its bin on that river.  An all-in runs out on every runout.
Values are chips won or lost over the whole hand, weighted by the
opponent's reach (unnormalised: a decision compares them row by row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ...engine import CALL, FOLD, Action, ActionType, State
from ...evaluator import NUM_PAIRS
from .moves import (  # the moves, defined there, named here as they always were
    _WON,
    OUR_FRACTIONS as OUR_FRACTIONS,
    PREFLOP_FRACTIONS as PREFLOP_FRACTIONS,
    RAISE_CAP as RAISE_CAP,
    RIVER_FRACTIONS as RIVER_FRACTIONS,
    SHORT_BEHIND as SHORT_BEHIND,
    OpponentPolicy as OpponentPolicy,
    _fold_or_call,
    our_actions as our_actions,
    our_raises as our_raises,
    quick_raise as quick_raise,
    reply_actions as reply_actions,
    spot_key as spot_key,
)
from .ranges import SCORE_BINS
from .runouts import Runouts, _Moves, signed_sums

NUM_BINS = SCORE_BINS
_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
_add_up = np.add.reduce
_any_of = np.logical_or.reduce


# --------------------------------------------------------------------- the search

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
        self._spot_keyed = bool(getattr(policy, "spot_keyed", False))
        #: whether the policy answers many states at once (``probs_many``: the same numbers as one by one)
        self._many = hasattr(policy, "probs_many")
        self._river: dict[tuple, np.ndarray] = {}
        #: one row: (runouts, its river bin on each), where the river rounds' values are worked out (_walk)
        self._at: tuple[np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        #: laid out for rows asked later (lay_out): the ends' values kept by bin, not yet by row
        self._lazy = False
        #: lay_out's layout: our actions' nodes and, per shape of river round, (its ends, their flat values)
        self._plans: list[_Plan] = []
        self._flats: list[tuple[list[int], np.ndarray]] = []
        if runouts is not None:
            # after the flop many rows' all-ins are valued by exact ranks, as act's one row is: a policy plays as act
            exact = root.round > 0
            self.cont = _Moves(runouts, bins, w0, ours, exact)
            self.allin = self.cont if allin is None else _Moves(allin, bins, w0, ours, exact)

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
        actions, plans = self._lay_out_round()
        ends = (self._continuations(), self._all_ins())
        return actions, np.stack([_fold_up(p, ends) for p in plans], axis=1)

    def _lay_out_round(self) -> tuple[list[Action], list["_Plan"]]:
        """Our actions at the root and the current round laid out below each (its ends collected to be valued)."""
        actions = our_actions(self.root, OUR_FRACTIONS if self.root.round else PREFLOP_FRACTIONS)
        self._leaves: list[tuple[State, np.ndarray]] = []
        self._allins: list[tuple[float, np.ndarray]] = []
        return actions, self._children(self.root, actions, np.ones(NUM_BINS), own=False)

    def lay_out(self) -> list[Action]:
        """Our actions at the root, the search laid out for :meth:`row_values`: a table's rows (``ours`` every pair)
        before the flop, for a few rows at a time.

        The opponent's side (every node's reach, the policy's chances, the
        river rounds' values by bin) is worked out once, as
        :meth:`action_values` does; what is per row (the means over the
        runouts, the all-ins' showdowns, the best of ours) is left to
        :meth:`row_values`, for the rows asked only.
        """
        assert self.runouts is not None and self.m == NUM_PAIRS and not self.allin.deferred
        self._lazy = True
        actions, self._plans = self._lay_out_round()
        self._continuations()
        self._leaves = []  # their river states are no longer needed: the layout is kept
        return actions

    def row_values(self, rows: np.ndarray) -> np.ndarray:
        """(len(rows), actions): the rows ``rows`` of :meth:`action_values` (every pair), bit for bit, from
        :meth:`lay_out`'s layout: the same operations on each row's own numbers."""
        assert self._lazy
        later = np.zeros((sum(len(members) for members, _ in self._flats), len(rows)))
        for members, flat in self._flats:
            later[members] = self.cont.mean_rows(flat, rows)
        shown = self.allin.showdown_rows(rows)

        def leaf(plan: _Plan) -> np.ndarray:
            kind, body = plan
            if kind == _FOLDS:
                return np.full(len(rows), body)
            stake, g = body  # an all-in (_SHOWN): as _end_of_round values it for every row
            return stake * (shown * g).sum(axis=1)

        return np.stack([_fold_up(p, (later, np.zeros((0, len(rows)))), leaf) for p in self._plans], axis=1)

    def _after(self, state: State, action: Action, g: np.ndarray, own: bool = False) -> "_Plan":
        """The node after ``action`` in ``state`` (``own``: a state of the layout's own, no longer needed as it is:
        the action is applied to it in place rather than to a copy)."""
        s = state if own else state.copy()
        s.apply_unchecked(action)
        return self._node(s, g)

    # ----------------------------------------------------------------- the current round, laid out

    def _children(self, s: State, actions: list[Action], g: np.ndarray, own: bool) -> list["_Plan"]:
        """The nodes after each of our ``actions`` in ``s`` (``own``: the last takes ``s`` itself); the opponent's
        chances at those where it acts next asked together (one range meets every bet of ours)."""
        last = len(actions) - 1
        states = []
        for i, action in enumerate(actions):
            child = s if own and i == last else s.copy()
            child.apply_unchecked(action)
            states.append(child)
        asked: dict[int, np.ndarray] = {}
        if self._many:
            theirs = [i for i, c in enumerate(states)
                      if not c.finished and c.round == self.root.round and c.current_player != self.me]
            if len(theirs) > 1:
                hist = self._hist(self.mass * g)
                many = self.policy.probs_many([states[i] for i in theirs], hist)  # type: ignore[attr-defined]
                asked = {i: self._legal(states[i], p) for i, p in zip(theirs, many)}
        return [self._node(child, g, asked.get(i)) for i, child in enumerate(states)]

    def _node(self, s: State, g: np.ndarray, probs: np.ndarray | None = None) -> "_Plan":
        """The node of ``s`` (its own state) reached with ``g``; ``probs``: the opponent's chances there, when
        already asked."""
        if s.finished or s.round != self.root.round:
            return self._end_of_round(s, g)
        # s is this node's own state: its last child takes it rather than a copy
        if s.current_player == self.me:
            return (_BEST, self._children(s, reply_actions(s), g, own=True))
        if probs is None:
            probs = self._probs(s, self.mass * g)
        # one pass for the three rows (ndarray.any's own reduction, without its wrapper)
        some: list[bool] = _any_of(probs, axis=1).tolist()
        kinds = [kind for kind in (_F, _C, _R) if some[kind]]
        reach = g * probs  # every child's reach in one pass, row by row
        parts = []
        for kind in kinds:
            action = (FOLD, CALL, None)[int(kind)] or self.policy.raise_to(s)
            parts.append(self._after(s, action, reach[int(kind)], kind == kinds[-1]))
        return (_SUM, parts)

    def _end_of_round(self, s: State, g: np.ndarray) -> "_Plan":
        me, opp = self.me, self.opp
        # the engine's terminal value: a fold pays what it pays whatever the cards; a showdown won (share 1) pays
        # the bet both matched, the stake a signed share is multiplied by
        if s.folded[me] or s.folded[opp]:
            value = s.heads_up_value(me, _WON, opp=opp)
            if self._lazy:  # the same for every row: made per row asked (row_values)
                return (_FOLDS, value * float(_add_up(self.mass * g)))
            return (_VALUE, np.full(self.m, value * float(_add_up(self.mass * g))))
        if self.runouts is None:  # a showdown on the river
            stake = s.heads_up_value(me, _WON, opp=opp)
            return (_VALUE, stake * signed_sums(self.mass * g)[self.our_bins])
        if s.finished:  # all-in: the board runs out
            stake = s.heads_up_value(me, _WON, opp=opp)
            if self.allin.deferred:  # valued with the others at once (_all_ins)
                self._allins.append((stake, g))
                return (_ALLIN, len(self._allins) - 1)
            if self._lazy:  # valued per row asked (row_values)
                return (_SHOWN, (stake, g))
            return (_VALUE, stake * (self.allin.showdown * g).sum(axis=1))
        river = s  # the state _after made for this node alone: played on to the river in place
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
        if self._spot_keyed and self._many:
            self._ask_rivers(skeletons)
        if self.m == 1:  # one row: its values at its own river bins only (see _walk)
            self._at = self.cont.our_cells
        for members in groups.values():
            batch = [skeletons[i] for i in members]
            # every node's chips (a fold's, a showdown's stake), one row per end: read by column in the walk
            chips = np.array([[value for _, value, _, _ in skeleton.nodes] for skeleton in batch])
            q = reach[members]
            if self.m == 1:
                out[members] = self.cont.mean_at(self._walk(batch, 0, q, chips))
                continue
            values = self._walk(batch, 0, q, chips)
            if values.shape != q.shape:  # a fold's values are kept by runout only (the same for every bin)
                values = np.broadcast_to(values, q.shape)
            if self._lazy:  # kept by bin: the rows asked later read them (row_values)
                self._flats.append((members, self.cont.flat(values)))
                continue
            out[members] = self.cont.mean(values)
        return out

    def _all_ins(self) -> np.ndarray:
        """(all-ins, m): the value of every all-in end laid out for many rows after the flop, all ends at once,
        by exact ranks on every all-in runout (one row's :attr:`_Moves.showdown`, for every row)."""
        if not self._allins:
            return np.zeros((0, self.m))
        stakes = np.array([stake for stake, _ in self._allins])
        return stakes[:, None] * self.allin.exact_all_ins(np.stack([g for _, g in self._allins]))

    def _walk(self, batch: list["Skeleton"], node: int, q: np.ndarray, chips: np.ndarray) -> np.ndarray:
        """Values (ends, R, NUM_BINS) by our river bin of river rounds of one shape; ``q`` the opponent's reach,
        ``chips`` (ends, nodes) each node's chips.  A fold's values are (ends, R, 1), the same for every bin: the
        sums and maxima above it broadcast them, element by element as the full array would be.  For one row
        (``m`` 1) every node's values are (ends, R, 1), at the row's own river bin on each runout (``_at``): the
        only values its mean reads, each worked out by the same operations as in the full array."""
        kind, _, children, _ = batch[0].nodes[node]
        if kind == FOLDED:
            return chips[:, node, None, None] * _add_up(q, axis=2, keepdims=True)
        if kind == SHOWDOWN:
            if self.m == 1:
                return chips[:, node, None, None] * _signed_at(q, self._at)
            return chips[:, node, None, None] * signed_sums(q)
        if kind == OURS:  # we know the runout: the best per runout and bin
            best = self._walk(batch, children[0], q, chips)
            for c in children[1:]:
                best = np.maximum(best, self._walk(batch, c, q, chips))
            return best
        each = [self._river_probs(s, node) for s in batch]
        first = each[0]
        # (ends, 3, 1, B), or (1, 3, 1, B) where every end asks the same spot (the products broadcast alike)
        probs = (first[None] if all(p is first for p in each) else np.array(each))[:, :, None, :]
        total = None  # the first child's values as they are: adding them to zeros changes nothing
        for k, c in children:  # each child's reach (ends, R, B), only the legal actions'
            part = self._walk(batch, c, q * probs[:, k], chips)
            total = part if total is None else total + part
        assert total is not None  # an opponent's node has a child for each legal action
        return total

    # ----------------------------------------------------------------- the opponent

    def _river_probs(self, skeleton: "Skeleton", node: int) -> np.ndarray:
        """:meth:`_probs` at an opponent's node of a river round, once per spot for a spot-keyed policy (its pot-
        sized bets, checks and raises recur from one river round to the next)."""
        state = skeleton.nodes[node][3]
        assert state is not None  # an opponent's node keeps its state
        if not self._spot_keyed:
            return self._probs(state, None)
        key = skeleton.spots[node]
        hit = self._river.get(key)
        if hit is None:
            hit = self._river[key] = self._probs(state, None)
        return hit

    def _ask_rivers(self, skeletons: list["Skeleton"]) -> None:
        """The chances at every spot of these river rounds not asked yet, from a policy that answers many at once
        (``probs_many``): what :meth:`_river_probs` would ask one by one, the same numbers."""
        wanted: dict[tuple, State] = {}
        for skeleton in skeletons:
            for node, key in enumerate(skeleton.spots):
                if key is not None and key not in self._river and key not in wanted:
                    state = skeleton.nodes[node][3]
                    assert state is not None  # an opponent's node keeps its state
                    wanted[key] = state
        if wanted:
            states = list(wanted.values())
            for key, state, probs in zip(wanted, states, self.policy.probs_many(states, None)):  # type: ignore[attr-defined]
                self._river[key] = self._legal(state, probs)

    def _probs(self, s: State, weight: np.ndarray | None) -> np.ndarray:
        """Its (fold, call, raise) chances per bin where it acts in ``s``, by the policy, made legal.

        ``weight`` is its weight per bin (None on a runout's river: the policy reads its usual ranges there).
        """
        hist = None if weight is None else self._hist(weight)
        return self._legal(s, self.policy.probs(s, hist))

    @staticmethod
    def _hist(weight: np.ndarray) -> np.ndarray:
        """The opponent's range over the bins from its weight per bin (uniform where it weighs nothing)."""
        z = _add_up(weight)  # weight.sum(), without its wrapper
        return weight / z if z > 0 else np.full(NUM_BINS, 1.0 / NUM_BINS)

    def _legal(self, s: State, probs: np.ndarray) -> np.ndarray:
        """The policy's chances where it acts in ``s``, made legal: a raise where none is allowed is a call, a fold
        with nothing to call a check."""
        # made legal into fresh arrays (the policy's own are kept by it): filled row by row, which costs less than
        # stacking a list of rows
        if s.raise_bounds() is None:  # a raise is a call
            legal = np.zeros((3, NUM_BINS))
            legal[0] = probs[0]
            np.add(probs[1], probs[2], out=legal[1])
            probs = legal
        if s.to_call(self.opp) <= 0:  # a fold is a check
            legal = np.zeros((3, NUM_BINS))
            np.add(probs[0], probs[1], out=legal[1])
            legal[2] = probs[2]
            probs = legal
        return probs


def _signed_at(q: np.ndarray, at: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """``signed_sums(q)`` (q: (ends, R, NUM_BINS)) at one bin per runout (``at``: the runouts, their bins), as
    (ends, R, 1): the running sums over every bin, then the same subtractions at those bins alone."""
    c = np.add.accumulate(q, axis=-1)
    mine = c[:, at[0], at[1]]
    below = mine - q[:, at[0], at[1]]
    below -= c[:, :, -1] - mine  # below - above, above the total less the running sum
    return below[:, :, None]


_VALUE, _LATER, _ALLIN, _BEST, _SUM, _FOLDS, _SHOWN = range(7)
#: a laid-out node of the current round: (_VALUE, values (m,)), (_LATER | _ALLIN, end index),
#: (_BEST | _SUM, [children]); laid out for rows asked later (Search.lay_out): (_FOLDS, every row's value),
#: (_SHOWN, (stake, the opponent's reach)) of an all-in
_Plan = tuple


def _fold_up(plan: _Plan, ends: tuple[np.ndarray, np.ndarray],
             leaf: Callable[[_Plan], np.ndarray] | None = None) -> np.ndarray:
    """The values (m,) of a laid-out node, its ends valued in ``ends``: (those that go on, the all-ins), and
    the ends laid out for rows asked later by ``leaf``."""
    kind, body = plan
    if kind == _VALUE:
        return body
    if kind in (_LATER, _ALLIN):
        return ends[kind - _LATER][body]
    if kind >= _FOLDS:
        assert leaf is not None
        return leaf(plan)
    parts = [_fold_up(p, ends, leaf) for p in body]
    out = parts[0]
    for p in parts[1:]:
        out = np.maximum(out, p) if kind == _BEST else out + p
    return out


# --------------------------------------------------------------------- river rounds, built once

OURS, THEIRS, FOLDED, SHOWDOWN = range(4)
#: a node's place while its children are built
_PENDING: tuple = (OURS, 0.0, [], None)


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
    #: per node, where the opponent acts, what a spot-keyed policy's chances there depend on (``spot_key``)
    spots: tuple = ()
    #: every (state, raise) of the opponent's it was built with, in building order
    raises: tuple = ()
    #: the policy's ``raise_key`` on the river when it was built (None: the policy has none)
    raise_key: tuple | None = None
    #: per raise of ``raises``, the nodes of the subtree of its reply: (its first, one past its last)
    below: tuple = ()


#: river rounds kept: at most SKELETONS_KEPT starts (chips in, whose turn), the least recently used dropped first,
#: and SKELETON_VARIANTS rounds a start (built with other raise sizes); every one holds engine states, which
#: Python's collector walks on each full collection, so they are kept few
SKELETONS_KEPT = 512
SKELETON_VARIANTS = 4
_SKELETONS: dict[tuple, list[Skeleton]] = {}


def river_skeleton(s: State, me: int, opp: int, policy: OpponentPolicy) -> Skeleton:
    """The river round from ``s`` (engine states all the way), kept by its start and handed on only to a policy
    that raises as the one it was built with at every node where the opponent may raise.

    A round depends on the policy only through those raises (the tree above each is the same, and so the state
    it is asked in): asking them again is a few lookups where building is a tree of engine states.  Checked at
    every such node, not the first only: a round built with another policy's raise over our bet is never handed
    on.  A round kept for the start with other raises lends the new one everything but the replies to the raises
    that differ (:func:`_respliced`).
    """
    key = (s.game, tuple(s.spent), s.current_player, me, tuple(s.actions[s.round]), opp)
    kept = _SKELETONS.pop(key, None) or []
    _SKELETONS[key] = kept  # the most recently used last
    keyed = getattr(policy, "raise_key", None)
    raises_by = keyed(s.round) if keyed is not None else None
    # the policy's raise at each opponent's state, asked once: the rounds kept for a start share those states
    asked: dict[int, Action] = {}

    def raise_at(state: State) -> Action:
        hit = asked.get(id(state))  # every state asked is held by a kept round meanwhile: ids stay unique
        if hit is None:
            hit = asked[id(state)] = policy.raise_to(state)
        return hit

    for skeleton in kept:
        # the same raise key: the same raises at every node (a lookup); else each raise asked again
        if raises_by is not None and skeleton.raise_key == raises_by or \
                all(raise_at(state) == action for state, action in skeleton.raises):
            return skeleton
    skeleton = (_respliced(kept[0], raise_at, me, opp, policy, raises_by) if kept else None) or \
        _build(s, me, opp, policy, raises_by)
    kept.insert(0, skeleton)
    del kept[SKELETON_VARIANTS:]
    while len(_SKELETONS) > SKELETONS_KEPT:
        del _SKELETONS[next(iter(_SKELETONS))]
    return skeleton


def _build(s: State, me: int, opp: int, policy: OpponentPolicy, raises_by: tuple | None) -> Skeleton:
    """The river round from ``s`` built node by node (``s`` itself left as it is)."""
    nodes: list[tuple[int, float, list, State | None]] = []
    # each node's form and, where the opponent acts, its spot key, made as the node is (the same tuples the
    # finished list would give)
    shape: list[tuple] = []
    spots: list[tuple | None] = []
    raises: list[tuple[State, Action]] = []
    below: list[tuple[int, int]] = []  # per raise, the nodes of the reply's subtree
    limit = s.game.is_limit
    no_children: list = []  # shared by the ends (never grown)

    def build(state: State, own: bool = True) -> int:
        """The node of ``state`` and those below it (``own``: the state is this build's, to apply our last
        action to where a node of ours keeps no state: one copy fewer per such node)."""
        index = len(nodes)
        nodes.append(_PENDING)
        shape.append(())
        spots.append(None)
        if state.finished:
            # the engine's terminal value: what the fold pays, or the stake a won showdown pays
            kind = FOLDED if state.folded[me] or state.folded[opp] else SHOWDOWN
            nodes[index] = (kind, state.heads_up_value(me, _WON, opp=opp), no_children, None)
            shape[index] = (kind, ())
            return index
        if state.current_player == me:
            # opening the round: our bets; answering a raise: fold or call, and in limit the raise too (the game
            # caps the round)
            if me not in state.actors[state.round]:
                actions = our_actions(state, RIVER_FRACTIONS)
            else:
                actions = reply_actions(state) if limit else _fold_or_call(state)
            last = len(actions) - 1
            children = []
            for i, action in enumerate(actions):
                child = state if own and i == last else state.copy()
                child.apply_unchecked(action)
                children.append(build(child))
            nodes[index] = (OURS, 0.0, children, None)
            shape[index] = (OURS, tuple(children))
            return index
        pairs = []
        for kind in state.legal_actions():  # fold, call, raise: in that order
            slot = -1
            if kind == _R:
                reply = policy.raise_to(state)
                raises.append((state, reply))
                slot = len(below)
                below.append((0, 0))
            else:
                reply = FOLD if kind == _F else CALL
            child = state.copy()
            child.apply_unchecked(reply)
            pairs.append((int(kind), build(child)))
            if slot >= 0:
                below[slot] = (pairs[-1][1], len(nodes))
        nodes[index] = (THEIRS, 0.0, pairs, state)
        shape[index] = (THEIRS, tuple(pairs))
        spots[index] = spot_key(state, opp)  # the node's state is its own: no child is applied to it
        return index

    build(s, own=False)  # the caller's state is left as it is
    return Skeleton(nodes, tuple(shape), tuple(spots), tuple(raises), raises_by, tuple(below))


def _respliced(template: Skeleton, raise_at: Callable[[State], Action], me: int, opp: int,
               policy: OpponentPolicy, raises_by: tuple | None) -> Skeleton | None:
    """The round ``template`` would have been built as with the policy's raises now (``raise_at``), the replies to
    the raises that differ built anew and the rest shared: every node outside them is reached without those raises,
    so a build from the start makes the very same (and a raise's subtree is built right after it: its raises follow
    it in ``raises``).  None where a new reply's subtree has another form (the round is built whole)."""
    nodes, spots, below = list(template.nodes), list(template.spots), list(template.below)
    raises: list[tuple[State, Action]] = []
    old = template.raises
    i = 0
    while i < len(old):
        state, action = old[i]
        first, end = template.below[i]
        reply = raise_at(state)
        if reply == action:
            raises.append(old[i])
            i += 1
            continue
        child = state.copy()
        child.apply_unchecked(reply)
        sub = _build(child, me, opp, policy, raises_by)
        if len(sub.nodes) != end - first or _shifted(sub.shape, first) != template.shape[first:end]:
            return None
        nodes[first:end] = [(kind, value, _shifted_children(kind, children, first), kept)
                            for kind, value, children, kept in sub.nodes]
        spots[first:end] = sub.spots
        raises.append((state, reply))
        raises.extend(sub.raises)  # in place of the old subtree's, which follow raise i
        below[i + 1:i + 1 + len(sub.raises)] = [(a + first, b + first) for a, b in sub.below]
        i += 1 + len(sub.raises)
    return Skeleton(nodes, template.shape, tuple(spots), tuple(raises), raises_by, tuple(below))


def _shifted_children(kind: int, children: list, offset: int) -> list:
    """A node's children, the nodes numbered from ``offset``: ours a list of nodes, the opponent's (kind, node)."""
    if kind == OURS:
        return [c + offset for c in children]
    if kind == THEIRS:
        return [(k, c + offset) for k, c in children]
    return children


def _shifted(shape: tuple, offset: int) -> tuple:
    """The form of a subtree (``Skeleton.shape``), its nodes numbered from ``offset``."""
    return tuple((kind, tuple(_shifted_children(kind, list(children), offset))) for kind, children in shape)


def all_pairs() -> np.ndarray:
    """Every pair's index: the rows of a policy."""
    return np.arange(NUM_PAIRS)
