"""What adaptive stands on: the shipped blueprint of the game, where there is one, as its equilibrium floor.

Heads-up limit hold'em has one (``blueprint``); adaptive plays it cold and
deviates from it only as far as the portfolio's measured results justify
(``adaptive.portfolio``).  Elsewhere adaptive has no floor and plays its
model's best response alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...gamedef import GameDef
from ..blueprint import load_blueprint, shipped_reason

if TYPE_CHECKING:
    from ...solve.blueprint import Blueprint


def stands_on_blueprint(game: GameDef, blueprint: bool, opponent: str) -> bool:
    """Whether adaptive with these parameters stands on the shipped blueprint in ``game`` (heads-up limit
    hold'em with the blueprint's files, ``blueprint`` on, no known opponent given)."""
    return bool(blueprint) and not opponent and game.num_players == 2 and game.is_limit \
        and shipped_reason(game) is None


def shipped_blueprint(game: GameDef) -> Blueprint | None:
    """The shipped blueprint when it is for ``game`` (heads-up limit hold'em) and its files are there, else None."""
    if game.num_players != 2 or not game.is_limit or shipped_reason(game) is not None:
        return None
    return load_blueprint(game)
