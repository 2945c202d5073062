"""Safe re-solving during play (issue 29): the Resolve gadget, exact checks in small games, the hold'em player.

Modules: ``gadget`` (the Resolve gadget over the subgame solver, the
blueprint's values as the opponent's alternatives), ``exact`` (every later
round re-solved over a small game's public tree, for the exact best
response), ``ranges`` (both players' ranges from a policy along the real
history), ``clock`` (the time budget), ``player`` (re-solving decisions of
the hold'em blueprint), ``floor`` (a blueprint table re-solved where the
resolver plays, behind the table's own interface).
"""

from .gadget import ResolveGadget, alternative_values, load_strategy, resolve

__all__ = ["ResolveGadget", "alternative_values", "load_strategy", "resolve"]
