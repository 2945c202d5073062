"""``adaptive``, acpcbot's own exploitative hold'em player, as a package: one module per part of the method.

``strategy`` is the player (:class:`AdaptiveStrategy`, registered as
``adaptive``); ``stats`` counts what each opponent does per spot; ``ranges``
is the range arithmetic that narrows its range by those counts, ``tracking``
brings both up to each view of a hand; ``runouts`` samples the boards the
later streets are played on, ``preflop`` draws those of the searches
before the flop; ``search`` is the heads-up best response to the model;
``policy`` is the model's policy for the search; ``portfolio`` weighs the
blueprint against the model's deviation by results; ``multiway`` is the
look-ahead against two or more opponents; ``floor`` is the blueprint it
stands on heads-up (the game's spec, re-solved where the spec re-solves).
Importing this package registers the strategy; its names are read from
here as from the one module it was.
"""

from .portfolio import COLD_HANDS, DEVIATION_BB
from .preflop import ALL_PAIRS, PREFLOP_SEARCH_BOARDS, preflop_runouts
from .strategy import MODEL_KIND, MODEL_VERSION, AdaptiveStrategy

__all__ = ["ALL_PAIRS", "COLD_HANDS", "DEVIATION_BB", "MODEL_KIND", "MODEL_VERSION", "PREFLOP_SEARCH_BOARDS",
           "AdaptiveStrategy", "preflop_runouts"]
