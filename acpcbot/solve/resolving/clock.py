"""The time a re-solve may take: a fixed iteration count, capped by seconds and by the decision's deadline.

Iterations, not seconds, decide the answer, so a re-solve is the same
whatever the machine's load (``policy()`` and a replay give the same rows
as play); the seconds only guard the clock.  When the cap comes first the
solve is abandoned and the caller plays the blueprint's own action, which is
always ready.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

#: seconds kept back from the deadline for sending the answer
MARGIN = 0.05


@dataclass(frozen=True)
class Budget:
    """How long one re-solve may run: ``iterations`` of DCFR, at most ``seconds`` and never past a deadline."""

    iterations: int = 300
    seconds: float = 2.5

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ValueError(f"re-solving needs at least one iteration, got {self.iterations}")
        if not self.seconds > 0:
            raise ValueError(f"re-solving needs a positive time cap, got {self.seconds} s")

    def limit(self, deadline: float | None) -> float:
        """Seconds the next solve may take given an absolute ``time.monotonic()`` deadline (None: no deadline)."""
        if deadline is None:
            return self.seconds
        return max(0.0, min(self.seconds, deadline - time.monotonic() - MARGIN))
