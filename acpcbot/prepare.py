"""Build once per machine the caches that strategies and the analysis would otherwise build at their first use.

    python -m acpcbot.prepare [--game GAME --strategy SPEC ...] [--no-aivat] [--quiet]

What a process reads from acpcbot's cache folder (``evaluator.tables.cache_dir``)
and builds when it is absent: the hand-ranking tables, each loaded
strategy's expanded files (the shipped blueprints' trees and rows, tens of
megabytes unpacked from the compressed policies), and the preflop ranks of
the board sample behind every preflop equity of AIVAT and all-in
expectation.  Built by whoever needs them first, they are paid for at the
start of a first match, or, on a fresh machine, by every process that starts
before the first of them is written (the test suite starts dozens at once).
``make install`` runs this, so that neither does.

By default: the tables, ``blueprint`` in every game that ships one, and the
board sample; ``--game``/``--strategy`` pairs name other strategies to load
(whatever they cache is built as they load).  A cache already there and
current is read, not built again; each step's line says which, with its time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

from .evaluator.tables import cache_dir


def _tables() -> None:
    from .evaluator.tables import lookups

    lookups()


def _strategy(game_name: str, spec: str) -> Callable[[], None]:
    def load() -> None:
        from .gamedef import load_game
        from .strategies.registry import create

        create(spec, load_game(game_name), 0)

    return load


def _board_sample() -> None:
    import numpy as np

    from .equity_vectors import PREFLOP_BOARDS
    from .measure.matchup import PREFLOP_SEED, preflop_ranks

    preflop_ranks(PREFLOP_SEED, PREFLOP_BOARDS).ensure(np.arange(1326))


def blueprint_pairs() -> list[tuple[str, str]]:
    """(game, "blueprint") for every game that ships a blueprint (its files are expanded into the cache)."""
    from .solve.blueprint_registry import SPECS

    return [(spec.game, "blueprint") for spec in SPECS]


def steps(pairs: Sequence[tuple[str, str]], aivat: bool = True) -> list[tuple[str, Callable[[], None]]]:
    """What to build, in order: (what, how) for the tables, each (game, strategy) pair and the board sample."""
    out: list[tuple[str, Callable[[], None]]] = [("hand-ranking tables", _tables)]
    out += [(f"{spec} in {game}", _strategy(game, spec)) for game, spec in pairs]
    if aivat:
        out.append(("AIVAT's preflop board sample", _board_sample))
    return out


def prepare(todo: Sequence[tuple[str, Callable[[], None]]], say: Callable[[str], None] = print) -> list[str]:
    """Run each step and say what it wrote into the cache folder and how long it took; the files written."""
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        writable = os.access(folder, os.W_OK)
    except OSError:
        writable = False
    if not writable:
        say(f"prepare: {folder} cannot be written: nothing is kept, each process builds what it needs")
    written: list[str] = []
    for what, build in todo:
        before = _listing(folder)
        start = time.perf_counter()
        build()
        took = time.perf_counter() - start
        new = sorted(set(_listing(folder).items()) - set(before.items()))
        written += [name for name, _ in new]
        kept = "kept " + ", ".join(name for name, _ in new) if new else "already there"
        say(f"prepare: {what}: {took:.1f} s ({kept})")
    return written


def _listing(folder: Path) -> dict[str, int]:
    """The cache folder's files and their modification times (ns)."""
    try:
        return {p.name: p.stat().st_mtime_ns for p in folder.iterdir() if p.is_file()}
    except OSError:
        return {}


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build the caches; 2 on a bad argument (named) before anything is built."""
    parser = argparse.ArgumentParser(prog="python -m acpcbot.prepare", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", default=[], help="a game for the --strategy at the same place")
    parser.add_argument("--strategy", action="append", default=[], help="a strategy spec to load in its --game")
    parser.add_argument("--no-aivat", action="store_true", help="leave out AIVAT's preflop board sample")
    parser.add_argument("--quiet", action="store_true", help="say nothing")
    args = parser.parse_args(argv)
    if len(args.game) != len(args.strategy):
        parser.error(f"--game and --strategy go in pairs (got {len(args.game)} games, {len(args.strategy)} strategies)")
    pairs = list(zip(args.game, args.strategy)) or blueprint_pairs()
    from .gamedef import load_game
    from .strategies.registry import resolve

    for game, spec in pairs:  # every name checked before the first step builds anything
        try:
            load_game(game)
            resolve(spec)
        except (ValueError, OSError) as exc:
            parser.error(f"{spec} in {game}: {exc}")
    try:
        prepare(steps(pairs, aivat=not args.no_aivat), say=(lambda _: None) if args.quiet else print)
    except (ValueError, OSError) as exc:  # a strategy refusing its game, a policy file it cannot read
        print(f"prepare: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
