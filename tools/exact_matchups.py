"""Brute-force preflop matchups with treys alone, as golden figures for the tests.

Independent of acpcbot's evaluator on purpose: every board is dealt with
itertools and ranked by ``treys.Evaluator`` directly, so the counts printed
here check ``acpcbot.evaluator.equity`` rather than repeat it.  About 25 s
per matchup.  Run from the repository root:

    .venv/bin/python tools/exact_matchups.py AsAh:KdKc AhKh:QsQc

and paste the printed (boards, wins, ties) into tests/test_equity.py.
"""

from __future__ import annotations

import itertools
import sys

from treys import Card, Evaluator


def matchup(hero: str, villain: str) -> tuple[int, int, int]:
    """(boards, hero wins, ties) over every five-card board."""
    ev = Evaluator()
    h = [Card.new(hero[i:i + 2]) for i in (0, 2)]
    v = [Card.new(villain[i:i + 2]) for i in (0, 2)]
    deck = [Card.new(r + s) for r in "23456789TJQKA" for s in "cdhs"]
    deck = [c for c in deck if c not in h + v]
    boards = wins = ties = 0
    for board in itertools.combinations(deck, 5):
        b = list(board)
        hr, vr = ev.evaluate(h, b), ev.evaluate(v, b)
        boards += 1
        wins += hr < vr
        ties += hr == vr
    return boards, wins, ties


def main(argv: list[str]) -> None:
    """Print the counts of each HERO:VILLAIN argument."""
    for arg in argv:
        hero, villain = arg.split(":")
        print(arg, matchup(hero, villain), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["AsAh:KdKc", "AhKh:QsQc", "AsAh:KsKh"])
