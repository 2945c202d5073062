"""The one owner of every text format of a match: each module of this package owns one of them.

* :mod:`.actions`: action text (``f``, ``c``, ``r``, ``r<size>``) read and written;
* :mod:`.betting`: the betting field, replayed through the engine and written;
* :mod:`.cardsfield`: the cards field (hole-card groups, the board by round);
* :mod:`.matchstate`: MATCHSTATE lines, a client's reply line, information-set keys;
* :mod:`.reader`: the fast reader of a seat's next line of a hand (as the full parse reads it);
* :mod:`.lenient`: a reply read as the reference dealer reads it (C's ``sscanf`` leniency);
* :mod:`.loglines`: the match log's lines (header, ``STATE:``, ``SCORE:``) and the transaction lines;
* :mod:`.transcript`: the dealer transcript's ``TO``/``FROM`` lines and time stamps.
* :mod:`.played`: a seat's played rows (the probabilities of each decision, for AIVAT).

PHH hand histories stay in :mod:`acpcbot.phh`, which owns that format alone.
Everything else builds and reads these strings through this package
(``tests/test_layering.py`` checks it); ``docs/notation.md`` says how to add a format.
"""

from __future__ import annotations

from .errors import ProtocolError
from .matchstate import info_key, key_of_line, line_of_key

__all__ = ["ProtocolError", "info_key", "key_of_line", "line_of_key"]
