"""Equilibrium play for small limit games: the public tree, CFR+/DCFR, exact best response, policy files.

Typical use::

    tree = build_tree(load_game("leduc"))
    solver = Solver(tree)
    solver.run(1000)
    report = exploitability(tree, solver.average())   # report.mbb
    write_policy("leduc.json", policy_from_strategy(tree, solver.average()))

``python -m acpcbot.solve GAME --iterations N --out POLICY.json`` does the same from the shell.
"""

from .best_response import Exploitability, best_response_value, exploitability, policy_values
from .cfr import ALGORITHMS, Solver
from .policy import PolicyError, infoset_key, policy_from_strategy, read_policy, strategy_from_policy, write_policy
from .tree import MAX_TREE_SIZE, GameTooBig, PublicTree, build_tree, check_solvable

__all__ = ["ALGORITHMS", "Exploitability", "GameTooBig", "MAX_TREE_SIZE", "PolicyError", "PublicTree", "Solver",
           "best_response_value", "build_tree", "check_solvable", "exploitability", "infoset_key",
           "policy_from_strategy", "policy_values", "read_policy", "strategy_from_policy", "write_policy"]
