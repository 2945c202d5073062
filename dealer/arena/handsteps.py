"""A logged hand's actions with the little the analysis reads of the state before each: replayed once, copied never.

``State.steps()`` hands every caller an independent copy of the state
before each action (strategies replaying a hand may keep them).  The run's
statistics and AIVAT's terms for players whose policy is not replayed read
only the round, the bet to match and what each player had put in, so the
analysis replays each hand once here, keeps those numbers in a small
:class:`Before`, and shares the steps between the statistics and AIVAT.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from acpcbot.engine import State, Step


class Before(NamedTuple):
    """The state before an action, as far as the analysis reads it."""

    round: int
    max_spent: int
    spent: tuple[int, ...]
    stack: tuple[int, ...]

    def to_call(self, player: int) -> int:
        """Chips ``player`` must add to call (as ``State.to_call``)."""
        return min(self.max_spent, self.stack[player]) - self.spent[player]


def light_steps(final: State) -> list[Step]:
    """``final.steps()`` with a :class:`Before` in place of each state copy."""
    replay = State(final.game, final.hand_id, final.hole, final.board)
    spent = replay.spent
    stack = tuple(final.game.stack)
    apply = replay.apply_unchecked
    out = []
    i = 0
    for r, (acts, actors) in enumerate(zip(final.actions, final.actors)):
        for action, p in zip(acts, actors):
            before = tuple(spent)
            round_, max_spent = replay.round, replay.max_spent
            apply(action)
            light = Before(round_, max_spent, before, stack)  # the fields of State the analysis reads, no copy
            out.append(Step(i, r, p, action, light, spent[p] - before[p]))  # type: ignore[arg-type]
            i += 1
    return out


def run_steps(hands_per_log: Sequence[Sequence[object]]) -> list[list[list[Step]]]:
    """:func:`light_steps` of every hand of every log (``MatchLog.hands`` lists).

    The steps depend on the game and the actions alone (not the cards):
    hands with the same betting share one list (a match's hands repeat a
    few betting lines; call against call has one), which callers may use
    to compute what follows from the betting once per line.
    """
    out = []
    lines: dict[tuple[object, tuple[tuple[object, ...], ...]], list[Step]] = {}
    for hands in hands_per_log:
        per_log = []
        for h in hands:
            state = h.state  # type: ignore[attr-defined]
            key = (state.game, tuple(map(tuple, state.actions)))
            steps = lines.get(key)
            if steps is None:
                steps = lines[key] = light_steps(state)
            per_log.append(steps)
        out.append(per_log)
    return out
