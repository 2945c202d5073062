"""Where the shipped hold'em blueprint's files live and which games it takes: names only, no tables.

Every process that lists the strategies reads the blueprint registry; this
module lets it do so without loading numpy's card tables
(``abstraction`` builds its canonical flops on import).
"""

from __future__ import annotations

from pathlib import Path

from ..gamedef import GameDef

DATA = Path(__file__).resolve().parents[1] / "data"
DEFAULT_BUCKETS = DATA / "hulhe_buckets.npz"
DEFAULT_POLICY = DATA / "blueprint_hulhe.npz"


def is_limit_holdem(game: GameDef) -> bool:
    """Whether ``game`` is 2-player limit hold'em: 52 cards, 2 hole cards, boards of 0, 3, 1 and 1 cards."""
    return game.is_limit and game.num_players == 2 and game.is_holdem
