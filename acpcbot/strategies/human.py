"""A person at the terminal: shows the hand, reads an action, asks again until it is legal.

The client runs it on its worker thread without a deadline
(``time_limited = False``): a person needs time, and the dealer's own
limits still apply.
"""

from __future__ import annotations

import re
import sys
from typing import Any, TextIO

from ..cards import cards_to_text
from ..engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from ..world import MatchInfo, View
from .base import Strategy
from .registration import register

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
_WORD = {"f": _F, "fold": _F, "c": _C, "call": _C, "k": _C, "check": _C,
         "r": _R, "raise": _R, "b": _R, "bet": _R}
_ENTRY = re.compile(r"^([a-z]+)\s*(-?\d+)?$")

HELP = ("Enter f (fold), c or k (check/call), r (raise); in no-limit games r<N> or 'raise N' raises "
        "TO a total of N chips for the hand, 'min' and 'allin' name the smallest and largest raise.")


def _cards(cards: tuple[int, ...] | list[int]) -> str:
    text = cards_to_text(cards)
    return " ".join(text[i:i + 2] for i in range(0, len(text), 2)) or "-"


def parse_entry(entry: str, view: View) -> Action:
    """The action a person typed in ``view``; ValueError with a helpful reason when it is not legal."""
    text = entry.strip().lower()
    if not text:
        raise ValueError("empty entry")
    bounds = view.raise_bounds
    if text in ("min", "allin", "all-in", "all in", "max"):
        if bounds is None:
            raise ValueError("no raise is allowed here")
        return view.raise_or_call(bounds[0] if text.startswith("min") else bounds[1])
    m = _ENTRY.match(text)
    kind = _WORD.get(m.group(1)) if m else None
    if kind is None:
        raise ValueError(f"cannot read {entry.strip()!r}")
    size = m.group(2)  # type: ignore[union-attr]
    if kind == _F:
        if size is not None:
            raise ValueError("a fold takes no amount")
        if not view.can_fold:
            raise ValueError("there is nothing to call: check (c) instead of folding")
        return FOLD
    if kind == _C:
        if size is not None:
            raise ValueError("a call takes no amount")
        return CALL
    if bounds is None:
        raise ValueError("no raise is allowed here")
    if view.game.is_limit:
        if size is not None:
            raise ValueError("limit raises have a fixed size: enter r alone")
        return RAISE
    if size is None:
        raise ValueError(f"say how much: r<N> raises to a total of N, from {bounds[0]} to {bounds[1]}")
    to = int(size)
    if not bounds[0] <= to <= bounds[1]:
        raise ValueError(f"a raise must go to between {bounds[0]} and {bounds[1]} chips in total, not {to}")
    return raise_to(to)


@register
class HumanStrategy(Strategy):
    """A person plays through the terminal (standard input and output)."""

    name = "human"
    description = "You play: shows cards, board, pot, stacks and legal actions, reads your action."
    time_limited = False

    def __init__(self, *args: Any, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self._closed = False
        self._shown_actions = 0
        self._hand: int | None = None
        self._round = 0

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def start_match(self, match: MatchInfo) -> None:
        """Greet the player."""
        self._say(f"acpcbot: you play {match.game.name or 'the game'} as {match.name}. {HELP}")

    def observe(self, view: View) -> None:
        """Show a new hand's cards, every action taken since the last state, and the end of the hand."""
        if view.hand_id != self._hand:
            self._hand = view.hand_id
            self._shown_actions = 0
            self._round = 0
            self._say(f"\n=== hand {view.hand_id}: you are position {view.position} of {view.num_players}; "
                      f"your cards {_cards(view.hole)}")
        actions = view.actions
        for a in actions[self._shown_actions:]:
            who = "you" if a.player == view.position else f"player {a.player}"
            if a.type == _F:
                what = "fold"
            elif a.type == _C:
                what = f"call {a.added}" if a.added else "check"
            else:
                what = f"raise to {a.amount}"
            self._say(f"  {who}: {what}")
        self._shown_actions = len(actions)
        if view.round != self._round and not view.is_final:
            self._round = view.round
            self._say(f"  round {view.round + 1}, board {' / '.join(_cards(b) for b in view.board if b) or '-'}")
        if view.is_final:
            for p, cards in sorted(view.shown.items()):
                self._say(f"  player {p} shows {_cards(cards)}")
            board = " / ".join(_cards(b) for b in view.board if b)
            result = view.result
            text = "unknown" if result is None else f"{result:+g}"
            self._say(f"  board {board or '-'}; you {text}; match total {view.match.total:+g} "
                      f"after {view.match.hands_played} hands")

    def describe(self, view: View) -> str:
        """The table as the person needs it to decide."""
        board = " / ".join(_cards(b) for b in view.board if b) or "-"
        stacks = ", ".join(("you" if p == view.position else f"p{p}") + f" {s}"
                           for p, s in enumerate(view.stacks) if not view.folded[p])
        legal = []
        for a in view.legal_actions:
            if a == _F:
                legal.append("f(old)")
            elif a == _C:
                legal.append(f"c(all {view.to_call})" if view.to_call else "c(heck)")
            else:
                lo, hi = view.raise_bounds  # type: ignore[misc]
                legal.append("r(aise)" if view.game.is_limit else f"r<N> with N from {lo} to {hi}")
        lines = [f"hand {view.hand_id}, round {view.round + 1}: your cards {_cards(view.hole)}, board {board}",
                 f"pot {view.pot}, to call {view.to_call}; stacks: {stacks}" if view.game.is_nolimit
                 else f"pot {view.pot}, to call {view.to_call}",
                 "legal: " + ", ".join(legal)]
        return "\n".join(lines)

    def act(self, view: View, deadline: float) -> Action:
        """Ask until the entry is a legal action; when input is closed, check or fold."""
        if self._closed:
            return view.fold_or_check()
        self._say(self.describe(view))
        while True:
            self.stdout.write("your action> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self._closed = True
                self._say("\ninput closed: checking or folding from now on")
                return view.fold_or_check()
            if line.strip().lower() in ("?", "h", "help"):
                self._say(HELP)
                continue
            try:
                return parse_entry(line, view)
            except ValueError as exc:
                self._say(f"not valid: {exc}. Legal: {self.describe(view).splitlines()[-1][7:]}")
