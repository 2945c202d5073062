"""The ``blueprint`` player: the shipped abstraction-CFR policy of heads-up limit hold'em, played as it stands.

The policy (``acpcbot/data/blueprint_hulhe.npz``) and its card buckets
(``hulhe_buckets.npz``) are made by ``python -m acpcbot.solve hulhe``
(see ``acpcbot.solve.blueprint``); each decision maps the real cards to
their bucket history and samples the policy's row with the seeded
generator.  Another policy trained for the game can be played with
``blueprint:policy=FILE,buckets=FILE``.  An equilibrium approximation:
it does not adapt, and a player that cannot read its opponent loses
little against it.

By default it re-solves the river over the real cards (safe re-solving,
``acpcbot.solve.resolving``; docs/resolving-play.md): both ranges are the
blueprint's reach along the real history, and the opponent enters the
subgame through the Resolve gadget with its best-response values against
the blueprint, so the re-solved play is no more exploitable than the
blueprint's.  ``blueprint:resolve=0`` plays the shipped policy alone; a
re-solve the clock cuts short plays the blueprint's own row.
"""

from __future__ import annotations

import functools
import os
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..engine import CALL, FOLD, RAISE, Action, ActionType
from ..gamedef import GameDef
from ..holdings import holding_index
from .base import INLINE_ENDS, ActionPolicy, Param, RunMode, Strategy, parse_bool
from .registration import register

if TYPE_CHECKING:
    from ..engine import State
    from ..solve.blueprint import Blueprint
    from ..solve.resolving.player import Resolver
    from ..world import View

_ACTIONS = (FOLD, CALL, RAISE)


def _file_exists(path: str) -> bool:
    return path == "" or os.path.isfile(path)


@functools.lru_cache(maxsize=4)
def load_blueprint(game: GameDef, policy: str = "", buckets: str = "") -> "Blueprint":
    """The blueprint of ``game`` (the shipped files by default), read once per process and shared by its seats."""
    from ..solve.blueprint import Blueprint  # noqa: PLC0415 - numpy tables only for the games that use them
    from ..solve.blueprint_train import DEFAULT_BUCKETS, DEFAULT_POLICY  # noqa: PLC0415
    return Blueprint(game, policy or DEFAULT_POLICY, buckets or DEFAULT_BUCKETS)


def shipped_reason(game: GameDef) -> str | None:
    """Why the shipped blueprint cannot play ``game`` (None when it can)."""
    if game.num_players != 2 or not game.is_limit or game.num_hole_cards != 2 or game.num_rounds != 4:
        return "the blueprint plays heads-up limit Texas hold'em only"
    from ..solve.blueprint_train import DEFAULT_POLICY  # noqa: PLC0415
    if not DEFAULT_POLICY.exists():
        return f"the shipped blueprint {DEFAULT_POLICY} is missing (build it: python -m acpcbot.solve hulhe)"
    try:
        load_blueprint(game)
    except Exception as exc:  # noqa: BLE001 - whatever the files' complaint, it is the reason this game is refused
        return f"the shipped blueprint does not fit this game: {exc}"
    return None


@register
class BlueprintStrategy(Strategy):
    """Samples the shipped heads-up limit hold'em blueprint (abstraction CFR) at every decision."""

    name = "blueprint"
    description = ("Heads-up limit hold'em: the shipped abstraction-CFR equilibrium approximation "
                   "(python -m acpcbot.solve hulhe), sampled.")
    # the parameters, set from params by Strategy.__init__
    resolve: bool
    resolve_iterations: int
    resolve_from: str
    resolve_seconds: float
    params: ClassVar[dict[str, Param]] = {
        "policy": Param(str, "", "policy .npz from python -m acpcbot.solve hulhe (default: the shipped one)",
                        _file_exists, "must be an existing file"),
        "buckets": Param(str, "", "the card buckets the policy was trained with (default: the shipped ones)",
                         _file_exists, "must be an existing file"),
        "resolve": Param(parse_bool, True, "re-solve the river over the real cards (safe re-solving); 0 plays the "
                                           "policy alone"),
        "resolve_iterations": Param(int, 200, "DCFR iterations of a re-solve (they, not the clock, decide it)",
                                    lambda n: n >= 1, "must be >= 1"),
        "resolve_from": Param(str, "river", "the street re-solving starts on (turn: ~160 s of CPU a solve today)",
                              choices=("river", "turn")),
        "resolve_seconds": Param(float, 2.5, "the most seconds a re-solve may take (past it: the blueprint's row)",
                                 lambda x: x > 0, "must be > 0"),
    }
    run_mode = INLINE_ENDS

    def __init__(self, game: GameDef, rng: Any, **params: Any) -> None:
        if params.get("policy") or params.get("buckets"):
            # files of the user's decide which game they fit (Blueprint checks them against the game)
            self.unsupported_reason = _any_limit_game  # type: ignore[method-assign]
        super().__init__(game, rng, **params)
        vars(self).pop("policy", None)  # the parameter lives on as policy_path; the name is the policy method's
        self.policy_path = params.get("policy") or ""
        self.table = load_blueprint(game, self.policy_path, params.get("buckets") or "")
        self.resolver: Resolver | None = None
        if self.resolve:
            from ..solve.resolving.clock import Budget  # noqa: PLC0415 - the solver loads only when re-solving
            from ..solve.resolving.player import Resolver  # noqa: PLC0415
            self.resolver = Resolver(game, self.table.probabilities_all,
                                     Budget(self.resolve_iterations, self.resolve_seconds),
                                     start_round=game.num_rounds - (2 if self.resolve_from == "turn" else 1))
            self.run_mode = RunMode("guarded", "ends")  # a re-solve takes a second: the client guards its deadline

    def _rows(self, state: "State", deadline: float | None, cap: bool = True) -> np.ndarray:
        """Every holding's fold/call/raise row: re-solved where the resolver plays, the blueprint's elsewhere."""
        if self.resolver is not None:
            rows = self.resolver.rows(state, deadline, cap)
            if rows is not None:
                return rows
        return self.table.probabilities_all(state)

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """Heads-up limit hold'em with the shipped files, trained for this very game."""
        return shipped_reason(game)

    def act(self, view: View, deadline: float) -> Action:
        """Sample our cards' row: the re-solved one on the river, the blueprint's before it or past the clock."""
        state = view.state
        if self.resolver is not None and self.resolver.active(state):
            row = self._rows(state, deadline)[holding_index(self.game, state.hole[view.position])]
        else:
            row = self.table.probabilities(state)
        x = self.rng.random()
        for kind in (0, 1, 2):  # a fixed order keeps games reproducible
            if row[kind] > 0:
                choice = kind
                x -= row[kind]
                if x < 0:
                    break
        return _ACTIONS[choice]

    def quick_action(self, view: View) -> Action:
        """The blueprint row's most likely action (a table read): the answer ready if a re-solve overruns."""
        return _ACTIONS[int(np.argmax(self.table.probabilities(view.state)))]

    has_policy = True

    def policy(self, view: View) -> ActionPolicy:
        """Every holding's rows over the legal actions: the re-solved ones on the river (solved to the iteration
        count whatever the clock), the blueprint's before."""
        legal = view.state.legal_actions()
        kinds = [k for k in (ActionType.FOLD, ActionType.CALL, ActionType.RAISE) if k in legal]
        probs = self._rows(view.state, None, cap=False)[:, [int(k) for k in kinds]]
        total = probs.sum(axis=1, keepdims=True)
        probs = np.divide(probs, total, out=np.full(probs.shape, 1.0 / len(kinds)), where=total > 0)
        return ActionPolicy(tuple(_ACTIONS[int(k)] for k in kinds), probs, self.game)


def _any_limit_game(game: GameDef) -> str | None:
    if game.num_players != 2 or not game.is_limit:
        return "the blueprint plays heads-up limit games only"
    return None
