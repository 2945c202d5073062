"""Competition kit: the bot as a folder the ACPC's organisers can run offline with ``./startme.sh HOST PORT``.

``python -m acpcbot.package --game hunl --out DIR [--strategy SPEC] [--seed N] [--tar] [--check]``
writes ``DIR/submission_2pn/`` (the folder name the ACPC's validation script
expects: ``submission_2pl`` for hulhe, ``submission_2pn`` for hunl,
``submission_3pl`` for 3pl, ``submission_<game>`` otherwise) holding:

- ``startme.sh HOST PORT``: execs the bot with the chosen game, strategy and seed;
- ``setup.sh``: builds ``venv/`` from ``wheels/`` with ``pip --no-index``, no network;
- ``src/acpcbot/``: the package source with its games and data tables;
- ``wheels/``: numpy and treys wheels for Python 3.11-3.13 on this platform;
- ``game.game``, ``requirements.txt``, ``kit.json`` (what was built) and ``README``.

The environment is built on the organisers' machine, not shipped: a virtual
environment holds absolute paths and links to one Python installation, so
one made here would not run there.  ``setup.sh`` is meant to be run once
after unpacking; ``startme.sh`` runs it itself when ``venv/`` is missing or
was made in another folder, so a forgotten step costs the first match some
seconds instead of failing it.

``python -m acpcbot.package check KIT [--hands 20]`` copies the kit to a
temporary folder (so the kit stays as built), starts the bundled dealer
(``python -m dealer``) on 127.0.0.1 with the kit's ``startme.sh`` in the first
seat and ``random`` players in the others, and passes when the match ends
with every hand logged, no WARNING or ERROR line in the dealer's transcript,
the kit's exit status 0 and the kit gone within 10 seconds (the limits the
ACPC's validation script checks).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from .kit_build import (  # noqa: F401
    MANIFEST,
    KitError,
    KitOptions,
    build_kit,
    download_wheels,
    kit_folder_name,
    make_tarball,
    resolve_strategy,
)
from .kit_check import CheckInterrupted, CheckResult, check_kit  # noqa: F401
from .kit_templates import (
    PYTHON_VERSIONS,
    readme_text as _readme,  # noqa: F401 - the README test reads the kit's README text
)

__all__ = ["CheckInterrupted", "CheckResult", "KitError", "KitOptions", "MANIFEST", "PYTHON_VERSIONS", "build_kit",
           "check_kit", "download_wheels", "kit_folder_name", "main", "make_tarball", "resolve_strategy"]

EXIT_FAILED = 1
EXIT_USAGE = 2

# ------------------------------------------------------------------ command line

def _check_main(argv: Sequence[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m acpcbot.package check",
                                description="Play a short match through the bundled dealer with a kit's startme.sh.")
    p.add_argument("kit", help="the kit folder (the one holding startme.sh)")
    p.add_argument("--hands", type=_positive, default=20, help="hands to play (default: 20)")
    p.add_argument("--seed", type=int, default=0, help="the dealer's seed (default: 0)")
    p.add_argument("--workdir", help="keep the match files here (default: a new temporary folder)")
    p.add_argument("--in-place", action="store_true", help="run the kit where it is instead of on a copy")
    args = p.parse_args(argv)
    try:
        result = check_kit(args.kit, args.hands, args.seed, copy=not args.in_place, workdir=args.workdir)
    except KitError as exc:
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except CheckInterrupted as stop:
        print(f"{p.prog}: interrupted by signal {stop.signum}; the dealer and the seats were ended", file=sys.stderr)
        return 128 + stop.signum
    return _report(result)


def _report(result: CheckResult) -> int:
    if result.ok:
        where = f" (files in {result.workdir})" if result.workdir is not None else ""
        print(f"check passed: {result.hands} hands in {result.seconds:.1f} s, no warnings; {result.score}{where}")
        return 0
    for problem in result.problems:
        print(f"check FAILED: {problem}", file=sys.stderr)
    if result.workdir is not None:
        print(f"(match files in {result.workdir})", file=sys.stderr)
    return EXIT_FAILED


#: the most hands the dealer's command line takes (#Hands is a 32-bit unsigned number)
MAX_HANDS = 2**32 - 1


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a whole number") from None
    if not 1 <= value <= MAX_HANDS:
        raise argparse.ArgumentTypeError(f"{text[:40]} must be 1..{MAX_HANDS} (the dealer's limit)")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Build a kit (or, with ``check KIT``, check one); 0 done, 1 failed, 2 bad input."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["check"]:
        return _check_main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m acpcbot.package",
                                description="Build the competition kit: DIR/submission_<game>/ with startme.sh.",
                                epilog="python -m acpcbot.package check KIT [--hands N] checks a built kit.")
    p.add_argument("--game", default="hunl", help="short name, official file name or .game path (default: hunl)")
    p.add_argument("--strategy", metavar="SPEC", help="strategy spec (default: the game's default strategy)")
    p.add_argument("--seed", type=int, help="fixed strategy seed (default: a random seed each match, logged)")
    p.add_argument("--name", default="acpcbot", help="the bot's name in its own log (default: acpcbot)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write the kit folder into")
    p.add_argument("--tar", action="store_true", help="also write DIR/submission_<game>.tar.gz")
    p.add_argument("--no-wheels", dest="wheels", action="store_false",
                   help="do not download wheels (needs --python)")
    p.add_argument("--python", metavar="PATH",
                   help="run the kit with this interpreter (which has numpy and treys) instead of its own venv")
    p.add_argument("--python-version", action="append", metavar="X.Y",
                   help=f"Python versions to fetch numpy wheels for (repeat; default: {' '.join(PYTHON_VERSIONS)})")
    p.add_argument("--check", action="store_true", help="check the kit after building it (see: check --help)")
    p.add_argument("--hands", type=_positive, default=20, help="hands the check plays (default: 20)")
    args = p.parse_args(argv)
    options = KitOptions(game=args.game, strategy=args.strategy, seed=args.seed, name=args.name, wheels=args.wheels,
                         python=str(Path(args.python).absolute()) if args.python else None,
                         python_versions=tuple(args.python_version or PYTHON_VERSIONS))
    try:
        kit = build_kit(args.out, options)
        print(f"kit: {kit}")
        if args.tar:
            print(f"tarball: {make_tarball(kit)}")
        if args.check:
            return _report(check_kit(kit, args.hands))
    except CheckInterrupted as stop:
        print(f"{p.prog}: interrupted by signal {stop.signum}; the dealer and the seats were ended", file=sys.stderr)
        return 128 + stop.signum
    except KitError as exc:
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED if "pip download" in str(exc) else EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())

