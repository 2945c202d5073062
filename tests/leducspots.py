"""Round-2 subgames of limit Leduc under a coarse CFR+ blueprint: the arguments ``gadget.resolve`` takes, shared by
the re-solving tests (tests/test_resolving_stop.py, tests/test_resolving_commit.py)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from acpcbot.gamedef import load_game
from acpcbot.solve.cfr import Solver
from acpcbot.solve.resolving.exact import node_map, round_roots, tree_rows
from acpcbot.solve.subgame.tree import build_tree

GAMES = Path(__file__).resolve().parents[1] / "acpcbot" / "games"


@lru_cache(maxsize=None)
def leduc(iterations: int) -> Solver:
    """Limit Leduc's CFR+ solver after ``iterations`` iterations (kept: the tests share it)."""
    s = Solver(load_game(GAMES / "leduc.game"), "cfr+")
    s.run(iterations)
    return s


def leduc_spot(root_index: int = 3, player: int = 0):
    """A round-2 subgame of limit Leduc under a 5-iteration blueprint: its arguments to ``resolve``."""
    s = leduc(5)
    tree, sigma = s.tree, s.average()
    root = round_roots(tree)[root_index]
    reach = tree.reach(sigma)
    ranges = (reach[root, 0] * tree.compat[root], reach[root, 1] * tree.compat[root])
    state, board = tree.states[root], tree.boards[root]
    rows = tree_rows(sigma, node_map(tree, build_tree(tree.game, state, board), root))
    return tree.game, state, board, ranges, player, rows
