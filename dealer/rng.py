"""The dealer's deals: the reference's MT19937 and dealing order, which live in ``acpcbot.deals``.

The log checker deals from the same code to check a log's cards against its seed, and acpcbot never
imports the dealer, so the code sits in acpcbot's core and the dealer names it here.
"""

from __future__ import annotations

from acpcbot.deals import Dealer, mt19937

__all__ = ["Dealer", "mt19937"]
