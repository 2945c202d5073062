"""The public face of the subgame solver: solve a range-vs-range subgame to a target or a deadline.

Typical use::

    sub = Subgame(game, state, board, (range0, range1), BetSizes())
    result = sub.solve(target_pct=0.5, time_limit=2.0)
    result.exploitability_pct        # % of the pot at the root
    result.action_probs(node, board_cards, holding_row)   # the average strategy
    result.cfv[1]                    # the opponent's counterfactual values per holding (safe re-solving)

Ranges are weights over ``acpcbot.holdings.holdings(game)`` (1,326 rows in
hold'em, 6 in Leduc); holdings the board blocks or with weight 0 are left
out of every array.  Values are chips of the whole hand (zero-sum), per
holding: ``cfv[p][row]`` is the counterfactual value (the opponent's range
weight and chance already in it), ``ev[p][row]`` the same divided by the
opponent weight the holding can meet, i.e. its expected payoff.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ...engine import State
from ...gamedef import GameDef
from ...holdings import holdings
from .abstraction import BetSizes
from .best_response import Evaluation, evaluate
from .dcfr import DCFR
from .hands import player_hands
from .passes import Workspace, by_node
from .prepared import Prepared, prepare
from .tree import DECISION, SubgameError, SubgameTree, build_tree


@dataclass
class SubgameResult:
    """What a solve returns: the average strategy, exploitability, per-holding values, and the run's history."""

    subgame: "Subgame"
    strategy: list[np.ndarray | None]  # per node: (A, B, H) over the actor's live holdings; None off decisions
    iterations: int
    seconds: float
    evaluation: Evaluation
    history: list[tuple[int, float, float]] = field(default_factory=list)  # (iteration, seconds, expl % pot)

    @property
    def tree(self) -> SubgameTree:
        """The subgame's tree."""
        return self.subgame.tree

    @property
    def exploitability(self) -> float:
        """Half the sum of both players' best-response values, chips a hand."""
        return self.evaluation.exploitability

    @property
    def exploitability_pct(self) -> float:
        """Exploitability in % of the pot at the root (SOLVER_SPOTS.md's convention)."""
        return 100.0 * self.exploitability / self.subgame.root_pot

    @property
    def cfv(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, counterfactual values of the average strategy over all holdings (0 off the range)."""
        ev = self.evaluation.cfv
        assert ev is not None
        return self.subgame.expand(0, ev[0]), self.subgame.expand(1, ev[1])

    @property
    def best_cfv(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, counterfactual values of its best response to the other's average strategy."""
        br = self.evaluation.best_cfv
        return self.subgame.expand(0, br[0]), self.subgame.expand(1, br[1])

    @property
    def ev(self) -> tuple[np.ndarray, np.ndarray]:
        """Per player, expected payoff (chips) of each holding against the opponent's range that it can meet."""
        out = []
        for p, cfv in enumerate(self.cfv):
            meet = self.subgame.opponent_mass(p)
            out.append(np.divide(cfv, meet, out=np.zeros_like(cfv), where=meet > 0))
        return out[0], out[1]

    def action_probs(self, node: int, board: Sequence[int], row: int) -> dict[str, float]:
        """The average strategy at decision ``node`` on ``board`` for holding ``row`` of ``holdings(game)``."""
        n = self.tree.nodes[node]
        if n.kind != DECISION:
            raise SubgameError(f"node {node} is not a decision node")
        b = self.subgame.board_index(n.group, board)
        h = self.subgame.live_index(n.player, row)
        rows = self.strategy[node]
        assert rows is not None  # every decision node has its average strategy
        probs = rows[:, b, h] if h >= 0 else np.full(len(n.children), 1.0 / len(n.children))
        return {label: float(p) for label, p in zip(n.labels, probs)}


class Subgame:
    """A built and prepared subgame; ``solve`` runs DCFR on it (and may be called again to continue).

    ``showdown_mode``: how complete boards' showdowns are valued (``prepared.SHOWDOWN_MODES``): "auto" takes the
    rank-sorted sweep where it measured faster (one board, wide ranges) and the win/lose matrix elsewhere.
    """

    def __init__(self, game: GameDef, state: State, board: Sequence[int], ranges: Sequence[np.ndarray],
                 sizes: BetSizes | None = None, alpha: float = 1.5, beta: float = 0.0, gamma: float = 3.0,
                 last_classes: int | None = None, depth_limited: bool = False, showdown_mode: str = "auto") -> None:
        if len(ranges) != 2:
            raise SubgameError(f"a subgame needs two ranges, got {len(ranges)}")
        board = tuple(int(c) for c in board)
        self.game = game
        self.tree = build_tree(game, state, board, sizes, last_classes, depth_limited)
        hands = (player_hands(game, ranges[0], board, "player 0"), player_hands(game, ranges[1], board, "player 1"))
        self.prep: Prepared = prepare(self.tree, hands, showdown_mode)
        if self.prep.normaliser <= 0:
            raise SubgameError("the two ranges have no pair of holdings without a shared card")
        self.root_pot = float(sum(state.spent))
        self.workspace = Workspace(self.prep)
        self.cfr = DCFR(self.workspace, alpha, beta, gamma)
        self.seconds = 0.0
        self._board_rows = [{tuple(b): i for i, b in enumerate(g.boards.tolist())} for g in self.tree.groups]

    def expand(self, player: int, live: np.ndarray) -> np.ndarray:
        """A vector over the player's live holdings as one over all holdings (0 elsewhere)."""
        out = np.zeros(len(holdings(self.game)))
        out[self.prep.hands[player].rows] = live
        return out

    def opponent_mass(self, player: int) -> np.ndarray:
        """Per holding of ``player``: the opponent's range weight sharing no card with it."""
        p, o = self.prep.hands[player], self.prep.hands[1 - player]
        meet = (p.member @ o.member.T == 0).astype(np.float64) @ o.weights
        return self.expand(player, meet)

    def board_index(self, group: int, board: Sequence[int]) -> int:
        """The index of ``board`` (dealing order) in board group ``group``."""
        key = tuple(int(c) for c in board)
        index = self._board_rows[group].get(key)
        if index is None:
            raise SubgameError(f"board {key} is not one of this node's boards")
        return index

    def live_index(self, player: int, row: int) -> int:
        """The position of holding ``row`` in ``player``'s live list, or -1 when it is not live."""
        rows = self.prep.hands[player].rows
        i = int(np.searchsorted(rows, row))
        return i if i < len(rows) and rows[i] == row else -1

    def solve(self, target_pct: float | None = 0.5, time_limit: float | None = None,
              max_iterations: int | None = None, check_every: int = 10) -> SubgameResult:
        """Iterate until exploitability <= ``target_pct`` % of the root pot, ``time_limit`` s or ``max_iterations``.

        A best response costs about one iteration, so exploitability is not
        measured every iteration: first after ``check_every`` iterations,
        then three quarters of the way to the iteration where a decay of
        t^-1.5 predicts the target, and once two checks measure the decay, at
        the iteration it predicts (at least one more).
        The time limit is checked after every iteration, so it is overrun by
        at most one iteration plus the final measurement (both players' best
        responses and values).
        """
        if target_pct is None and time_limit is None and max_iterations is None:
            raise SubgameError("solve needs a target, a time limit or an iteration count, or it never stops")
        if check_every < 1:
            raise SubgameError(f"check_every must be >= 1, got {check_every}")
        start = time.perf_counter()
        history: list[tuple[int, float, float]] = []
        checked: Evaluation | None = None  # the last check's, while no iteration has run since
        done = 0
        next_check = self.cfr.iteration + check_every
        while True:
            if max_iterations is not None and done >= max_iterations:
                break
            if time_limit is not None and time.perf_counter() - start >= time_limit:
                break
            self.cfr.step()
            checked = None
            done += 1
            t = self.cfr.iteration
            if target_pct is not None and t >= next_check:
                evaluation = checked = evaluate(self.workspace, self.cfr.average_levels(), with_values=False)
                pct = 100.0 * evaluation.exploitability / self.root_pot
                history.append((t, time.perf_counter() - start, pct))
                if pct <= target_pct:
                    break
                measured = len(history) >= 2 and history[-2][2] > pct
                decay = 1.5
                if measured:
                    (t1, _, e1), (t2, _, e2) = history[-2], history[-1]
                    decay = min(3.0, max(1.0, np.log(e1 / e2) / np.log(t2 / t1)))
                predicted = t * (pct / target_pct) ** (1 / decay)
                # a measured decay aims at its prediction; a guessed one short of it (a check costs an iteration)
                if measured:
                    next_check = t + max(1, int(np.ceil(predicted - t)))
                else:
                    next_check = t + max(2, t // 20, int(0.75 * (predicted - t)))
        levels = self.cfr.average_levels()
        final = evaluate(self.workspace, levels, with_values=True, known=checked)  # a check's best responses stand
        strategy = by_node(self.workspace, levels)
        elapsed = time.perf_counter() - start
        self.seconds += elapsed
        if not history or history[-1][0] != self.cfr.iteration:
            history.append((self.cfr.iteration, elapsed, 100.0 * final.exploitability / self.root_pot))
        return SubgameResult(self, strategy, self.cfr.iteration, elapsed, final, history)


def solve(game: GameDef, state: State, board: Sequence[int], ranges: Sequence[np.ndarray],
          sizes: BetSizes | None = None, target_pct: float | None = 0.5, time_limit: float | None = None,
          max_iterations: int | None = None) -> SubgameResult:
    """Build, prepare and solve one subgame (see :class:`Subgame`)."""
    return Subgame(game, state, board, ranges, sizes).solve(target_pct, time_limit, max_iterations)
