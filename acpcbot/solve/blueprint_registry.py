"""The blueprints there are, one spec per game: a new game's blueprint is a new spec module and one line here.

Lookups go through :func:`spec_for` (the spec whose ``fits`` accepts a game
definition, the first listed winning) and :func:`spec_named` (by registry
key).  Nothing else in the code names a blueprint's game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .blueprint_hulhe import HULHE
from .blueprint_spec import BlueprintSpec
from .hunl.spec import HUNL

if TYPE_CHECKING:
    from ..gamedef import GameDef

#: every blueprint, in lookup order
SPECS: tuple[BlueprintSpec, ...] = (
    HULHE,
    HUNL,
)


def spec_for(game: GameDef) -> BlueprintSpec | None:
    """The blueprint spec that plays ``game`` (None when no blueprint does)."""
    for spec in SPECS:
        if spec.fits(game):
            return spec
    return None


def spec_named(name: str) -> BlueprintSpec | None:
    """The blueprint spec registered under ``name`` (None when there is none)."""
    return next((spec for spec in SPECS if spec.name == name), None)


def games_with_blueprints() -> str:
    """The registered blueprints' games, for messages ("hulhe, hunl")."""
    return ", ".join(spec.game for spec in SPECS)
