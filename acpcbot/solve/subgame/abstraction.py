"""Betting abstractions for the rest of a hand: which raise-to sizes a subgame tree offers at a decision.

Limit games need none (the engine's fold/call/raise are all there is).  A
no-limit :class:`BetSizes` names its sizes as fractions of the pot, as
multiples of the opponent's bet on this street, all-in, the minimum raise
and any raise-to totals the caller adds (the opponent's actual bet, for
nested solving).  Every size is clamped into the engine's legal range, and
a size at or past the stack becomes all-in; duplicates go.  ``spot_sizes()``
is the exact tree of ``SOLVER_SPOTS.md`` (bet 50%/100%/all-in, raise
2x/all-in, no minimum raise, uncapped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...engine import State


def round_half_up(x: float) -> int:
    """Nearest integer, halves away from zero (Rust's ``f64::round``, not Python's banker's rounding)."""
    return int(math.floor(x + 0.5)) if x >= 0 else -int(math.floor(-x + 0.5))


@dataclass(frozen=True)
class BetSizes:
    """A no-limit betting abstraction; every size is a raise-TO for the street, clamped to the engine's bounds.

    ``bet_fractions``: opening bets as fractions of the pot (chips in the
    middle when the street started, plus any bets before it on it, i.e. the
    pot the bettor faces).  ``raise_fractions``: raises as fractions of the
    pot after calling (the usual "pot-sized raise" is 1.0).
    ``raise_multiples``: raise to this multiple of the opponent's total on
    this street (2.0 is "2x").  ``allin`` adds the all-in, ``min_raise`` the
    engine's minimum raise; ``extra_to`` adds raise-to totals for the hand
    (e.g. the opponent's actual bet).  ``max_raises`` caps the bets and
    raises per street (None: only the stack and the game limit it).
    """

    bet_fractions: tuple[float, ...] = (0.5, 1.0)
    raise_fractions: tuple[float, ...] = (1.0,)
    raise_multiples: tuple[float, ...] = ()
    allin: bool = True
    min_raise: bool = True
    extra_to: tuple[int, ...] = ()
    max_raises: int | None = None
    #: the position ``extra_to`` is offered to (None: both); re-solving gives the opponent its real sizes only
    extra_player: int | None = None

    def __post_init__(self) -> None:
        for name in ("bet_fractions", "raise_fractions", "raise_multiples"):
            for v in getattr(self, name):
                if not (isinstance(v, (int, float)) and v > 0 and math.isfinite(v)):
                    raise ValueError(f"BetSizes.{name}: every size must be a positive finite number, got {v!r}")
        if self.max_raises is not None and self.max_raises < 0:
            raise ValueError(f"BetSizes.max_raises must be >= 0 or None, got {self.max_raises!r}")

    def raise_sizes(self, state: State, street_start: tuple[int, ...]) -> list[int]:
        """Raise-to totals (for the hand) offered to the player to act, ascending, legal and distinct."""
        bounds = state.raise_bounds()
        if bounds is None:
            return []
        p = state.current_player
        if self.max_raises is not None and state.num_raises >= self.max_raises:
            return []
        lo, hi = bounds
        base = street_start[p]  # the player's chips in before this street
        facing = state.max_spent  # the opponent's total for the hand
        pot = sum(state.spent)
        wanted: list[int] = []
        if facing == max(street_start):  # nobody has bet on this street: an opening bet
            street_pot = pot
            wanted += [facing + round_half_up(f * street_pot) for f in self.bet_fractions]
        else:
            to_call = facing - state.spent[p]
            wanted += [facing + round_half_up(f * (pot + to_call)) for f in self.raise_fractions]
            wanted += [base + round_half_up(m * (facing - base)) for m in self.raise_multiples]
        if self.min_raise:
            wanted.append(lo)
        if self.extra_player is None or self.extra_player == p:
            wanted += [int(s) for s in self.extra_to]
        out = set()
        for size in wanted:
            # a size at or past the stack is the all-in (rule 4 of SOLVER_SPOTS.md)
            out.add(hi if size >= hi else max(size, lo))
        if self.allin:
            out.add(hi)
        return sorted(out)


@dataclass(frozen=True)
class LadderSizes(BetSizes):
    """A blueprint's ladder of pot fractions: per street and raise depth, plus all-in and ``extra_to``.

    ``ladder[round][depth]`` are the fractions of a raise at that depth
    (the last list serves deeper raises) while ``caps[round]`` raises were
    made before; past the cap only all-in (and the extras) remain.  A
    fraction ``f`` raises to ``facing + round(f * (pot + to call))`` with
    Python's rounding, clamped into the legal range, the way the HUNL
    blueprint's own tree makes its raises (``hunl.actions.raise_target``),
    so a re-solved tree offers the blueprint's sizes to the chip.
    """

    ladder: tuple[tuple[tuple[float, ...], ...], ...] = ()
    caps: tuple[int, ...] = ()

    def fractions(self, round_: int, depth: int) -> tuple[float, ...]:
        """The ladder's fractions at ``depth`` raises into ``round_`` (none past its cap)."""
        if round_ >= len(self.ladder) or depth >= self.caps[min(round_, len(self.caps) - 1)]:
            return ()
        lists = self.ladder[round_]
        return lists[min(depth, len(lists) - 1)] if lists else ()

    def raise_sizes(self, state: State, street_start: tuple[int, ...]) -> list[int]:
        """Raise-to totals offered to the player to act: the ladder's, all-in, the extras; ascending, distinct."""
        bounds = state.raise_bounds()
        if bounds is None:
            return []
        lo, hi = bounds
        p = state.current_player
        wanted = [state.max_spent + int(round(f * (state.pot + state.to_call())))
                  for f in self.fractions(state.round, state.num_raises)]
        if self.extra_player is None or self.extra_player == p:
            wanted += [int(s) for s in self.extra_to]
        out = {min(max(size, lo), hi) for size in wanted}
        out.add(hi)
        return sorted(out)


def spot_sizes() -> BetSizes:
    """The exact tree of SOLVER_SPOTS.md: bet 50%, 100%, all-in; raise 2x, all-in; no minimum raise; uncapped."""
    return BetSizes(bet_fractions=(0.5, 1.0), raise_fractions=(), raise_multiples=(2.0,), allin=True,
                    min_raise=False)
