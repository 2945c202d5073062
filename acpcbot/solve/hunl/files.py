"""Which games the HUNL blueprint takes and where its shipped policy lives (shared by the spec and the build)."""

from __future__ import annotations

from pathlib import Path

from ...gamedef import GameDef

#: the shipped policy file
DEFAULT_POLICY = Path(__file__).resolve().parents[2] / "data" / "blueprint_hunl.npz"


def fits(game: GameDef) -> bool:
    """2-player no-limit hold'em (52 cards, 2 hole cards, boards of 0, 3, 1 and 1 cards)."""
    return game.is_nolimit and game.num_players == 2 and game.is_holdem
