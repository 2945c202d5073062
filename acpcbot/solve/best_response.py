"""Exact best responses, policy values and exploitability (OpenSpiel's NashConv / number of players)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .tree import PublicTree


@dataclass(frozen=True)
class Exploitability:
    """How much each player could gain by deviating alone from a policy, in chips per hand."""

    values: tuple[float, ...]          # each position's expected payoff under the policy
    best_responses: tuple[float, ...]  # each position's payoff playing a best response to the others
    big_blind: int

    @property
    def gains(self) -> tuple[float, ...]:
        """Best-response value minus policy value, per position."""
        return tuple(b - v for b, v in zip(self.best_responses, self.values))

    @property
    def nash_conv(self) -> float:
        """Sum of the gains."""
        return float(sum(self.gains))

    @property
    def chips(self) -> float:
        """Exploitability in chips per hand: NashConv divided by the number of players."""
        return self.nash_conv / len(self.values)

    @property
    def mbb(self) -> float:
        """Exploitability in milli-big-blinds per hand."""
        return 1000.0 * self.chips / self.big_blind

    def as_dict(self) -> dict[str, object]:
        """JSON-friendly summary."""
        return {"exploitability_chips": self.chips, "exploitability_mbb": self.mbb, "nash_conv": self.nash_conv,
                "values": list(self.values), "best_responses": list(self.best_responses),
                "gains": list(self.gains)}


def policy_values(tree: PublicTree, sigma: np.ndarray) -> tuple[float, ...]:
    """Each position's expected payoff when everyone plays ``sigma``."""
    reach = tree.reach(sigma)
    return tuple(tree.value(sigma, p, reach=reach) for p in range(tree.num_players))


def best_response_value(tree: PublicTree, sigma: np.ndarray, player: int) -> float:
    """The payoff of ``player``'s exact best response to the others playing ``sigma``."""
    return tree.value(sigma, player, best=True)


def exploitability(tree: PublicTree, sigma: np.ndarray) -> Exploitability:
    """Policy values, best-response values and the exploitability of ``sigma``."""
    reach = tree.reach(sigma)
    n = tree.num_players
    values = tuple(tree.value(sigma, p, reach=reach) for p in range(n))
    best = tuple(tree.value(sigma, p, best=True, reach=reach) for p in range(n))
    return Exploitability(values=values, best_responses=best, big_blind=tree.game.big_blind)
