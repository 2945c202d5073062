"""Local Best Response (Lisý & Bowling 2017): the opponent's range through its policy, and the greedy LBR decision.

LBR plays heads-up against a strategy whose policy it can ask (the
probability of each action for every holding, ``Strategy.policy``).  It
keeps the opponent's range, one weight per holding: uniform over the
holdings not blocked by its own cards and the board, multiplied at every
opponent action by that action's probability under the opponent's policy
(Bayes' rule).  At each of its decisions it values, relative to folding
now, check/call and each raise under the paper's assumption: after a raise
the opponent folds with its policy's probability, otherwise both players
check/call to showdown; after a call both check/call to showdown.  It plays
the best of them, and folds only when every one is worth less than folding.

Refinement of the paper: the equity after a raise is taken against the
opponent's *calling* range (each holding weighted by its probability of
not folding), which is what the assumption implies; the paper uses the
whole range for both.  Either way LBR is a legal strategy, so what it wins
is a lower bound on the opponent's exploitability.

Candidate raises: limit games the one raise; no-limit the paper's minimum,
half pot, pot, two pots and all-in (pot-fraction raises as
``State.raise_to_fraction``), clamped into the legal range, duplicates
dropped; ``lbr_actions`` restricts them street by street (DeepStack's
S1-S4).  Everything here is pure: the caller supplies the equity vector
(``rollout.equity_vector``) and the opponent's fold probabilities.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from ..engine import Action, ActionType, State
from ..gamedef import GameDef
from ..holdings import blocked, num_holdings
from .lbr_actions import candidates_in


class RangeError(ValueError):
    """The opponent took an action its policy gives no probability with any holding left in its range."""


def initial_range(game: GameDef, known: Sequence[int]) -> np.ndarray:
    """Weight 1 for every holding not sharing a card with ``known`` (LBR's own cards and the board), else 0."""
    return (~blocked(game, known)).astype(np.float64)


def narrow(weights: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """The range after an action whose probability per holding is ``probs`` (Bayes' rule, unnormalised)."""
    return weights * probs


def candidates(state: State, setting: Sequence[str] = ("FCR",)) -> list[Action]:
    """LBR's actions in ``state`` (its turn): fold when facing a bet, check/call, then the raises, smallest first.

    ``setting``: the letters of each street (``lbr_actions``; default the full set on every street).
    """
    return candidates_in(state, setting)


@dataclass(frozen=True)
class Valued:
    """One candidate with its value (chips, relative to folding now) and what it was computed from."""

    action: Action
    value: float
    #: the opponent's fold probability against this action (0 for fold and call)
    fold: float
    #: LBR's equity against the range that goes on to showdown
    equity: float


def valuate(state: State, me: int, equity: np.ndarray, weights: np.ndarray,
            fold_probs: Callable[[Action], np.ndarray], actions: Sequence[Action] | None = None) -> list[Valued]:
    """Every candidate of ``state`` valued for position ``me`` against the range ``weights``.

    ``equity[i]``: LBR's showdown share against holding ``i``;
    ``fold_probs(raise)``: the opponent's probability of folding to that
    raise with each holding.  Values are chips relative to folding now.
    ``actions``: the candidates to value (default :func:`candidates`).
    """
    opp = 1 - me
    mine = state.spent[me]
    pot = mine + state.spent[opp]
    total = float(weights.sum())
    if total <= 0:
        raise RangeError("the opponent's range is empty")
    wp = float(weights @ equity) / total
    out: list[Valued] = []
    for action in candidates(state) if actions is None else actions:
        if action[0] == ActionType.FOLD:
            out.append(Valued(action, 0.0, 0.0, wp))
            continue
        after = state.copy().apply(action)
        if action[0] == ActionType.CALL:
            # checked down from here (all-in for less: the opponent's chips above it come back)
            out.append(Valued(action, after.heads_up_value(me, wp) + mine, 0.0, wp))
            continue
        folds = np.clip(fold_probs(action), 0.0, 1.0)
        fp = float(weights @ folds) / total
        calling = weights * (1.0 - folds)
        left = float(calling.sum())
        wp_call = float(calling @ equity) / left if left > 0 else wp
        # if called, the opponent matches up to its stack; chips above that come back
        value = fp * pot + (1.0 - fp) * (after.heads_up_value(me, wp_call, called=True) + mine)
        out.append(Valued(action, value, fp, wp_call))
    return out


def choose(valued: Sequence[Valued]) -> Valued:
    """The best candidate; fold only when every other one is worth less than folding (ties: the more passive)."""
    others = [v for v in valued if v.action[0] != ActionType.FOLD]
    best = max(others, key=lambda v: v.value)  # max keeps the first of equal values: call before raises
    if best.value < 0:
        folds = [v for v in valued if v.action[0] == ActionType.FOLD]
        if folds:
            return folds[0]
    return best


def check_heads_up(game: GameDef) -> str | None:
    """Why LBR cannot play ``game`` (it is defined heads-up), or None."""
    if game.num_players != 2:
        return f"LBR is defined for two players; {game.name or 'this game'} seats {game.num_players}"
    if num_holdings(game) == 0:
        return "the game deals no hole cards"
    return None
