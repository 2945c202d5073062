"""Conventions shared by the studies' players (docs/studies.md, "Conventions shared by all of them").

Every player decides in its own terms (fold / call / raise to some amount,
or a probability triple); :func:`intent_to_action` turns such an intent
into a legal engine action the same way for all of them, with the engine's
``fold_or_check`` (never fold when a check is free) and ``raise_or_call``
(raise-to amounts clamped into the legal range, ``r`` in limit games, a
call when no raise is allowed).
"""

from __future__ import annotations

import random
from typing import Sequence

from ..engine import CALL, Action, ActionType, State
from ..gamedef import GameDef


def study_blinds(game: GameDef) -> tuple[float, float]:
    """(SB, BB) as the studies use them: the two largest blinds, else BB = smallest raise size, SB = BB/2."""
    blinds = sorted((b for b in game.blind if b > 0), reverse=True)
    if len(blinds) >= 2:
        return float(blinds[1]), float(blinds[0])
    if len(blinds) == 1:
        return blinds[0] / 2, float(blinds[0])
    sizes = [s for s in game.raise_size if s > 0]
    bb = float(min(sizes)) if sizes else 1.0
    return bb / 2, bb


def holdem_only(game: GameDef) -> str | None:
    """Why a hold'em-only strategy cannot play ``game`` (None for Texas hold'em of any size)."""
    if not game.is_holdem:
        return "its rules are written for Texas hold'em (2 hole cards, 52 cards, 4 rounds with a 3-1-1 board)"
    return None


def sample_triple(rng: random.Random, triple: Sequence[float]) -> ActionType:
    """Draw fold, call or raise from a (fold, call, raise) probability triple (renormalised)."""
    f, c, r = (max(0.0, float(x)) for x in triple)
    total = f + c + r
    if total <= 0:
        return ActionType.CALL
    x = rng.random() * total
    if x < f:
        return ActionType.FOLD
    if x < f + c:
        return ActionType.CALL
    return ActionType.RAISE


def intent_to_action(state: State, kind: ActionType, target: float | None = None) -> Action:
    """The legal action for an intent: fold (check if free), call, or raise to ``target``."""
    if kind == ActionType.FOLD:
        return state.fold_or_check()
    if kind == ActionType.RAISE:
        return state.raise_or_call(target)
    return CALL
