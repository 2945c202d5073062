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

A share ``COMMIT`` of the opponent enters committed, with its blueprint
range and no Terminate option (``ResolveGadget``): with the gadget alone a
holding whose alternative beats the subgame leaves it and the re-solve
stops caring how it plays against that holding (docs/resolving-play.md,
"The committed share").

The opponent's gadget weights are its blueprint range floored at
``FLOOR`` (relative to its largest weight): a best response may reach the
subgame with holdings the blueprint never brings there, and the guarantee
only holds where w(h) > 0.

When to stop: the blueprint scores sum_h w(h) alternative(h), the least
any strategy can, so that is the gadget game's value and the re-solving
player's exploitability in it is its *excess*,
sum_h w(h) max(0, BR(h) - alternative(h)) (chips a hand): 0 exactly when
the strategy is safe on every holding.  Every safe strategy is optimal in
the gadget game, so the excess alone stops too early: a strategy can be
safe long before it takes from the opponent what the blueprint gave away.
That gain is the *margin*, sum_h w(h) (alternative(h) - BR(h)): how much
less the opponent's best response wins in the subgame than against the
blueprint.  ``resolve(target=..., settle=...)`` measures both every
``check_every`` iterations from one best response of the opponent (half an
iteration) and stops at the first check whose excess is at most ``target``
and whose margin moved at most ``settle`` since the last check, both in %
of the root pot; the iterations stay the cap.  The subgame's own
exploitability (``SubgameResult.exploitability``) is not the measure: it
is taken in the floored-range subgame, without the gadget, and stays
well above 0 (docs/resolving-play.md, "How many iterations a re-solve
needs").
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import numpy as np

from ...engine import State
from ...gamedef import GameDef
from ...holdings import blocked, holdings
from ..subgame import BetSizes, Subgame, SubgameResult
from ..subgame.best_response import evaluate
from ..subgame.passes import BEST, LevelArrays, Workspace, backward, by_node, forward, root_values
from ..subgame.prepared import DTYPE
from ..subgame.tree import DECISION, SubgameNode

#: the least weight a board-compatible holding of the opponent gets in the gadget, relative to its largest
FLOOR = 1e-3

#: the share of the opponent that enters the subgame committed, with its blueprint range and no Terminate option
#: (``ResolveGadget``; docs/resolving-play.md, "The committed share")
COMMIT = 0.1

#: on a class of cards, the blueprint's rows are the mean over this many of its cards (``load_strategy``)
CLASS_READS = 4

#: rows(node index, node, engine state at the node, board) -> (holdings, actions) in the node's child order
RowFn = Callable[[int, SubgameNode, State, tuple[int, ...]], np.ndarray]


def check_commit(commit: float) -> None:
    """ValueError unless ``commit`` is a share of the opponent, in [0, 1]."""
    if not 0.0 <= commit <= 1.0:
        raise ValueError(f"the committed share of the opponent is in [0, 1], got {commit}")


class ResolveGadget:
    """The opponent's Terminate/Follow choice per holding at the subgame root, learnt by regret matching+.

    A share ``commit`` of the opponent enters committed: with its range ``committed`` (its blueprint reach over its
    live holdings) and no Terminate option, as unsafe re-solving assumes; the rest chooses.  Both parts play one
    strategy inside (a holding's best play there does not depend on how it came in).  With ``commit`` 0 a holding
    whose alternative beats the subgame leaves it, and the re-solve stops caring how it plays against that holding:
    measured on 200 hulhe river spots, that strategy lost 0.7 chips a spot to the blueprint it replaced; the committed
    share takes the blueprint's real range back into account (docs/resolving-play.md, "The committed share").
    """

    def __init__(self, subgame: Subgame, opponent: int, alternative: np.ndarray, committed: np.ndarray | None = None,
                 commit: float = 0.0) -> None:
        check_commit(commit)
        prep = subgame.prep
        self.opponent = opponent
        self.weights = prep.hands[opponent].weights.astype(np.float64)
        self.alternative = np.asarray(alternative, dtype=np.float64)  # over the opponent's live holdings
        self.commit = commit
        self.committed = (self.weights if committed is None else np.asarray(committed, dtype=np.float64)) * commit
        self.regrets = np.zeros((2, len(self.weights)))
        self.follow = np.full(len(self.weights), 0.5)
        self.subgame = subgame
        #: (iteration, excess, margin), both in % of the root pot, at every check of a solve to a target
        self.history: list[tuple[int, float, float]] = []
        #: whether the solve stopped because the excess reached its target
        self.reached = False
        self._set_roots(subgame.cfr)
        subgame.cfr.gadget = self

    def _set_roots(self, cfr) -> None:
        roots = list(cfr.roots)
        roots[self.opponent] = ((1.0 - self.commit) * self.weights * self.follow + self.committed).astype(DTYPE)[None, :]
        cfr.roots = tuple(roots)

    def best_response(self, levels: LevelArrays) -> np.ndarray:
        """The opponent's counterfactual best-response values at the root against ``levels`` (its live holdings)."""
        return opponent_best(self.subgame, levels, self.opponent)

    def excess(self, best_cfv: np.ndarray) -> float:
        """The gadget game's exploitability, chips a hand: sum_h w(h) max(0, BR(h) - alternative(h)) / normaliser."""
        gain = np.maximum(np.asarray(best_cfv, dtype=np.float64) - self.alternative, 0.0)
        return float(self.weights @ gain) / self.subgame.prep.normaliser

    def margin(self, best_cfv: np.ndarray) -> float:
        """How much less the opponent's best response wins than against the blueprint, chips a hand (every holding
        weighed by its gadget weight): sum_h w(h) (alternative(h) - BR(h)) / normaliser."""
        gain = self.alternative - np.asarray(best_cfv, dtype=np.float64)
        return float(self.weights @ gain) / self.subgame.prep.normaliser

    def check(self, levels: LevelArrays) -> tuple[float, float]:
        """The excess and the margin of the strategy ``levels``, in % of the root pot."""
        br = self.best_response(levels)
        pot = self.subgame.root_pot
        return 100.0 * self.excess(br) / pot, 100.0 * self.margin(br) / pot

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


def load_strategy(subgame: Subgame, root: State, rows: RowFn, class_reads: int = CLASS_READS) -> list[np.ndarray | None]:
    """A whole strategy (every decision node, board and live holding) in the solver's arrays, from ``rows``.

    On a class of cards (``subgame.chance``) a holding plays the mean of its rows over the class's first
    ``class_reads`` cards (nearest the class's centre) that it does not hold: the gadget's alternatives are then
    the opponent's best response to a blueprint nearer the real one than its rows on the representative alone
    (``class_reads`` 1).  Reading every card costs a blueprint read a card and node (1.2 s of a hulhe turn's 48
    river cards); a few of the nearest cards take most of the difference.
    """
    tree, prep = subgame.tree, subgame.prep
    table = holdings(subgame.game)
    states = node_states(subgame, root)
    sigma: list[np.ndarray | None] = [None] * len(tree.nodes)
    for i, node in enumerate(tree.nodes):
        if node.kind != DECISION:
            continue
        live = prep.hands[node.player].rows
        boards = tree.groups[node.group].boards
        out = np.empty((len(node.children), len(boards), len(live)), dtype=DTYPE)
        members = tree.groups[node.group].members
        for b, board in enumerate(boards.tolist()):
            state = states[i]
            assert state is not None  # every node's state is made
            classes = tree.groups[node.group].classes
            if members is None or classes is None or class_reads <= 1:
                out[:, b, :] = rows(i, node, state, tuple(board))[live].T
                continue
            total, count = None, np.zeros(len(table))
            for card in classes[b][:class_reads]:
                free = ~(table == card).any(axis=1)
                row = np.where(free[:, None], rows(i, node, state, tuple(board[:-1]) + (card,)), 0.0)
                total = row if total is None else total + row
                count += free
            assert total is not None  # a class has a card
            out[:, b, :] = (total[live] / np.maximum(count[live], 1)[:, None]).T
        sigma[i] = out
    return sigma


def alternative_values(subgame: Subgame, blueprint: Sequence[np.ndarray | None], opponent: int) -> np.ndarray:
    """The opponent's counterfactual best-response values at the root against the blueprint (its live holdings)."""
    levels = by_level(subgame.workspace, blueprint)
    return np.asarray(opponent_best(subgame, levels, opponent), dtype=np.float64)  # the opponent's half of evaluate


def opponent_best(subgame: Subgame, levels: LevelArrays, opponent: int) -> np.ndarray:
    """``opponent``'s counterfactual best-response values at the root against the other's ``levels`` (live holdings).

    One of ``evaluate``'s two best responses: the re-solving player's reach down, the opponent's best values up.
    """
    ws, prep = subgame.workspace, subgame.prep
    player = 1 - opponent
    forward(ws, levels, player, prep.hands[player].weights.astype(DTYPE)[None, :], chance=True)
    backward(ws, levels, opponent, BEST)
    return root_values(ws, opponent)


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
            time_limit: float | None = None, target: float | None = None, settle: float | None = None,
            check_every: int = 10, last_classes: int | None = None,
            depth_limited: bool = False, commit: float = COMMIT) -> tuple[SubgameResult, np.ndarray]:
    """Re-solve the subgame at ``state`` safely for ``player``; returns the result and the opponent's alternatives.

    ``ranges`` are both players' reach (blueprint) at the root over
    ``holdings(game)``; ``rows`` gives the blueprint's rows in the subgame
    (for the alternatives).  Only ``player``'s part of the result's
    strategy is safe to play.  ``target`` None runs ``iterations``
    iterations; a target (% of the root pot) stops at the first check,
    every ``check_every`` iterations, whose gadget excess is at or below it
    and, with ``settle``, whose margin moved at most that since the last
    check (``iterations`` the cap; the checks' figures in
    ``result.subgame.cfr.gadget.history``).  Iterations and the measured
    excess decide where it stops, never the clock, so the rows are the same
    whatever the load; ``time_limit`` only cuts a solve short.  ``last_classes``: the last board card dealt
    as that many classes of cards inside the subgame (``subgame.chance``; None: card by card).  ``depth_limited``:
    the subgame ends with the root's round, the rest checked down at its leaves (``subgame.leaves``), for the
    blueprint's alternatives as for the re-solve.  ``commit``: the share of the opponent entering with its
    blueprint range and no Terminate option (``ResolveGadget``; 0 is Burch et al.'s Resolve gadget, 1 unsafe
    re-solving).
    """
    start = time.perf_counter()
    opponent = 1 - player
    subgame = Subgame(game, state, board, gadget_ranges(game, ranges, opponent, board), sizes,
                      last_classes=last_classes, depth_limited=depth_limited)
    blueprint = load_strategy(subgame, state, rows)
    alternative = alternative_values(subgame, blueprint, opponent)
    committed = np.asarray(ranges[opponent], dtype=np.float64)[subgame.prep.hands[opponent].rows]
    gadget = ResolveGadget(subgame, opponent, alternative, committed, commit)
    if time_limit is not None:  # building the tree and the alternatives count against the cap too
        time_limit = max(0.0, time_limit - (time.perf_counter() - start))
    if target is None:
        result = subgame.solve(target_pct=None, time_limit=time_limit, max_iterations=iterations)
    else:
        result = solve_to(subgame, gadget, target, iterations, time_limit, settle, check_every)
    return result, alternative


def solve_to(subgame: Subgame, gadget: ResolveGadget, target: float, iterations: int | None,
             time_limit: float | None = None, settle: float | None = None, check_every: int = 10) -> SubgameResult:
    """DCFR on a gadget subgame until its excess is at most ``target`` % of the root pot and its margin moved at
    most ``settle`` % since the last check (checked every ``check_every`` iterations), ``iterations`` or
    ``time_limit`` seconds; the result as ``Subgame.solve`` gives."""
    if not target >= 0:
        raise ValueError(f"a re-solve's target is a share of the pot >= 0, got {target}")
    if settle is not None and not settle >= 0:
        raise ValueError(f"a re-solve's settle is a share of the pot >= 0, got {settle}")
    if check_every < 1:
        raise ValueError(f"check_every must be >= 1, got {check_every}")
    if iterations is None and time_limit is None and target <= 0:
        raise ValueError("a re-solve to an excess of 0 needs an iteration cap or a time limit, or it may never stop")
    start = time.perf_counter()
    cfr = subgame.cfr
    first = cfr.iteration
    while iterations is None or cfr.iteration - first < iterations:
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break
        cfr.step()
        done = cfr.iteration - first
        if done % check_every == 0 and (iterations is None or done < iterations):
            excess, margin = gadget.check(cfr.average_levels())
            moved = abs(margin - gadget.history[-1][2]) if gadget.history else float("inf")
            gadget.history.append((cfr.iteration, excess, margin))
            if excess <= target and (settle is None or moved <= settle):
                gadget.reached = True
                break
    levels = cfr.average_levels()
    final = evaluate(subgame.workspace, levels, with_values=True)
    elapsed = time.perf_counter() - start
    subgame.seconds += elapsed
    history = [(cfr.iteration, elapsed, 100.0 * final.exploitability / subgame.root_pot)]
    return SubgameResult(subgame, by_node(subgame.workspace, levels), cfr.iteration, elapsed, final, history)
