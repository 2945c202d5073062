"""Re-solving decisions of a two-player game from a blueprint's policy (issue 29's hold'em, issue 30's no-limit).

From ``start_round`` on (the river by default, see docs/resolving-play.md
for why not the turn), the first decision of the hand there builds the
subgame rooted where that round's betting began, with both players'
ranges the blueprint's reach along the real history and the real board,
and re-solves it safely for the player to act (``gadget.resolve``).  Every
later decision of the hand reads the same solution at its node and board,
so the hand is played by one strategy.  In limit games every action of
the opponent is in the subgame's tree; no translation is needed.
Solutions are kept per (betting before the root, board, player, the
opponent's off-ladder sizes), a few at a time.  A solve the clock cuts
short is not used: the caller plays the blueprint (``rows`` returns None),
and so does every later decision of that subgame.  With a match clock, a
solve whose measured pace (seconds per iteration and decision node of the
last solves) says it cannot finish in the seconds it may take is not
started at all (``skipped``): its time stays in the bank for one that can.

No-limit games (docs/resolving-hunl.md) add three things: the rows are
over the table's own actions at the state (``actions``), the subgame's
betting is ``sizes(root)`` plus, for the opponent, ``extra``: the raise-to
totals the opponent really bet this round that the ladder lacks (nested
solving: a new one means a new solve, rooted where we answer the last of
them, the opponent's range read through it: rooted at the street's start
the re-solved opponent may never make that size, and the answer to a size
with no reach is near uniform), and a real action is read on the table's
columns by translation for the ranges (``columns.action_weights``).  A
``MatchClock`` spreads the seconds over the match.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable, Collection

import numpy as np

from ...engine import Action, ActionType, State, Step
from ...gamedef import GameDef
from ..subgame import BetSizes, SubgameResult
from ..subgame.tree import DECISION, build_tree
from .clock import Budget, MatchClock
from .columns import action_weights, find, to_columns
from .gadget import COMMIT, ResolveGadget, check_commit, resolve
from .ranges import policy_ranges

#: solutions remembered (a hand needs one; the others serve policy() and replays)
KEEP = 4

BlueprintRows = Callable[[State], np.ndarray]
#: the actions a table's rows are over at a state (no-limit)
TableActions = Callable[[State], tuple[Action, ...]]
#: root state -> the subgame's betting abstraction (no-limit; the opponent's real sizes are added to it)
SizesFor = Callable[[State], BetSizes]


@dataclass(frozen=True)
class ResolveSpot:
    """Where a decision's re-solve is rooted: the solutions' key, the bare root, the actions before it, the board,
    the player it is solved for and the subgame's sizes (None in limit games)."""

    key: tuple
    root: State
    before: int
    board: tuple[int, ...]
    player: int
    sizes: BetSizes | None


def bare(state: State) -> State:
    """A state with ``state``'s betting and no cards (the cards enter through the engine's deal operations)."""
    out = State(state.game, state.hand_id)
    for acts in state.actions:
        for action in acts:
            out.apply_unchecked(action)
    return out


def round_start(state: State, round_: int) -> tuple[State, int]:
    """The state where round ``round_``'s betting began, and the number of the hand's actions before it."""
    steps = state.steps()
    for step in steps:
        if step.round >= round_:
            return step.before, step.index
    return state.copy(), len(steps)


class Resolver:
    """Re-solved rows for the player to act, from ``start_round`` on: (holdings, 3) fold/call/raise in limit games,
    (holdings, len(actions(state))) over the table's actions in no-limit ones."""

    def __init__(self, game: GameDef, blueprint: BlueprintRows, budget: Budget | None = None,
                 start_round: int | None = None, *, actions: TableActions | None = None,
                 sizes: SizesFor | None = None, clock: MatchClock | None = None, last_classes: int | None = None,
                 early: Budget | None = None, depth_limited: Collection[int] = (), skip: Collection[int] = (),
                 commit: float = COMMIT) -> None:
        if game.num_players != 2:
            raise ValueError("re-solving plays two-player games")
        if not game.is_limit and (actions is None or sizes is None):
            raise ValueError("re-solving a no-limit game needs the table's actions and the subgame's bet sizes")
        self.game = game
        self.blueprint = blueprint
        self.actions = actions if not game.is_limit else None
        self.sizes = sizes if not game.is_limit else None
        self.clock = clock
        self.budget = budget or Budget()
        self.start_round = game.num_rounds - 1 if start_round is None else start_round
        if last_classes is not None and last_classes < 1:
            raise ValueError(f"the last card's classes must number at least 1, got {last_classes}")
        #: nested solving: every round from ``start_round`` is re-solved at its own start, and a subgame rooted
        #: before the last round deals the last card as this many classes (``subgame.chance``); None: one subgame
        #: from ``start_round`` serves the rest of the hand, every card dealt exactly
        self.last_classes = last_classes
        #: the budget of a solve rooted before the last round (None: ``budget``)
        self.early = early
        #: rounds whose subgames stop where their betting ends, the rest checked down at the leaves
        #: (``subgame.leaves``), and rounds not re-solved at all (the blueprint plays them)
        self.depth_limited = frozenset(depth_limited)
        self.skip = frozenset(skip)
        check_commit(commit)  # before any solve: a bad share is refused where it is given
        #: the share of the opponent entering a re-solve with its blueprint range and no Terminate (``gadget``)
        self.commit = commit
        if self.depth_limited & {game.num_rounds - 1}:
            raise ValueError("the last round cannot be depth-limited: its subgame ends with the hand")
        self.solutions: OrderedDict[tuple, SubgameResult | None] = OrderedDict()
        self.solves = 0
        self.cut_short = 0
        #: decisions whose history the solved tree did not have (played from the blueprint)
        self.missed = 0
        #: solves whose tree has the opponent's off-ladder sizes in it (nested solving)
        self.nested = 0
        #: with a match clock: solves not started because the measured pace says they would not finish in time
        self.skipped = 0
        #: seconds a solve took per iteration and decision node (the last solves', with a match clock), of solves
        #: rooted in the last round and (``early_pace``) before it
        self.pace: float | None = None
        self.early_pace: float | None = None
        #: per finished solve, chips a hand of the subgame: how much less the opponent's best response wins
        #: than against the blueprint (weighted by its blueprint reach), and the part of holdings where it wins more
        self.margins: list[tuple[float, float]] = []
        #: per finished solve: the DCFR iterations it ran (fewer than the cap when it reached its target)
        self.iterations: list[int] = []
        self._rooted: dict[int, list[int]] = {}  # the same per root round
        #: per finished solve: the root pot, and the opponent's best-response value (chips a hand, its blueprint
        #: reach weighing its holdings) against the blueprint and against the re-solve
        self.values: list[tuple[float, float, float]] = []

    def active(self, state: State) -> bool:
        """Whether decisions in ``state`` are re-solved (asked at every decision: it counts the hand on the clock)."""
        if self.clock is not None:
            self.clock.see(state.hand_id)
        return state.round >= self.start_round and state.round not in self.skip and not state.finished

    def rows(self, state: State, deadline: float | None = None, cap: bool = True) -> np.ndarray | None:
        """The re-solved rows in ``state``; None when not re-solving here or the clock cut the solve short.

        ``cap`` False solves without the time cap (``policy()``: the rows
        are the iteration count's, whatever the clock).
        """
        if not self.active(state):
            return None
        spot = self.spot(state)
        if spot.key in self.solutions:
            self.solutions.move_to_end(spot.key)
            result = self.solutions[spot.key]
        else:
            limit = self._limit(state, deadline, spot) if cap else None
            if limit is not None and self.clock is not None and self._too_long(spot, limit):
                self.skipped += 1  # it would be cut short: keep the seconds for a solve that can finish
                result = None
            else:
                t0 = time.perf_counter()
                result = self._solve(state, spot, limit)
                if self.clock is not None and cap:
                    self.clock.charge(time.perf_counter() - t0)
            if result is None and not cap:
                return None
            self.solutions[spot.key] = result
            while len(self.solutions) > KEEP:
                self.solutions.popitem(last=False)
        if result is None:
            return None
        return self._read(result, state, spot.before)

    def spot(self, state: State) -> ResolveSpot:
        """The subgame a decision in ``state`` is read from (what a solve is kept by, its root, board and sizes)."""
        start = state.round if self.last_classes is not None else self.start_round
        root, before = round_start(state, start)
        player = state.current_player
        need = self.game.board_cards_through(start)
        board = tuple(int(c) for c in state.board[:need])
        sizes = None
        extra: tuple[int, ...] = ()
        if self.sizes is not None:
            ladder = self.sizes(root)
            extra, last = self._extra(state, ladder, root, before, player)
            if last is not None:
                # rooted where the opponent made its last size the ladder lacks, its range the blueprint's reach
                # with that size read by translation: from the street's start the re-solved opponent may never
                # make it, and the answer to a size with no reach is whatever regret matching leaves (near uniform)
                root = last.before.copy().apply_unchecked(last.action)
                before = last.index + 1
            sizes = replace(ladder, extra_to=extra, extra_player=1 - player)
        key: tuple = (tuple(tuple(tuple(a) for a in r) for r in root.actions), board, player)
        if self.sizes is not None:
            key += (extra,)
        return ResolveSpot(key, bare(root), before, board, player, sizes)

    def ranges(self, state: State, spot: ResolveSpot) -> tuple[np.ndarray, np.ndarray]:
        """Both players' blueprint reach at the spot's root (over ``holdings(game)``)."""
        read = None if self.actions is None else self._read_action
        # our own range is what we played to get there: the earlier solutions' rows where they stand (a later
        # street's root, or a root inside the street after the opponent's off-ladder size), the blueprint's else
        rows = self._played_rows(spot.player)
        out = policy_ranges(state, rows, before=spot.before, read=read)
        opp = 1 - spot.player
        if out[opp].sum() <= 0 and self.sizes is not None and spot.key[-1]:
            # the blueprint never makes the opponent's off-ladder size (read by translation, its weight is 0): its
            # range is the one it made it from, unconditioned
            before = policy_ranges(state, rows, before=spot.before - 1, read=read)
            out = (before[0], out[1]) if opp == 0 else (out[0], before[1])
        return out

    def _played_rows(self, player: int) -> BlueprintRows:
        """Rows as played: ``player``'s from the earlier rounds' solutions where they stand (nested solving: its range
        at a later root is what it really played to get there), the blueprint's elsewhere."""
        def rows(state: State) -> np.ndarray:
            if state.current_player == player and self.start_round <= state.round and state.round not in self.skip:
                spot = self.spot(state)
                earlier = self.solutions.get(spot.key)
                if earlier is not None:
                    read = self._read(earlier, state, spot.before)
                    if read is not None:
                        return read
            return self.blueprint(state)
        return rows

    def budget_for(self, spot: ResolveSpot) -> Budget:
        """The budget of the solve at ``spot``: ``early``'s before the last round when given, ``budget``'s else."""
        if self.early is not None and self._early(spot):
            return self.early
        return self.budget

    def _early(self, spot: ResolveSpot) -> bool:
        """Whether ``spot``'s subgame is rooted before the last round (its own budget, pace and card classes)."""
        return spot.root.round < self.game.num_rounds - 1

    def _too_long(self, spot: ResolveSpot, limit: float) -> bool:
        """Whether the pace measured so far says a solve of ``spot`` would not finish within ``limit`` seconds."""
        pace = self.early_pace if self._early(spot) else self.pace
        if pace is None:
            return False
        decisions = build_tree(self.game, spot.root, spot.board, spot.sizes,
                               depth_limited=spot.root.round in self.depth_limited).num_decisions
        return pace * self.expected_iterations(self.budget_for(spot), spot.root.round) * decisions > limit

    def expected_iterations(self, budget: Budget | None = None, round_: int | None = None) -> float:
        """The iterations the next solve is expected to run: the cap, or with a target the last solves' mean (those
        rooted in ``round_`` when given)."""
        budget = budget or self.budget
        done = self.iterations if round_ is None else self._rooted.get(round_, [])
        if budget.target is None or not done:
            return float(budget.iterations)
        recent = done[-20:]
        return sum(recent) / len(recent)

    def _limit(self, state: State, deadline: float | None, spot: ResolveSpot) -> float:
        limit = self.budget_for(spot).limit(deadline)
        if self.clock is not None:
            limit = min(limit, self.clock.allowance(state.hand_id))
        return limit

    def _extra(self, state: State, ladder: BetSizes, root: State, before: int,
               player: int) -> tuple[tuple[int, ...], Step | None]:
        """The raise-to totals the opponent bet this round that ``ladder`` (the root's sizes) did not offer where it
        bet them, and the step of the last of them (None: none)."""
        street = tuple(root.spent)
        out = set()
        last = None
        for step in state.steps(before):
            if step.player != player and step.action.type == ActionType.RAISE:
                if int(step.action.size) not in ladder.raise_sizes(step.before, street):
                    out.add(int(step.action.size))
                    last = step
        return tuple(sorted(out)), last

    def _solve(self, state: State, spot: ResolveSpot, limit: float | None) -> SubgameResult | None:
        ranges = self.ranges(state, spot)
        player = spot.player
        if ranges[player].sum() <= 0 or ranges[1 - player].sum() <= 0:
            return None  # a history the blueprint never plays: nothing to re-solve from
        budget = self.budget_for(spot)
        iterations = budget.iterations
        early = self._early(spot)
        t0 = time.perf_counter()
        result, alternative = resolve(self.game, spot.root, spot.board, ranges, player, self.node_rows,
                                      spot.sizes, iterations=iterations, time_limit=limit, target=budget.target,
                                      settle=budget.settle, check_every=budget.check_every,
                                      last_classes=self.last_classes if early else None,
                                      depth_limited=spot.root.round in self.depth_limited, commit=self.commit)
        if self.clock is not None:  # the whole solve's seconds, setup included, per iteration and decision node
            pace = (time.perf_counter() - t0) / (max(1, result.iterations) * max(1, result.tree.num_decisions))
            if early:
                self.early_pace = pace if self.early_pace is None else 0.5 * (self.early_pace + pace)
            else:
                self.pace = pace if self.pace is None else 0.5 * (self.pace + pace)
        self.solves += 1
        if spot.sizes is not None and spot.sizes.extra_to:
            self.nested += 1
        gadget = result.subgame.cfr.gadget
        if result.iterations < iterations and not (isinstance(gadget, ResolveGadget) and gadget.reached):
            self.cut_short += 1
            return None
        self.iterations.append(result.iterations)
        self._rooted.setdefault(spot.root.round, []).append(result.iterations)
        prep = result.subgame.prep
        reach = ranges[1 - player][prep.hands[1 - player].rows]
        diff = alternative - result.evaluation.best_cfv[1 - player]
        self.margins.append((float(reach @ diff) / prep.normaliser,
                             float(reach @ np.maximum(-diff, 0)) / prep.normaliser))
        self.values.append((result.subgame.root_pot, float(reach @ alternative) / prep.normaliser,
                            float(reach @ result.evaluation.best_cfv[1 - player]) / prep.normaliser))
        return result

    def _read_action(self, before: State, action: Action) -> list[tuple[int, float]]:
        assert self.actions is not None
        return action_weights(before, action, self.actions(before))

    def node_rows(self, _i: int, node, state: State, board: tuple[int, ...]) -> np.ndarray:
        """The blueprint's rows at a subgame node in the node's action order (``gadget.RowFn``)."""
        s = state.copy().deal_board(board[len(state.board):])  # the subgame's states are bare (``bare``)
        if self.actions is None:
            return self.blueprint(s)[:, [int(a.type) for a in node.actions]]
        return self.blueprint(s) @ to_columns(self.actions(s), node.actions)

    def _read(self, result: SubgameResult, state: State, before: int) -> np.ndarray | None:
        sub = result.subgame
        nodes = sub.tree.nodes
        node = 0
        for step in state.steps(before):
            n = nodes[node]
            while n.kind != DECISION:  # a chance node: its one child
                node = n.children[0]
                n = nodes[node]
            if self.actions is None:
                kinds = [int(a.type) for a in n.actions]
                node = n.children[kinds.index(int(step.action.type))]
                continue
            i = find(n.actions, step.action)
            if i < 0:  # not in the tree (our own size the ladder lacks): the blueprint plays
                self.missed += 1
                return None
            node = n.children[i]
        while nodes[node].kind != DECISION:
            node = nodes[node].children[0]
        n = nodes[node]
        need = self.game.board_cards_through(state.round)
        b = sub.board_index(n.group, state.board[:need])
        out = np.array(self.blueprint(state), dtype=np.float64)
        live = sub.prep.hands[n.player].rows
        out[live] = 0.0
        rows = result.strategy[node]
        assert rows is not None  # a decision node's average strategy
        if self.actions is None:
            out[np.ix_(live, np.array([int(a.type) for a in n.actions]))] = rows[:, b, :].T
        else:
            out[live] = rows[:, b, :].T.astype(np.float64) @ to_columns(n.actions, self.actions(state))
        return out / out.sum(axis=1, keepdims=True)  # the solver's float32 rows, summing to 1 in float64
