"""What a blueprint is, whatever the game: one spec naming its game, abstractions, files, build and play-time table.

A blueprint is an approximate equilibrium of an abstraction of a game,
trained offline and played from a table.  ``BlueprintSpec`` says, for one
game, everything the rest of the code needs to know about it: which games
it fits, its card abstraction and bucket file, its action abstraction, the
policy file, the command that builds it, how real cards map to buckets at
play time, the loader of the play-time table and, where it has one, the
re-solver that plays on top of it.  ``blueprint_registry`` lists the specs;
the ``blueprint`` strategy, ``python -m acpcbot.solve`` and adaptive's
floor look a game up there and know nothing else about it.

Every play-time table answers the ``BlueprintTable`` questions: the
actions its rows are over at a state, the row of one holding and the rows
of every holding (``acpcbot.holdings`` order), each summing to 1 with mass
only on actions the engine allows.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

    from ..engine import Action, State
    from ..gamedef import GameDef

PathArg = str | os.PathLike[str]


class BlueprintTable(Protocol):
    """The play-time policy of a blueprint: per-holding probabilities over the actions of a state."""

    game: GameDef

    def actions(self, state: State) -> tuple[Action, ...]:
        """The actions the rows at ``state`` are over, in column order."""

    def probabilities(self, state: State, hole: tuple[int, int] | None = None) -> np.ndarray:
        """One row (len(actions),) for the acting player's cards (or ``hole``)."""

    def probabilities_all(self, state: State) -> np.ndarray:
        """(holdings, len(actions)) rows of every holding of the acting player."""


@dataclass(frozen=True)
class BlueprintSpec:
    """One game's blueprint: what it is, where its files are, how it is built and how it is played."""

    #: registry key, also the game's short name when it is one of the shipped games
    name: str
    #: the game it is trained for (short name or .game path)
    game: str
    #: whether a game definition is one this blueprint's code can play (its policy file decides the rest)
    fits: Callable[[GameDef], bool]
    card_abstraction: str
    action_abstraction: str
    #: how real cards become the buckets the policy is indexed by at play time
    cards_to_buckets: str
    #: the bucket file the policy was trained with (None when the abstraction needs no file)
    buckets: Path | None
    #: the shipped policy file
    policy: Path
    #: the command that builds the policy (and buckets), resumable where the text says so
    build: str
    #: (game, policy path, buckets path or None) -> the play-time table
    load: Callable[[GameDef, PathArg, PathArg | None], BlueprintTable]
    #: the build command's main: argv (the game first) -> exit status
    train: Callable[[list[str]], int]
    #: (game, table, iterations, seconds, start_round) -> a re-solver (``resolving.player.Resolver``'s
    #: interface: ``active(state)``, ``rows(state, deadline, cap)``), or None: the blueprint plays alone
    resolver: Callable[[GameDef, Any, int, float, int], Any] | None = None
    #: the street the ``blueprint`` strategy and adaptive's floor re-solve from unless told (``resolve_from``):
    #: ``river`` (one exact solve of the river), ``turn`` (each street from the turn re-solved at its start) or
    #: ``flop`` (the flop depth-limited, the turn the table's, the river exact)
    resolve_from: str = "river"
    #: what the player is, for the submission kit's description (the ACPC form's questions: equilibrium, model)
    about: str = ""
    #: whether the game's default players stand on this blueprint unasked (it is the game's default strategy where
    #: it comes first in the preferences, and ``adaptive``'s floor): False while it is not yet measured against
    #: the game's field; it still plays when asked for by name (``blueprint``, ``adaptive:floor_policy=FILE``)
    default_players: bool = True
    #: where the default players stand on it, which of them is the game's default: ``blueprint`` (it plays alone)
    #: or ``adaptive`` (standing on it, leaving it only as far as its measured results against an opponent allow)
    default_strategy: str = "blueprint"
    #: (game, policy path, buckets path or None) -> None, or the loader's own error (its words) when the files'
    #: headers say they cannot be played in the game (the game they were trained for, the abstraction's parameters);
    #: reads headers only, never the tables, so that asking whether a blueprint plays a game costs milliseconds, not
    #: a load (a damaged table passes here and is refused, loudly, when loaded). None: the question loads the table
    check: Callable[[GameDef, PathArg, PathArg | None], None] | None = None

    def start_round(self, game: GameDef, street: str = "") -> int:
        """The round re-solving starts on in ``game``: ``street``'s (``river``, ``turn`` or ``flop``), or the spec's
        own when empty."""
        name = street or self.resolve_from
        back = {"river": 1, "turn": 2, "flop": 3}.get(name)
        if back is None or game.num_rounds - back < 1:
            raise ValueError(f"re-solving cannot start on the {name} in {game.name or 'this game'} "
                             f"({game.num_rounds} rounds)")
        return game.num_rounds - back

    def reason(self, game: GameDef) -> str | None:
        """Why the shipped files cannot be played in ``game`` before loading them (None: try loading)."""
        if not self.policy.exists():
            return f"the shipped blueprint {self.policy} is missing (build it: {self.build})"
        return None
