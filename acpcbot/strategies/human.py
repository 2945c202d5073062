"""A person at the terminal: shows the hand in poker terms, reads an action, asks again until it is legal.

The client runs it on its worker thread without a deadline
(``run_mode = RunMode("untimed")``): a person needs time, and the dealer's own
limits still apply (``acpc-match human`` starts a dealer without them).
Amounts are chips put in *this street*, as at a real table: ``r 300``
raises to 300 in this street.  Ctrl-D (end of input) asks before leaving
and leaving closes the connection: no hand is ever folded on the
player's behalf.
"""

from __future__ import annotations

import re
import sys
from typing import Any, Callable, TextIO

from ..engine import CALL, FOLD, RAISE, Action, ActionType, raise_to
from ..world import MatchInfo, View
from . import human_screen as screen
from .base import RunMode, Strategy
from .registration import register

_F, _C, _R = ActionType.FOLD, ActionType.CALL, ActionType.RAISE
_WORD = {"f": _F, "fold": _F, "c": _C, "call": _C, "k": _C, "check": _C,
         "r": _R, "raise": _R, "b": _R, "bet": _R}
_ENTRY = re.compile(r"^([a-z]+)\s*(-?\d+)?$")

HELP = ("Enter f (fold), c or k (check/call), r (raise); in no-limit games 'r N' (or r<N>, 'raise N', 'bet N') "
        "raises to N chips put in this street, 'min' and 'allin' name the smallest and largest raise; "
        "Ctrl-D leaves the match (it asks first).")


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
    lo, hi = screen.street_bounds(view)
    if size is not None and len(size.lstrip("-")) > len(str(hi)):
        # more digits than the largest raise has (and Python refuses to read past 4,300 of them)
        raise ValueError(f"{size[:12]}{'...' if len(size) > 12 else ''} is more chips than anyone holds: "
                         f"a raise goes to {lo}..{hi} in this street")
    if view.game.is_limit:  # the options read "r raise to 40": r alone, or r with that very size
        if size is not None and int(size) != lo:
            raise ValueError(f"limit raises have a fixed size: enter r alone (or r {lo})")
        return RAISE
    if size is None:
        raise ValueError(f"say how much: r N raises to N chips in this street, from {lo} to {hi}")
    to = int(size)
    if not lo <= to <= hi:
        raise ValueError(f"a raise must go to between {lo} and {hi} chips in this street, not {to}")
    return raise_to(bounds[0] + (to - lo))


@register
class HumanStrategy(Strategy):
    """A person plays through the terminal (standard input and output)."""

    name = "human"
    description = "You play: your cards, the board, bets per street, pot, stacks and your options; reads your action."
    run_mode = RunMode("untimed")  # a person needs time: no deadline, on the worker thread

    def __init__(self, *args: Any, stdin: TextIO | None = None, stdout: TextIO | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        #: set by whoever runs the match (acpcbot's command line): ends it by closing the connection
        self.leave: Callable[[], None] | None = None
        self.info: MatchInfo | None = None
        self._closed = False
        self._shown_actions = 0
        self._hand: int | None = None
        self._round = 0
        # the running total is kept here, hand by hand as shown: the shared match history may already
        # hold the next hand when this hook runs on the worker thread
        self._ended: int | None = None
        self._total = 0.0
        self._hands = 0

    @property
    def left(self) -> bool:
        """Whether the person chose to leave the match."""
        return self._closed

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def start_match(self, match: MatchInfo) -> None:
        """Greet the player by the name the dealer knows."""
        self.info = match
        game = match.game
        against = f" against {', '.join(match.opponents)}" if match.opponents else ""
        kind = "no-limit" if game.is_nolimit else "limit"
        who = "You" if match.name == "you" else f"You ({match.name})"
        self._say(f"{who} play {kind} {game.name or 'poker'}{against}. {HELP}")

    def observe(self, view: View) -> None:
        """Show a new hand, every action taken since the last state, each new street and the end of the hand."""
        names = screen.names_by_position(view, self.info)
        if view.hand_id != self._hand:
            self._hand = view.hand_id
            self._shown_actions = 0
            self._round = 0
            self._say("\n" + screen.hand_header(view, names, view.game))
        actions = view.actions
        for i in range(self._shown_actions, len(actions)):
            if actions[i].round != self._round:
                self._new_street(view, actions[i].round)
            self._say("  " + screen.describe_action(view, i, names))
        self._shown_actions = len(actions)
        if view.round != self._round and not view.is_final:
            self._new_street(view, view.round)
        if view.is_final and self._ended != view.hand_id:
            self._ended = view.hand_id
            payoffs = view.payoffs
            self._total += payoffs[view.position] if payoffs is not None else 0.0
            self._hands += 1
            for line in screen.hand_end(view, names, self._total, self._hands):
                self._say(line)

    def _new_street(self, view: View, round_: int) -> None:
        self._round = round_
        text = f"-- {screen.street_name(view.game, round_)}"
        new = view.board[round_] if round_ < len(view.board) else ()
        if new:
            text += f": {screen.cards(new)}"
            if round_ > 1 or len(new) != sum(len(b) for b in view.board[:round_ + 1]):
                text += f"  (board {screen.cards([c for b in view.board[:round_ + 1] for c in b])})"
        self._say(text)

    def describe(self, view: View) -> str:
        """The table as the person needs it to decide: cards, board, pot, this street's bets, stacks, options."""
        names = screen.names_by_position(view, self.info)
        board = screen.cards(view.board_cards) if view.board_cards else "-"
        return "\n".join([f"Your cards {screen.cards(view.hole)}, board {board}",
                          screen.table(view, names) + (f"; to call {view.to_call}" if view.to_call else ""),
                          screen.options(view)])

    def act(self, view: View, deadline: float) -> Action:
        """Ask until the entry is a legal action; at the end of input, ask before leaving (never fold for the player)."""
        if self._closed:
            return view.fold_or_check()
        self._say(self.describe(view))
        while True:
            self.stdout.write("your action> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                if self._confirm_leave():
                    return self._leave(view)
                continue
            if line.strip().lower() in ("?", "h", "help"):
                self._say(HELP)
                continue
            try:
                return parse_entry(line, view)
            except ValueError as exc:
                self._say(f"not valid: {exc}. {screen.options(view)}")

    def _confirm_leave(self) -> bool:
        """After Ctrl-D: leave only when the player says so (or input is closed for good)."""
        self.stdout.write("\nLeave the match? y to leave, Enter to go on: ")
        self.stdout.flush()
        answer = self.stdin.readline()
        return not answer or answer.strip().lower() in ("y", "yes", "q", "quit")

    def _leave(self, view: View) -> Action:
        self._closed = True
        if self.leave is not None:
            self._say("You left the match.")
            self.leave()  # the connection closes before the answer below could be sent
        else:
            self._say("You left: nothing here can close the connection, so every hand is checked or folded now.")
        return view.fold_or_check()
