"""Hand ranking and poker mathematics on treys and numpy: ranks, hole pairs and ranges, equity, strength.

Cards are ints ``rank*4 + suit`` (see ``cards.py``); wherever a function
takes cards, ACPC text such as ``"AsKd"`` works too.  The package's parts:

- ``tables``: the rank tables (built from treys, cached and verified, loaded on first use);
- ``ranking``: ``rank``, ``rank_batch``, rank classes, ``showdown_value``, ``generic_value``;
- ``pairs``: the 1326 hole pairs (``PAIRS``, ``pair_index``, ``pair_ranks``: every holding on a board) and ranges;
- ``runouts``: ``river_ranks``, every holding on every river of a turn board;
- ``odds``: ``equity(hole, board, opponents, ranges)`` -> ``Equity``;
- ``strength``: ``hand_strength``, ``hand_potential``, ``effective_hand_strength``, ``showdown_shares``.

Every public name is importable from here; a part is imported only when
one of its names is first asked for, so importing the ranking (the engine
does) loads neither equity code nor tables.
"""

from __future__ import annotations

import importlib
from typing import Any

_PARTS = {
    "tables": ("WORST_RANK", "RANK_WEIGHTS", "KEY_A", "KEY_B", "build_tables", "load_tables", "table_stamp",
               "table_digest", "cache_dir", "tables_valid"),
    "ranking": ("RankClass", "CLASS_WORST_RANKS", "CLASS_NAMES", "CardsLike", "Ranking", "rank", "rank_batch",
                "rank_class", "rank_class_batch", "rank_class_name", "hand_description", "showdown_value",
                "generic_value", "default_ranking"),
    "pairs": ("NUM_PAIRS", "PAIRS", "PAIR_INDEX", "pair_index", "pair_cards", "pair_ranks", "uniform_range",
              "range_of_pairs"),
    "runouts": ("river_ranks",),
    "odds": ("Equity", "equity", "DEFAULT_SAMPLES", "EXACT_LIMIT"),
    "strength": ("Shares", "AHEAD", "TIED", "BEHIND", "showdown_shares", "hand_strength", "hand_potential",
                 "effective_hand_strength"),
}
_WHERE = {name: part for part, names in _PARTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    part = _WHERE.get(name)
    if part is None:
        raise AttributeError(f"module 'acpcbot.evaluator' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{part}", __name__), name)
    globals()[name] = value  # later look-ups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
