"""Real bets onto the abstract tree: pseudo-harmonic translation (Ganzfried & Sandholm, IJCAI 2013).

A bet of pot fraction ``x`` between the tree's neighbouring sizes
``A <= x <= B`` is read as ``A`` with probability

    f(x) = (B - x) (1 + A) / ((B - A) (1 + x))

and as ``B`` otherwise; below the smallest size it is the smallest, above
the largest the largest.  All-in is read as the tree's all-in, a call as
the call, a fold as the fold.

``tree_paths`` replays a real hand's betting on the tree: each raise the
tree does not have splits a path in two (the player's own raises, made
from the tree's fractions, land on their size), paths too unlikely are
dropped and the weights renormalised.  A player whose translation is
drawn afresh at each decision plays, at a state, exactly the mixture of
the paths' rows by these weights: that is the blueprint's policy at a real
state (``policy.HunlBlueprint``), sampled when it acts.
"""

from __future__ import annotations

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
    return [(raises[j], p) for j, p in translate(x, sizes) if p > 0]


def tree_paths(tree: BlueprintTree, state: State) -> list[tuple[int, float, State]]:
    """(node, weight, tree state) of every way the real betting of ``state`` reads on the tree; weights sum to 1.

    Empty when no reading reaches a decision node (the real hand went
    where the tree has no node: e.g. a raise after the tree's all-in).
    """
    game = tree.game
    real = State(game)
    paths: list[tuple[int, float, State]] = [(0, 1.0, State(game))]
    for acts in state.actions:
        for action in acts:
            grown: list[tuple[int, float, State]] = []
            for node, w, ab in paths:
                if node < 0:
                    continue
                for i, p in map_action(tree, node, real, ab, action):
                    grown.append((tree.children[node][i], w * p, ab.copy().apply_unchecked(tree.actions[node][i])))
            real.apply_unchecked(action)
            grown.sort(key=lambda t: -t[1])
            grown = [g for g in grown[:MAX_PATHS] if g[1] >= MIN_WEIGHT * grown[0][1]] if grown else []
            total = sum(g[1] for g in grown)
            paths = [(n, w / total, s) for n, w, s in grown]
    return [p for p in paths if p[0] >= 0]
