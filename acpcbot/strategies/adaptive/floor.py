"""What adaptive stands on: the game's blueprint (its spec's table, re-solved where the spec has a re-solver).

Any two-player game with a blueprint spec whose policy file is there
(``acpcbot.solve.blueprint_registry``: heads-up limit hold'em today, and
heads-up no-limit once its policy is shipped or given with
``floor_policy=FILE``) has a floor: adaptive plays it cold and departs from
it only as far as the portfolio's measured results justify
(``adaptive.portfolio``).  Where the spec has a re-solver (hulhe: the
river) the floor's rows are the re-solved ones, built as the ``blueprint``
strategy builds them (``acpcbot.solve.resolving.floor.ResolvingTable``), so
cold adaptive plays what ``blueprint`` plays; a solve the clock cuts short
answers with the table's row.  The quick answer reads the plain table,
never a solve.  Elsewhere adaptive has no floor and plays its model's best
response alone.

The floor's rows are over the table's own actions (hulhe: fold, call,
raise; hunl: fold, call, several sizes, all-in); :func:`merge` lays them
beside adaptive's searched actions: the played list is both, the floor's
mass on its own actions, the search's values on its own (a size only the
floor has is valued as adaptive's nearest size of the kind).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...engine import Action, ActionType, State
from ...gamedef import GameDef
from ...holdings import holding_index
from ...solve.blueprint_registry import spec_for
from ..blueprint import BlueprintStrategy, load_blueprint, shipped_reason

if TYPE_CHECKING:
    from ...solve.blueprint_spec import BlueprintTable
    from ...solve.resolving.floor import ResolvingTable

#: the re-solve's iterations and time cap: the ``blueprint`` strategy's defaults, so that cold adaptive plays its rows
RESOLVE_ITERATIONS = int(BlueprintStrategy.params["resolve_iterations"].default)
RESOLVE_SECONDS = float(BlueprintStrategy.params["resolve_seconds"].default)


def stands_on_blueprint(game: GameDef, blueprint: bool, opponent: str, policy: str = "") -> bool:
    """Whether adaptive with these parameters stands on a blueprint in ``game``: a two-player game with a blueprint
    spec and its shipped files (or the ``policy`` file given), ``blueprint`` on, no known opponent given."""
    spec = spec_for(game)
    if not blueprint or opponent or game.num_players != 2 or spec is None:
        return False
    # a spec not yet for the default players (a first build being measured) is a floor only when its file is named
    return bool(policy) or (spec.default_players and shipped_reason(game) is None)


class BlueprintFloor:
    """The blueprint table adaptive stands on and its rows, re-solved where ``resolving`` plays."""

    def __init__(self, table: BlueprintTable, resolving: ResolvingTable | None = None) -> None:
        self.table = table
        self.resolving = resolving

    def actions(self, state: State) -> tuple[Action, ...]:
        """The actions the floor's rows at ``state`` are over (the table's own, in column order)."""
        return tuple(self.table.actions(state))

    def row(self, state: State, deadline: float | None = None) -> np.ndarray:
        """Our holding's row over ``actions(state)``: re-solved within ``deadline`` (a ``time.monotonic()``; None:
        no clock, the solve runs to its iteration count as ``rows`` does), the table's past it."""
        if self.resolving is None or not self.resolving.resolver.active(state):
            return self.table.probabilities(state)
        if deadline is not None:
            return self.resolving.probabilities(state, deadline=deadline)
        rows = self.resolving.probabilities_all(state, None, cap=False)
        return rows[holding_index(state.game, state.hole[state.current_player])]

    def rows(self, state: State) -> np.ndarray:
        """Every holding's row over ``actions(state)`` (re-solved to the iteration count whatever the clock)."""
        if self.resolving is None:
            return self.table.probabilities_all(state)
        return self.resolving.probabilities_all(state, None, cap=False)

    def quick_action(self, state: State) -> Action:
        """The plain table's most likely legal action for our holding (a table read, never a solve; the first of
        equals in column order)."""
        probs = self.table.probabilities(state)
        legal = [(i, a) for i, a in enumerate(self.actions(state)) if state.is_legal(a)]
        return max(legal, key=lambda ia: probs[ia[0]])[1]


def shipped_floor(game: GameDef, policy: str = "", resolve: bool = True) -> BlueprintFloor:
    """The floor of ``game``: its spec's table (the shipped policy, or ``policy``) and, with ``resolve`` and a spec
    re-solver, the re-solving table built as the ``blueprint`` strategy builds it."""
    spec = spec_for(game)
    if spec is None:
        raise ValueError(f"adaptive has no blueprint floor in {game.name or 'this game'}")
    table: Any = load_blueprint(game, policy)
    if not resolve or spec.resolver is None:
        return BlueprintFloor(table)
    from ...solve.resolving.floor import ResolvingTable  # noqa: PLC0415 - the solver loads only when re-solving
    resolver = spec.resolver(game, table, RESOLVE_ITERATIONS, RESOLVE_SECONDS, spec.start_round(game))
    return BlueprintFloor(table, ResolvingTable(table, resolver))


def merge(state: State, actions: list[Action], values: np.ndarray, floor_actions: tuple[Action, ...],
          probs: np.ndarray) -> tuple[list[Action], np.ndarray, np.ndarray]:
    """Adaptive's searched ``actions`` (their ``values``, rows x actions) beside the floor's rows ``probs`` over
    ``floor_actions``: (the actions of both that are legal, in (kind, size) order; the values over them, a floor
    action the search has not valued taking adaptive's nearest of its kind by size; the floor's rows over them,
    renormalised over the legal ones, uniform where a row has no legal mass)."""
    legal = [a for a in floor_actions if state.is_legal(a)]
    merged = sorted(set(actions) | set(legal), key=lambda a: (int(a[0]), a[1]))
    index = {a: i for i, a in enumerate(actions)}
    columns = [index[a] if a in index else _nearest(a, actions) for a in merged]
    out_values = values[:, columns]
    floor = np.zeros((len(probs), len(merged)))
    at = {a: i for i, a in enumerate(merged)}
    for j, a in enumerate(floor_actions):
        if a in at:
            floor[:, at[a]] += probs[:, j]
    total = floor.sum(axis=1, keepdims=True)
    floor = np.divide(floor, total, out=np.full(floor.shape, 1.0 / len(merged)), where=total > 0)
    return merged, out_values, floor


def _nearest(action: Action, actions: list[Action]) -> int:
    """The column of ``actions`` nearest ``action``: the same kind, the raise size nearest by ratio."""
    same = [i for i, a in enumerate(actions) if a[0] == action[0]]
    if not same:
        raise ValueError(f"the search has no action of the kind of {action}")
    if action[0] != ActionType.RAISE:
        return same[0]
    return min(same, key=lambda i: abs(math.log(max(actions[i][1], 1) / max(action[1], 1))))
