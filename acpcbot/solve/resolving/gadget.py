"""Safe re-solving: a subgame entered through Burch et al.'s Resolve gadget, fed the blueprint's values.

Why Resolve (arXiv 1705.02955, section 4): at the subgame's root the
opponent chooses, per holding, to Terminate and take its counterfactual
best-response value against the blueprint there (``alternative``) or to
Follow into the re-solved subgame.  The re-solving player then minimises
sum_h w(h) max(alternative(h), BR(h)); the blueprint itself scores
sum_h w(h) alternative(h), the least any strategy can, so at the
gadget's equilibrium every holding with w(h) > 0 gets
BR(h) <= alternative(h): the opponent gains nothing anywhere by reaching
the subgame, and the whole game is no more exploitable than under the
blueprint (up to the solve's error).  Maxmargin has the same guarantee and
in practice leaves more margin, but needs the margins shifted and weighed
per holding; Reach-Maxmargin also needs the opponent's gifts along the
path, which a policy sampled from buckets does not give cheaply.  Resolve
is two actions per holding and one line of hook in the solver (the
opponent's root reach set per iteration), so it is what we ship.

The opponent's gadget weights are its blueprint range floored at
``FLOOR`` (relative to its largest weight): a best response may reach the
subgame with holdings the blueprint never brings there, and the guarantee
only holds where w(h) > 0.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from ...engine import State
from ...gamedef import GameDef
from ...holdings import blocked
from ..subgame import BetSizes, Subgame, SubgameResult
from ..subgame.best_response import evaluate
from ..subgame.passes import Workspace
from ..subgame.prepared import DTYPE
from ..subgame.tree import DECISION, SubgameNode

#: the least weight a board-compatible holding of the opponent gets in the gadget, relative to its largest
FLOOR = 1e-3

#: rows(node index, node, engine state at the node, board) -> (holdings, actions) in the node's child order
RowFn = Callable[[int, SubgameNode, State, tuple[int, ...]], np.ndarray]


class ResolveGadget:
    """The opponent's Terminate/Follow choice per holding at the subgame root, learnt by regret matching+."""

    def __init__(self, subgame: Subgame, opponent: int, alternative: np.ndarray) -> None:
        prep = subgame.prep
        self.opponent = opponent
        self.weights = prep.hands[opponent].weights.astype(np.float64)
        self.alternative = np.asarray(alternative, dtype=np.float64)  # over the opponent's live holdings
        self.regrets = np.zeros((2, len(self.weights)))
        self.follow = np.full(len(self.weights), 0.5)
        self._set_roots(subgame.cfr)
        subgame.cfr.gadget = self

    def _set_roots(self, cfr) -> None:
        roots = list(cfr.roots)
        roots[self.opponent] = (self.weights * self.follow).astype(DTYPE)[None, :]
        cfr.roots = tuple(roots)

    def __call__(self, cfr, player: int, root_values: np.ndarray) -> None:
        """After the opponent's update: regrets of Terminate/Follow, new follow probabilities, new root reach."""
        if player != self.opponent:
            return
        inside = root_values[0].astype(np.float64)
        value = (1.0 - self.follow) * self.alternative + self.follow * inside
        self.regrets[0] = np.maximum(self.regrets[0] + self.alternative - value, 0.0)
        self.regrets[1] = np.maximum(self.regrets[1] + inside - value, 0.0)
        total = self.regrets.sum(axis=0)
        self.follow = np.where(total > 0, self.regrets[1] / np.where(total > 0, total, 1.0), 0.5)
        self._set_roots(cfr)


def node_states(subgame: Subgame, root: State) -> list[State | None]:
    """The engine state at every node of the subgame's tree (chance nodes share their parent's betting)."""
    nodes = subgame.tree.nodes
    out: list[State | None] = [None] * len(nodes)
    out[0] = root.copy()
    for i, node in enumerate(nodes):
        if node.kind == DECISION:
            for action, child in zip(node.actions, node.children):
                parent = out[i]
                assert parent is not None  # parents come before their children
                out[child] = parent.copy().apply(action)
        else:
            for child in node.children:
                out[child] = out[i]
    return out


def load_strategy(subgame: Subgame, root: State, rows: RowFn) -> list[np.ndarray | None]:
    """A whole strategy (every decision node, board and live holding) in the solver's arrays, from ``rows``."""
    tree, prep = subgame.tree, subgame.prep
    states = node_states(subgame, root)
    sigma: list[np.ndarray | None] = [None] * len(tree.nodes)
    for i, node in enumerate(tree.nodes):
        if node.kind != DECISION:
            continue
        live = prep.hands[node.player].rows
        boards = tree.groups[node.group].boards
        out = np.empty((len(node.children), len(boards), len(live)), dtype=DTYPE)
        for b, board in enumerate(boards.tolist()):
            state = states[i]
            assert state is not None  # every node's state is made
            out[:, b, :] = rows(i, node, state, tuple(board))[live].T
        sigma[i] = out
    return sigma


def alternative_values(subgame: Subgame, blueprint: Sequence[np.ndarray | None], opponent: int) -> np.ndarray:
    """The opponent's counterfactual best-response values at the root against the blueprint (its live holdings)."""
    levels = by_level(subgame.workspace, blueprint)
    return np.asarray(evaluate(subgame.workspace, levels, with_values=False).best_cfv[opponent], dtype=np.float64)


def by_level(ws: Workspace, per_node: Sequence[np.ndarray | None]) -> list[list[np.ndarray]]:
    """A strategy per decision node as the solver's per-level arrays (the inverse of ``passes.by_node``)."""
    out = []
    for lay in ws.layouts:
        arrays = []
        for lv in lay.levels:
            arr = None
            for i, gid in enumerate(lv.global_parents):
                node = per_node[gid]
                assert node is not None
                if arr is None:
                    arr = np.zeros((lv.num_edges,) + node.shape[1:], dtype=DTYPE)
                arr[[lv.offsets[j] + i for j in range(len(lv.counts)) if lv.counts[j] > i]] = node
            assert arr is not None  # every level has a parent
            arrays.append(arr)
        out.append(arrays)
    return out


def gadget_ranges(game: GameDef, ranges: Sequence[np.ndarray], opponent: int,
                  board: Sequence[int] = ()) -> tuple[np.ndarray, np.ndarray]:
    """The two ranges of a safe re-solve: the opponent's floored so every holding the board allows is in it."""
    out = [np.asarray(r, dtype=np.float64).copy() for r in ranges]
    opp = out[opponent]
    top = float(opp.max()) if opp.size else 0.0
    floor = FLOOR * (top if top > 0 else 1.0)
    allowed = ~blocked(game, board)
    opp[allowed] = np.maximum(opp[allowed], floor)
    return out[0], out[1]


def resolve(game: GameDef, state: State, board: Sequence[int], ranges: Sequence[np.ndarray], player: int,
            rows: RowFn, sizes: BetSizes | None = None, iterations: int | None = 200,
            time_limit: float | None = None) -> tuple[SubgameResult, np.ndarray]:
    """Re-solve the subgame at ``state`` safely for ``player``; returns the result and the opponent's alternatives.

    ``ranges`` are both players' reach (blueprint) at the root over
    ``holdings(game)``; ``rows`` gives the blueprint's rows in the subgame
    (for the alternatives).  Only ``player``'s part of the result's
    strategy is safe to play.
    """
    start = time.perf_counter()
    opponent = 1 - player
    subgame = Subgame(game, state, board, gadget_ranges(game, ranges, opponent, board), sizes)
    blueprint = load_strategy(subgame, state, rows)
    alternative = alternative_values(subgame, blueprint, opponent)
    ResolveGadget(subgame, opponent, alternative)
    if time_limit is not None:  # building the tree and the alternatives count against the cap too
        time_limit = max(0.0, time_limit - (time.perf_counter() - start))
    result = subgame.solve(target_pct=None, time_limit=time_limit, max_iterations=iterations)
    return result, alternative
