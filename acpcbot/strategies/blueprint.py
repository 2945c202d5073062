"""The ``blueprint`` player: the shipped blueprint of the game (an abstraction's equilibrium), played as it stands.

Which blueprint a game has is the registry's answer
(``acpcbot.solve.blueprint_registry``): heads-up limit hold'em's
abstraction-CFR policy (``python -m acpcbot.solve hulhe``,
``acpcbot.solve.blueprint``) and heads-up no-limit's MCCFR policy
(``python -m acpcbot.solve hunl``, ``acpcbot.solve.hunl``).  Each decision
asks the play-time table for the row of our cards over the actions it
lists and samples it with the seeded generator.  Another policy trained
for the game can be played with ``blueprint:policy=FILE,buckets=FILE``.
An equilibrium approximation: it does not adapt, and a player that cannot
read its opponent loses little against it.

Where the game's spec has a re-solver (hulhe, hunl) it re-solves the river
over the real cards by default (safe re-solving, ``acpcbot.solve.resolving``;
docs/resolving-play.md, docs/resolving-hunl.md): both ranges are the
blueprint's reach along the real history, and the opponent enters the
subgame through the Resolve gadget with its best-response values against
the blueprint, so the re-solved play is no more exploitable than the
blueprint's; in no-limit the opponent's real bet sizes enter the re-solved
tree.  ``blueprint:resolve=0`` plays the shipped policy alone; a re-solve
the clock cuts short plays the blueprint's own row.  A spec without one
plays the table alone whatever ``resolve`` says.
"""

from __future__ import annotations

import functools
import os
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from ..engine import Action
from ..gamedef import GameDef
from ..solve.blueprint_registry import games_with_blueprints, spec_for
from .base import INLINE_ENDS, ActionPolicy, Param, RunMode, Strategy, parse_bool
from .registration import register

#: the re-solves' stopping rule, % of the pot (``acpcbot.solve.resolving.clock``'s TARGET and SETTLE: the solver is
#: imported only when re-solving)
TARGET, SETTLE = 0.01, 0.05
#: the committed share of the opponent in a re-solve (``acpcbot.solve.resolving.gadget.COMMIT``, same reason)
COMMIT = 0.1

if TYPE_CHECKING:
    from ..engine import State
    from ..solve.resolving.floor import ResolvingTable
    from ..world import View


def _file_exists(path: str) -> bool:
    return path == "" or os.path.isfile(path)


@functools.lru_cache(maxsize=4)
def load_blueprint(game: GameDef, policy: str = "", buckets: str = "") -> Any:
    """The blueprint table of ``game`` (its spec's shipped files by default), read once per process and shared.

    A ``BlueprintTable`` (``acpcbot.solve.blueprint_spec``); typed Any so that callers written for one
    game's table (adaptive's hold'em floor) keep their type.
    """
    spec = spec_for(game)
    if spec is None:
        raise ValueError(f"no blueprint plays {game.name or 'this game'} (blueprints: {games_with_blueprints()})")
    return spec.load(game, policy or spec.policy, buckets or spec.buckets)


def shipped_reason(game: GameDef) -> str | None:
    """Why the shipped blueprint cannot play ``game`` (None when it can).

    Decided from the spec and the files' headers (``BlueprintSpec.check``, milliseconds) where the spec has a header
    check, by loading the table otherwise; a damaged table passes the headers and is refused when it is loaded.
    """
    spec = spec_for(game)
    if spec is None:
        return f"the blueprint plays the games with a blueprint only: {games_with_blueprints()}"
    reason = spec.reason(game)
    if reason is not None:
        return reason
    try:
        if spec.check is not None:
            spec.check(game, spec.policy, spec.buckets)
        else:
            load_blueprint(game)
    except Exception as exc:  # noqa: BLE001 - whatever the files' complaint, it is the reason this game is refused
        return f"the shipped blueprint does not fit this game: {exc}"
    return None


@register
class BlueprintStrategy(Strategy):
    """Samples the game's shipped blueprint (the registry's spec) at every decision."""

    name = "blueprint"
    description = ("Heads-up hold'em, limit and no-limit: the shipped blueprint of the game, an abstraction's "
                   "equilibrium approximation (python -m acpcbot.solve hulhe|hunl), sampled.")
    # the parameters, set from params by Strategy.__init__
    resolve: bool
    resolve_iterations: int
    resolve_from: str
    resolve_seconds: float
    resolve_target: float
    resolve_settle: float
    resolve_commit: float
    params: ClassVar[dict[str, Param]] = {
        "policy": Param(str, "", "policy .npz from python -m acpcbot.solve GAME (default: the shipped one)",
                        _file_exists, "must be an existing file"),
        "buckets": Param(str, "", "the card buckets the policy was trained with (default: the shipped ones)",
                         _file_exists, "must be an existing file"),
        "resolve": Param(parse_bool, True, "re-solve the river over the real cards (safe re-solving); 0 plays the "
                                           "policy alone"),
        "resolve_iterations": Param(int, 200, "the most DCFR iterations of a re-solve (they and the measured "
                                              "convergence, not the clock, decide it)",
                                    lambda n: n >= 1, "must be >= 1"),
        "resolve_target": Param(float, TARGET, "a re-solve stops when the opponent's gadget best response gains at "
                                               "most this % of the pot over the blueprint's values (checked every 10 "
                                               "iterations); 0: always resolve_iterations, no check",
                                lambda x: x >= 0, "must be >= 0"),
        "resolve_settle": Param(float, SETTLE, "... and the safety margin moved at most this % of the pot since the "
                                               "last check",
                                lambda x: x >= 0, "must be >= 0"),
        "resolve_commit": Param(float, COMMIT, "the share of the opponent entering a re-solve committed, with its "
                                               "blueprint range (0: Burch et al.'s Resolve gadget alone; 1: unsafe "
                                               "re-solving)",
                                lambda x: 0 <= x <= 1, "must be in [0, 1]"),
        "resolve_from": Param(str, "", "the street re-solving starts on (turn: each street re-solved at its start, "
                                       "the river inside the turn's subgame as 3 classes of cards; flop: the flop "
                                       "to the end of its betting, the rest checked down at the leaves, the turn "
                                       "the blueprint's, the river exact; default: the game's, docs/resolving.md)",
                              choices=("river", "turn", "flop")),
        "resolve_seconds": Param(float, 2.5, "the most seconds a re-solve may take (past it: the blueprint's row)",
                                 lambda x: x > 0, "must be > 0"),
    }
    run_mode = INLINE_ENDS

    def __init__(self, game: GameDef, rng: Any, **params: Any) -> None:
        super().__init__(game, rng, **params)  # unsupported_reason_for: a user's files fit the game they were built for
        vars(self).pop("policy", None)  # the parameter lives on as policy_path; the name is the policy method's
        self.policy_path = params.get("policy") or ""
        self.table = load_blueprint(game, self.policy_path, params.get("buckets") or "")
        self.resolver: Any = None
        self.resolving: ResolvingTable | None = None  # the table's rows, re-solved where the resolver plays
        spec = spec_for(game)
        if self.resolve and spec is not None and spec.resolver is not None:
            self.resolver = spec.resolver(game, self.table, self.resolve_iterations, self.resolve_seconds,
                                          spec.start_round(game, self.resolve_from))
            # the stopping rule (the spec's resolver has the cap and the seconds): 0 is the fixed count
            self.resolver.budget = replace(self.resolver.budget, target=self.resolve_target or None,
                                           settle=self.resolve_settle)
            self.resolver.commit = self.resolve_commit
            self.run_mode = RunMode("guarded", "ends")  # a re-solve takes a second: the client guards its deadline
            from ..solve.resolving.floor import ResolvingTable  # noqa: PLC0415 - the solver loads only when re-solving
            self.resolving = ResolvingTable(self.table, self.resolver)

    def _rows(self, state: "State", deadline: float | None, cap: bool = True) -> np.ndarray:
        """Every holding's row over ``table.actions(state)``: re-solved where the resolver plays, the blueprint's
        elsewhere."""
        if self.resolving is not None:
            return self.resolving.probabilities_all(state, deadline, cap)
        return self.table.probabilities_all(state)

    @classmethod
    def unsupported_reason(cls, game: GameDef) -> str | None:
        """A game with a registered blueprint whose shipped files are there, trained for this very game."""
        return shipped_reason(game)

    @classmethod
    def not_default_reason(cls, game: GameDef) -> str | None:
        """Played only when named where the spec is not yet for the default players, or names another default
        standing on it (hunl: adaptive)."""
        spec = spec_for(game)
        if spec is not None and not spec.default_players:
            return f"the {spec.name} blueprint plays when named; the game's default players do not stand on it yet"
        if spec is not None and spec.default_strategy != cls.name:
            return f"{spec.default_strategy}, standing on the {spec.name} blueprint, is the game's default"
        return cls.unsupported_reason(game)

    @classmethod
    def unsupported_reason_for(cls, game: GameDef, params: dict[str, Any]) -> str | None:
        """With a policy or bucket file of the user's, the files decide which game they fit (Blueprint checks them
        against the game when it loads them)."""
        if params.get("policy") or params.get("buckets"):
            return _any_blueprint_game(game)
        return cls.unsupported_reason(game)

    def act(self, view: View, deadline: float) -> Action:
        """Sample our cards' row: the re-solved one where the resolver plays, the blueprint's elsewhere or past the
        clock (a deadline of 0 or less: no clock, as a direct call without a client gives)."""
        state = view.state
        if self.resolving is not None:
            row = self.resolving.probabilities(state, deadline=deadline if deadline > 0 else None)
        else:
            row = self.table.probabilities(state)
        actions = self.table.actions(state)
        x = self.rng.random()
        for col in range(len(actions)):  # a fixed order keeps games reproducible
            if row[col] > 0:
                choice = col
                x -= row[col]
                if x < 0:
                    break
        return actions[choice]

    def quick_action(self, view: View) -> Action:
        """The blueprint row's most likely action (a table read): the answer ready if a re-solve overruns."""
        return self.table.actions(view.state)[int(np.argmax(self.table.probabilities(view.state)))]

    has_policy = True

    def policy(self, view: View) -> ActionPolicy:
        """Every holding's rows over the legal actions: the re-solved ones where the resolver plays (solved to the
        iteration count whatever the clock), the blueprint's elsewhere."""
        legal = view.state.legal_actions()
        actions = self.table.actions(view.state)
        cols = [i for i, a in enumerate(actions) if a[0] in legal]
        probs = self._rows(view.state, None, cap=False)[:, cols]
        total = probs.sum(axis=1, keepdims=True)
        probs = np.divide(probs, total, out=np.full(probs.shape, 1.0 / len(cols)), where=total > 0)
        return ActionPolicy(tuple(actions[i] for i in cols), probs, self.game)

    def played_policy(self, view: View) -> ActionPolicy | None:
        """Re-solving: :meth:`policy` as ``act`` left it (the solve it just ran is kept, so nothing is solved
        again, and where the clock cut it the table's rows it played); the table alone is cheap to replay."""
        return self.policy(view) if self.resolving is not None else None


def _any_blueprint_game(game: GameDef) -> str | None:
    if spec_for(game) is None:
        return f"the blueprint plays the games with a blueprint only: {games_with_blueprints()}"
    return None
