"""Real bets onto the abstract tree: pseudo-harmonic translation (Ganzfried & Sandholm, IJCAI 2013).

A bet of pot fraction ``x`` between the tree's neighbouring sizes
``A <= x <= B`` is read as ``A`` with probability

    f(x) = (B - x) (1 + A) / ((B - A) (1 + x))

and as ``B`` otherwise; above the largest size it is the largest.  Below
the smallest size the call is ``A = 0``: a bet or raise smaller than any
the tree has is read as the call (a check where nothing was to call) with
probability ``f(x)`` and as the smallest size otherwise.  Read as the
smallest alone, a minimum raise over a half-pot bet (a quarter of the pot)
would be answered as a raise of the pot is, folding hands that the price
(a sixth of the pot to call) says to keep: LBR took most of its flop
winnings against the HUNL floor there (docs/resolving-hunl.md).  When the
call ends the tree's betting round (or the hand) where the real one goes
on, the player facing the small raise *owes* a call on that path: its row
there is the call, and its real call brings the two back in step.  All-in
is read as the tree's all-in, a call as the call, a fold as the fold.

``tree_paths`` replays a real hand's betting on the tree: each raise the
tree does not have splits a path in two (the player's own raises, made
from the tree's fractions, land on their size), paths too unlikely are
dropped and the weights renormalised.  A player whose translation is
drawn afresh at each decision plays, at a state, exactly the mixture of
the paths' rows by these weights: that is the blueprint's policy at a real
state (``policy.HunlBlueprint``), sampled when it acts.
"""

from __future__ import annotations

from typing import NamedTuple

from ...engine import CALL, FOLD, RAISE, Action, ActionType, State
from .actions import BlueprintTree, pot_fraction

#: paths lighter than this are dropped
MIN_WEIGHT = 1e-3
#: the most paths kept (the heaviest)
MAX_PATHS = 32


def pseudo_harmonic(a: float, b: float, x: float) -> float:
    """The probability of reading ``x`` (a <= x <= b, pot fractions) as ``a``."""
    if b <= a:
        return 1.0
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def translate(x: float, sizes: list[float]) -> list[tuple[int, float]]:
    """(index into ``sizes``, probability) of reading fraction ``x`` as each tree size (``sizes`` ascending)."""
    if not sizes:
        return []
    if x <= sizes[0]:
        return [(0, 1.0)]
    if x >= sizes[-1]:
        return [(len(sizes) - 1, 1.0)]
    for j in range(1, len(sizes)):
        if x <= sizes[j]:
            if x == sizes[j]:
                return [(j, 1.0)]
            p = pseudo_harmonic(sizes[j - 1], sizes[j], x)
            return [(j - 1, p), (j, 1.0 - p)]
    raise AssertionError("unreachable")


def read_size(x: float, sizes: list[float], columns: list[int], call: int | None) -> list[tuple[int, float]]:
    """(column, probability) of reading a raise of pot fraction ``x`` on raises of fractions ``sizes`` (ascending)
    in ``columns``: pseudo-harmonic between neighbours, and below the smallest between the call (column ``call``,
    ``A = 0``) and it when there is a call to read it as (see the module)."""
    if call is not None and x < sizes[0]:
        return [(([call] + columns)[j], p) for j, p in translate(x, [0.0] + sizes) if p > 0]
    return [(columns[j], p) for j, p in translate(x, sizes) if p > 0]


def map_action(tree: BlueprintTree, node: int, real: State, abstract: State, action: Action) -> list[tuple[int, float]]:
    """(action index at ``node``, probability) of reading the real ``action`` (taken in ``real``) on the tree.

    ``abstract`` is the tree's state at ``node``.  Empty when the tree has
    nothing like it (the hand is then off the tree on this path).
    """
    acts = tree.actions[node]
    kind = action[0]
    if kind == ActionType.FOLD:
        return [(acts.index(FOLD), 1.0)] if FOLD in acts else [(acts.index(CALL), 1.0)]
    if kind == ActionType.CALL:
        return [(acts.index(CALL), 1.0)]
    raises = [i for i, a in enumerate(acts) if a[0] == ActionType.RAISE]
    if not raises:
        return []
    if not real.game.is_nolimit:
        return [(acts.index(RAISE), 1.0)] if RAISE in acts else []
    bounds = real.raise_bounds()
    if bounds is not None and action[1] >= bounds[1]:
        return [(raises[-1], 1.0)]                                  # all-in is all-in
    sizes = [pot_fraction(abstract, acts[i][1]) for i in raises]
    x = pot_fraction(real, action[1])
    chip = 1.0 / max(1, real.pot + real.to_call())
    near = [j for j, f in enumerate(sizes) if abs(f - x) <= chip]
    if near:     # a tree size made in whole chips (our own raises): that size, not a split by a rounding
        return [(raises[min(near, key=lambda j: abs(sizes[j] - x))], 1.0)]
    return read_size(x, sizes, raises, acts.index(CALL) if CALL in acts else None)


class TreePath(NamedTuple):
    """One reading of a real hand's betting on the tree: the node reached (a terminal's negative id when the
    reading ended the hand), its weight, the tree's state there, and the player who owes a call (-1: none)."""

    node: int
    weight: float
    state: State
    #: a small raise read as the call ended the tree's round where the real one goes on: the player facing it
    #: plays the call on this path, and its real call is the path's next step (no tree action)
    owes: int = -1


def _owed(real: State, tree_state: State) -> int:
    """Who owes a call after ``real``'s raise was read as the call that led to ``tree_state`` (-1: no one)."""
    facing = 1 - real.current_player           # heads-up: the other player answers the raise
    if tree_state.finished or tree_state.round != real.round or tree_state.current_player != facing:
        return facing
    return -1   # a first bet read as a check: the round goes on with the same player to act on both


def tree_paths(tree: BlueprintTree, state: State) -> list[TreePath]:
    """Every way the real betting of ``state`` reads on the tree; weights sum to 1.

    Empty when no reading reaches a decision node (the real hand went
    where the tree has no node: e.g. a raise after the tree's all-in).  A
    path whose ``owes`` is a player waits for that player's call (see the
    module); its node may then be the next round's, or a terminal's.
    """
    game = tree.game
    real = State(game)
    paths: list[TreePath] = [TreePath(0, 1.0, State(game))]
    for acts in state.actions:
        for action in acts:
            grown: list[TreePath] = []
            for path in paths:
                if path.owes >= 0:
                    if action[0] == ActionType.CALL:     # the owed call: the tree already stands past it
                        grown.append(path._replace(owes=-1))
                    continue                             # anything else: not on this reading
                if path.node < 0:
                    continue
                node, w, ab = path.node, path.weight, path.state
                for i, p in map_action(tree, node, real, ab, action):
                    tree_action = tree.actions[node][i]
                    after = ab.copy().apply_unchecked(tree_action)
                    owes = -1
                    if action[0] == ActionType.RAISE and tree_action[0] == ActionType.CALL:
                        owes = _owed(real, after)
                    grown.append(TreePath(tree.children[node][i], w * p, after, owes))
            real.apply_unchecked(action)
            grown.sort(key=lambda t: -t.weight)
            grown = [g for g in grown[:MAX_PATHS] if g.weight >= MIN_WEIGHT * grown[0].weight] if grown else []
            total = sum(g.weight for g in grown)
            paths = [g._replace(weight=g.weight / total) for g in grown]
    return [p for p in paths if p.node >= 0 or p.owes >= 0]
