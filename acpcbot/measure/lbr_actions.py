"""LBR's action settings: which actions Local Best Response may take on each street (DeepStack's S1-S4, ``full``).

DeepStack (Moravčík et al. 2017, arXiv 1701.01724, Table 1 and its
supplement) measured LBR under four restrictions, street by street
(preflop / flop / turn / river), because in no-limit a wider action set is
not always better for a greedy player that assumes check/call afterwards:

- S1: fold or call on every street;
- S2: check/call preflop and on the flop; fold, call, pot-sized bet, all-in
  on the turn and the river;
- S3: check/call preflop and on the flop; fold, call and 56 bet sizes on the
  turn and the river;
- S4: check/call preflop; fold, call and 56 bet sizes on the flop; fold or
  call on the turn and the river.

``full`` (the default) is Lisý & Bowling's own set on every street: fold,
call, the minimum raise, half pot, pot, two pots and all-in.

A setting is written street by street, ``/`` between streets, each street a
set of letters: ``F`` fold (when facing a bet), ``C`` check/call (always
allowed: a street without any action would leave LBR nothing to play),
``P`` a pot-sized raise, ``A`` all-in, ``B`` the 56 sizes, ``R`` the full
set's raises.  The last street's letters repeat for games with more rounds.
In limit games every raise letter means the game's one raise.  Beside the
names above, ``cc1`` (check/call preflop, the full set after) and ``cc2``
(check/call preflop and flop) restrict the early streets, for limit games
(against the hulhe blueprint they win less than ``full``: docs/lbr.md);
any other setting can be given in the street syntax, e.g. ``C/C/FCR/FCR``.

The 56 sizes: DeepStack's supplement gives their number, but we did not find
the list itself in the sources available here, so this module defines its
own, documented set: the minimum raise, all-in and 54 raises by a fraction
of the pot after calling (``FRACTIONS_56``), each clamped into the legal
range (duplicates after clamping are dropped, so fewer than 56 remain when
the stacks are short).
"""

from __future__ import annotations

from typing import Sequence

from ..engine import CALL, FOLD, Action, ActionType, State

#: the full set's raises as fractions of the pot after calling (Lisý & Bowling; min and all-in are added)
POT_FRACTIONS = (0.5, 1.0, 2.0)

#: our 54 pot fractions for the ``B`` sizes (with the minimum raise and all-in: 56 sizes)
FRACTIONS_56: tuple[float, ...] = (
    tuple(round(0.10 + 0.05 * k, 2) for k in range(19))        # 0.10 .. 1.00 by 0.05
    + tuple(round(1.1 + 0.1 * k, 1) for k in range(10))        # 1.1 .. 2.0 by 0.1
    + tuple(2.25 + 0.25 * k for k in range(8))                 # 2.25 .. 4.0 by 0.25
    + tuple(4.5 + 0.5 * k for k in range(12))                  # 4.5 .. 10 by 0.5
    + (11.0, 12.0, 13.0, 14.0, 15.0))                          # beyond 15 pots: all-in stands for them
assert len(FRACTIONS_56) == 54 and len(set(FRACTIONS_56)) == 54

#: the named settings, street by street
SETTINGS: dict[str, str] = {
    "full": "FCR",
    "S1": "FC/FC/FC/FC",
    "S2": "C/C/FCPA/FCPA",
    "S3": "C/C/FCB/FCB",
    "S4": "C/FCB/FC/FC",
    "cc1": "C/FCR",
    "cc2": "C/C/FCR",
}

LETTERS = "FCPABR"


def parse_setting(text: str) -> tuple[str, ...]:
    """The letters of each street of setting ``text`` (a name or the street syntax); ValueError saying why."""
    spelled = SETTINGS.get(text.strip(), SETTINGS.get(text.strip().lower(), SETTINGS.get(text.strip().upper())))
    streets = (spelled or text.strip()).upper().split("/")
    for street in streets:
        bad = sorted(set(street) - set(LETTERS))
        if not street or bad:
            raise ValueError(f"LBR actions {text!r}: expected one of {', '.join(SETTINGS)} or streets of the "
                             f"letters {LETTERS} separated by '/' (e.g. C/C/FCPA/FCPA)")
    return tuple(streets)


def check_setting(text: str) -> bool:
    """Whether ``text`` names a setting (for parameter validation)."""
    try:
        parse_setting(text)
    except ValueError:
        return False
    return True


def street_letters(streets: Sequence[str], round_index: int) -> str:
    """The letters of round ``round_index`` (the last street's for later rounds)."""
    return streets[min(round_index, len(streets) - 1)]


def raises_allowed(streets: Sequence[str], round_index: int) -> bool:
    """Whether the setting lets LBR raise in round ``round_index``."""
    return bool(set(street_letters(streets, round_index)) & set("PABR"))


def candidates_in(state: State, streets: Sequence[str]) -> list[Action]:
    """LBR's actions in ``state`` under the setting: fold when allowed and facing a bet, check/call, raises (smallest first)."""
    letters = set(street_letters(streets, state.round))
    out: list[Action] = []
    if "F" in letters and ActionType.FOLD in state.legal_actions():
        out.append(FOLD)
    out.append(CALL)
    bounds = state.raise_bounds()
    if bounds is None or not letters & set("PABR"):
        return out
    if state.game.is_limit:
        out.append(Action(ActionType.RAISE))
        return out
    lo, hi = bounds
    fractions: list[float] = []
    sizes: set[int] = set()
    if "A" in letters:
        sizes.add(hi)
    if "P" in letters:
        fractions.append(1.0)
    if "R" in letters:
        sizes.update((lo, hi))
        fractions.extend(POT_FRACTIONS)
    if "B" in letters:
        sizes.update((lo, hi))
        fractions.extend(FRACTIONS_56)
    for f in fractions:
        sizes.add(min(max(state.raise_to_fraction(f), lo), hi))
    out.extend(Action(ActionType.RAISE, s) for s in sorted(sizes))
    return out
