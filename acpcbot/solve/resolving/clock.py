"""The time a re-solve may take: iterations up to a cap or to a measured target, capped by seconds and the deadline.

Iterations and a measured convergence figure, not seconds, decide the
answer, so a re-solve is the same whatever the machine's load (``policy()``
and a replay give the same rows as play); the seconds only guard the
clock.  The figures are the gadget's excess and margin
(``gadget.solve_to``), checked every ``check_every`` iterations;
``target`` None runs the cap's iterations every time.  When the cap comes first the
solve is abandoned and the caller plays the blueprint's own action, which is
always ready.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

#: seconds kept back from the deadline for sending the answer
MARGIN = 0.05

#: a re-solve stops once its gadget excess is at most TARGET % of the root pot and its margin moved at most SETTLE %
#: of it since the last check (docs/resolving-play.md, "How many iterations a re-solve needs")
TARGET = 0.01
SETTLE = 0.05

#: a re-solve rooted on the turn (``blueprint:resolve_from=turn``): the river inside it as this many classes of cards
#: (``subgame.chance``; the river is re-solved exactly at its start) and at most this many DCFR iterations
#: (docs/resolving.md, "Re-solving from the turn")
TURN_CLASSES = 3
TURN_ITERATIONS = 40


@dataclass(frozen=True)
class Budget:
    """How long one re-solve may run: DCFR until its gadget excess is at most ``target`` % of the root pot and
    its margin moved at most ``settle`` % since the last check (checked every ``check_every`` iterations; target
    None: no check) or ``iterations``, at most ``seconds`` and never past a deadline."""

    iterations: int = 300
    seconds: float = 2.5
    target: float | None = TARGET
    settle: float | None = SETTLE
    check_every: int = 10

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError(f"re-solving needs at least one iteration, got {self.iterations}")
        if not self.seconds > 0:
            raise ValueError(f"re-solving needs a positive time cap, got {self.seconds} s")
        if self.target is not None and not self.target >= 0:
            raise ValueError(f"a re-solve's target is a share of the pot >= 0 (or None), got {self.target}")
        if self.settle is not None and not self.settle >= 0:
            raise ValueError(f"a re-solve's settle is a share of the pot >= 0 (or None), got {self.settle}")
        if self.check_every < 1:
            raise ValueError(f"a re-solve checks its excess every >= 1 iterations, got {self.check_every}")

    def limit(self, deadline: float | None) -> float:
        """Seconds the next solve may take given an absolute ``time.monotonic()`` deadline (None: no deadline)."""
        if deadline is None:
            return self.seconds
        return max(0.0, min(self.seconds, deadline - time.monotonic() - MARGIN))


@dataclass
class MatchClock:
    """The seconds re-solving may spend over a match: ``per_hand`` on average, at most ``per_decision`` a solve.

    A bank: it starts at ``reserve`` and grows by ``per_hand`` with every
    new hand seen; each solve may take what is in it (at most
    ``per_decision``) and its wall time is taken out.  Streets before the
    re-solving round cost nothing (table reads), so the time of the hands
    that fold early pays for the rivers (or turns) of the others; a solve
    the bank cannot pay is cut short and the blueprint's row plays, so the
    match average never passes ``per_hand`` (plus the reserve).
    """

    per_hand: float = 2.0
    per_decision: float = 6.0
    reserve: float = 6.0
    hands: int = 0
    used: float = 0.0
    _last: int | None = None

    def __post_init__(self) -> None:
        if not (self.per_hand > 0 and self.per_decision > 0 and self.reserve >= 0):
            raise ValueError(f"a match clock needs positive seconds, got {self.per_hand} s a hand, "
                             f"{self.per_decision} s a decision, {self.reserve} s reserve")

    def see(self, hand_id: int) -> None:
        """Count hand ``hand_id`` in (once, however many decisions it has): it adds ``per_hand`` to the bank."""
        if hand_id != self._last:
            self._last = hand_id
            self.hands += 1

    def allowance(self, hand_id: int) -> float:
        """Seconds the next solve of hand ``hand_id`` may take."""
        self.see(hand_id)
        bank = self.reserve + self.per_hand * self.hands - self.used
        return max(0.0, min(self.per_decision, bank))

    def charge(self, seconds: float) -> None:
        """Take a solve's wall time out of the bank."""
        self.used += max(0.0, seconds)


def nested_settings(num_rounds: int, start_round: int, iterations: int, seconds: float) -> dict[str, Any]:
    """The ``Resolver`` keywords of a re-solver starting on ``start_round``: from before the last round, every
    round re-solved at its start, the last card as TURN_CLASSES classes and at most TURN_ITERATIONS iterations in
    a solve rooted before it; none from the last round (one exact solve).  From two rounds or more before the
    last (hold'em's flop): those rounds depth-limited (``subgame.leaves``), the round before the last left to the
    blueprint, the last re-solved exactly at its start (docs/resolving-hunl.md, "From the flop")."""
    if start_round >= num_rounds - 1:
        return {}
    out: dict[str, Any] = {"last_classes": TURN_CLASSES, "early": Budget(min(iterations, TURN_ITERATIONS), seconds)}
    if start_round <= num_rounds - 3:
        out["depth_limited"] = tuple(range(start_round, num_rounds - 2))
        out["skip"] = (num_rounds - 2,)
    return out
