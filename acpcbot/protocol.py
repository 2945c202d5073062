"""The ACPC 2.0.0 text protocol as one import: the names of :mod:`acpcbot.notation` a client or strategy uses.

The formats themselves live in the notation package, one module each
(actions, betting, cards field, MATCHSTATE lines); this module only gathers
the names the code above them has always imported from here, so a strategy
writes ``from acpcbot.protocol import parse_match_state`` without knowing
which module owns it.
"""

from __future__ import annotations

from .notation.actions import ACTION_LETTERS, format_action, parse_action, read_action
from .notation.betting import format_betting, replay_betting
from .notation.cardsfield import CardsText, format_cards, parse_cards_field
from .notation.errors import ProtocolError
from .notation.matchstate import (
    MATCHSTATE,
    VERSION_LINE,
    MatchState,
    format_match_state,
    format_reply,
    parse_match_state,
    parse_reply,
)

__all__ = ["ACTION_LETTERS", "MATCHSTATE", "VERSION_LINE", "CardsText", "MatchState", "ProtocolError",
           "format_action", "format_betting", "format_cards", "format_match_state", "format_reply",
           "parse_action", "parse_cards_field", "parse_match_state", "parse_reply", "read_action",
           "replay_betting"]
