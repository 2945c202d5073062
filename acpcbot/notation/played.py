"""Played rows: the probabilities a seat played each of its decisions with, one line per decision.

A strategy that holds its policy when it acts (a re-solving blueprint has
just solved for every holding) can leave the row of its actual holding
behind, so that AIVAT reads the row it played instead of replaying the
strategy through the match (which solves every subgame again).  A line is
``HAND STEP ACTION=P ACTION=P ...``: the hand number, the decision's step
(0-based over the hand's actions, as ``State.steps`` counts them), and each
action considered with its probability, the action as the protocol spells
it (``f``, ``c``, ``r`` or ``r<size>``) and the probability as Python's
shortest exact text of the float, so a row read back is the row written to
the last bit.  Lines starting with ``#`` are comments; a last line without
its line end (a match killed while writing) is not read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..engine import Action
from ..gamedef import GameDef, clip
from .actions import action_text, parse_action
from .errors import ProtocolError


class PlayedRow(NamedTuple):
    """One decision's played row: the hand, the step, the actions considered and their probabilities."""

    hand_id: int
    step: int
    actions: tuple[Action, ...]
    probs: tuple[float, ...]


def format_played_row(hand_id: int, step: int, actions: Sequence[Action], probs: Iterable[float],
                      nolimit: bool) -> str:
    """One line (no line end) of a decision's played row."""
    cells = " ".join(f"{action_text(a, nolimit)}={float(p)!r}" for a, p in zip(actions, probs, strict=True))
    return f"{hand_id} {step} {cells}"


def parse_played_row(line: str, game: GameDef) -> PlayedRow:
    """Read one played-row line (its line end stripped); ProtocolError naming what is wrong."""
    fields = line.split(" ")
    if len(fields) < 3:
        raise ProtocolError(f"a played row needs a hand, a step and at least one action: {clip(line, 60)}")
    try:
        hand_id, step = int(fields[0]), int(fields[1])
    except ValueError:
        raise ProtocolError(f"a played row starts with its hand and step numbers: {clip(line, 60)}") from None
    if hand_id < 0 or step < 0:
        raise ProtocolError(f"negative hand or step in a played row: {clip(line, 60)}")
    actions: list[Action] = []
    probs: list[float] = []
    for cell in fields[2:]:
        text, sep, prob = cell.partition("=")
        if not sep:
            raise ProtocolError(f"a played row's cell is ACTION=PROBABILITY, got {clip(cell, 40)}")
        actions.append(parse_action(text, game))
        try:
            p = float(prob)
        except ValueError:
            raise ProtocolError(f"not a probability in a played row: {clip(cell, 40)}") from None
        if not 0.0 <= p <= 1.0:  # also refuses nan
            raise ProtocolError(f"a probability outside [0, 1] in a played row: {clip(cell, 40)}")
        probs.append(p)
    return PlayedRow(hand_id, step, tuple(actions), tuple(probs))


def read_played_rows(text: str, game: GameDef) -> dict[tuple[int, int], PlayedRow]:
    """Every whole line of a played-rows file, by (hand, step); a last line without its line end is left out."""
    lines = text.split("\n")
    lines.pop()  # after the last line end: empty, or a line cut short
    out: dict[tuple[int, int], PlayedRow] = {}
    for number, line in enumerate(lines, start=1):
        if not line or line.startswith("#"):
            continue
        try:
            row = parse_played_row(line, game)
        except ProtocolError as exc:
            raise ProtocolError(f"line {number}: {exc}") from None
        out[row.hand_id, row.step] = row
    return out
