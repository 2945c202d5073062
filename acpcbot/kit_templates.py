"""What goes into a competition kit (:class:`KitOptions`) and the texts it carries: startme.sh, setup.sh, README."""

from __future__ import annotations

import shlex
import textwrap
from dataclasses import dataclass

from .gamedef import GameDef

PYTHON_VERSIONS = ("3.11", "3.12", "3.13")
#: stands for the kit's folder in a spec until startme.sh spells it "$KIT"
KIT_PLACEHOLDER = "\x00KIT\x00"


def shell_word(text: str) -> str:
    """``text`` as one sh word: single-quoted, or double-quoted with the kit's folder as ``$KIT`` where it stands."""
    if KIT_PLACEHOLDER not in text:
        return shlex.quote(text)
    parts = ["".join("\\" + c if c in '"$`\\' else c for c in part) for part in text.split(KIT_PLACEHOLDER)]
    return '"' + "$KIT".join(parts) + '"'


@dataclass
class KitOptions:
    """What to put in a kit."""

    game: str = "hunl"
    strategy: str | None = None
    seed: int | None = None
    name: str = "acpcbot"
    wheels: bool = True
    python: str | None = None  # run with this interpreter instead of a kit venv
    python_versions: tuple[str, ...] = PYTHON_VERSIONS


def _game_and_strategy(game_arg: str, spec: str) -> list[str]:
    """``--game G --strategy SPEC`` as sh words (the kit's own game file and files as ``$KIT``)."""
    return ["--game", f'"{game_arg}"' if game_arg.startswith("$KIT") else shlex.quote(game_arg),
            "--strategy", shell_word(spec)]


def startme_script(game_arg: str, spec: str, options: KitOptions) -> str:
    args = _game_and_strategy(game_arg, spec) + ["--name", shlex.quote(options.name)]
    if options.seed is not None:
        args += ["--seed", str(options.seed)]
    if options.python is not None:
        python = shlex.quote(options.python)
        prepare = ""
    else:
        python = '"$KIT/venv/bin/python"'
        prepare = ('# the environment is built here, not shipped: setup.sh makes it on first use\n'
                   'if [ ! -x "$KIT/venv/bin/python" ] || [ "$(cat "$KIT/venv/.ready" 2>/dev/null)" != "$KIT" ]; then\n'
                   '  "$KIT/setup.sh" >&2 || exit 1\n'
                   'fi\n')
    return ("#!/bin/sh\n"
            "# acpcbot for the ACPC: ./startme.sh HOST PORT (the dealer's address and this seat's port).\n"
            "# Written by python -m acpcbot.package; kit.json says what was built.\n"
            'if [ "$#" -ne 2 ]; then\n'
            '  echo "usage: $0 HOST PORT" >&2\n'
            "  exit 2\n"
            "fi\n"
            'KIT=$(cd "$(dirname "$0")" && pwd) || exit 1\n'
            + prepare +
            'PYTHONPATH="$KIT/src"\n'
            'XDG_CACHE_HOME="$KIT/cache"  # the hand-ranking tables are cached in the kit\n'
            "PYTHONNOUSERSITE=1\n"
            "export PYTHONPATH XDG_CACHE_HOME PYTHONNOUSERSITE\n"
            f'exec {python} -m acpcbot "$1" "$2" {" ".join(args)}\n')


_SETUP_SCRIPT = """\
#!/bin/sh
# Build this kit's Python environment (venv/) from wheels/ without any network access.
# Run once after unpacking: ./setup.sh   (PYTHON=/path/to/python3.11+ to choose the interpreter)
set -e
KIT=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
if [ -x "$KIT/venv/bin/python" ] && [ "$(cat "$KIT/venv/.ready" 2>/dev/null)" = "$KIT" ]; then
  echo "setup: $KIT/venv is ready"
  exit 0
fi
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup: $PY is not Python 3.11 or newer; run PYTHON=/path/to/python3 $0" >&2
  exit 1
fi
# one setup at a time: a second start waits for the first to finish
if ! mkdir "$KIT/venv.lock" 2>/dev/null; then
  waited=0
  while [ "$(cat "$KIT/venv/.ready" 2>/dev/null)" != "$KIT" ] && [ "$waited" -lt 600 ]; do
    sleep 1
    waited=$((waited + 1))
  done
  [ "$(cat "$KIT/venv/.ready" 2>/dev/null)" = "$KIT" ] && exit 0
  echo "setup: another setup holds $KIT/venv.lock (remove it if none is running)" >&2
  exit 1
fi
trap 'rmdir "$KIT/venv.lock" 2>/dev/null' EXIT
rm -rf "$KIT/venv"
if ! "$PY" -m venv "$KIT/venv"; then
  echo "setup: $PY -m venv failed (Debian and Ubuntu need the python3-venv package)" >&2
  exit 1
fi
# only the kit's wheels: ignore this machine's pip settings, never use an index
for var in $(env | sed -n 's/^\\(PIP_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset "$var"; done
PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 \\
  "$KIT/venv/bin/python" -m pip install --quiet --no-index --find-links "$KIT/wheels" -r "$KIT/requirements.txt"
# build once, into the kit's cache, what the strategy would build at its first start (the hand-ranking tables, a
# blueprint's expanded files): a strategy that cannot load stops the setup here, saying why
PYTHONPATH="$KIT/src" XDG_CACHE_HOME="$KIT/cache" PYTHONNOUSERSITE=1 \\
  "$KIT/venv/bin/python" -m acpcbot.prepare PREPARE_ARGS --no-aivat --quiet
echo "$KIT" > "$KIT/venv/.ready"
echo "setup: ready ($("$KIT/venv/bin/python" -c 'import sys, numpy, treys; print("Python", sys.version.split()[0], "numpy", numpy.__version__)'))"
"""


def setup_script(game_arg: str, spec: str) -> str:
    """setup.sh: the kit's venv from its wheels, offline, then ``acpcbot.prepare`` for its game and strategy."""
    return _SETUP_SCRIPT.replace("PREPARE_ARGS", " ".join(_game_and_strategy(game_arg, spec)))


def readme_text(game: GameDef, spec: str, options: KitOptions, manifest: dict) -> str:
    seed = f"--seed {options.seed}" if options.seed is not None else "a new random seed each match (logged)"
    env = (f"It runs with {options.python} (no environment of its own: a test kit)."
           if options.python else
           "It needs Python 3.11 or newer with the venv module (Debian/Ubuntu: python3-venv) on 64-bit\n"
           "Linux with glibc 2.28 or newer; numpy and treys come as wheels in wheels/ for Python\n"
           f"{', '.join(options.python_versions)}.  No network is used at any time.")
    fields = _reference_fields(game)
    about = "\n".join(textwrap.wrap(_about(game, spec), 80))
    return f"""acpcbot -- an ACPC 2.0.0 agent, packaged for the competition
=============================================================

Game: {game.name}   Strategy: {spec}   Seed: {seed}
Built {manifest['built']} from acpcbot {manifest['acpcbot']}{' commit ' + manifest['commit'] if manifest['commit'] else ''}.

Running
-------

    ./setup.sh                 # once, after unpacking: builds venv/ from wheels/ and the caches the
                               # player reads, offline (about half a minute)
    ./startme.sh HOST PORT     # one match: connect to the dealer at HOST, this seat's PORT

{env}
startme.sh runs setup.sh itself if venv/ is missing or was built in another folder.
The kit writes only inside its own folder (venv/, and cache/ for its hand-ranking
tables and its strategy's expanded files, built by setup.sh).  startme.sh exits 0 when the dealer closes the match; its log (standard
error) names the strategy and seed.

Time: the bot keeps its own clock, spreading 7 s per hand (the ACPC's average
limit) over the actions it expects; a decision that would overrun it is
answered safely (check when free, otherwise fold) and logged.

Against the reference dealer
----------------------------

To try the kit with the ACPC's own dealer, build the reference server
(project_acpc_server: `make` in its folder, with gcc), then from that folder,
with KIT set to this kit's folder, start a {fields['hands']}-hand match with fixed ports,
this kit in the first seat and the reference's example player in the other{fields['s']}:

    ./dealer check $KIT/game.game {fields['hands']} 0 acpcbot {fields['names']} -p {fields['ports']} &
    $KIT/startme.sh 127.0.0.1 {fields['port0']} &
{fields['examples']}
The dealer prints the SCORE line at the end and writes check.log (the hands)
in its folder; a 0 exit status from startme.sh means the kit played them all.

About the agent
---------------

{about}

Team, members and affiliation: (to be filled in before submitting)
"""


def _reference_fields(game: GameDef) -> dict[str, str]:
    """The reference-dealer example of the kit's README: names and ports for every seat."""
    others = range(1, game.num_players)
    ports = [18791 + i for i in range(game.num_players)]
    return {"hands": "1000", "s": "s" if game.num_players > 2 else "",
            "names": " ".join(f"example{i}" for i in others), "ports": ",".join(map(str, ports)),
            "port0": str(ports[0]),
            "examples": "".join(f"    ./example_player $KIT/game.game 127.0.0.1 {ports[i]}"
                                f"{' &' if i < game.num_players - 1 else ''}\n" for i in others)}


def _about(game: GameDef, spec: str) -> str:
    """What the kit's player is, in the terms the ACPC's submission form asks about (dynamic, equilibrium, model)."""
    from .solve.blueprint_registry import spec_for
    from .solve.blueprint_train import is_limit_holdem
    from .strategies.registry import resolve

    cls, values = resolve(spec)
    head = cls.name or spec.split(":")[0]
    if head == "blueprint" and (blueprint := spec_for(game)) is not None:
        text = blueprint.about
    elif head == "cfr":
        text = ("It plays cfr: an approximate equilibrium of the game, computed offline with CFR+ (python -m "
                "acpcbot.solve) and sampled at each decision.  Its strategy is the same throughout a match: it "
                "models no opponent.  More CPU time, RAM or disk would not change its play.")
    elif head == "adaptive":
        floor = (" It stands on the shipped blueprint, an approximate equilibrium of an abstraction of the game "
                 "computed offline, and deviates from it as far as its model of the opponent justifies."
                 if is_limit_holdem(game) and values.get("blueprint", 1) else
                 " It plays no precomputed equilibrium: it learns online, from the match itself.")
        text = ("It plays adaptive: during the match it counts each opponent's folds, calls and raises per "
                "situation, narrows the opponent's range of hole cards by those counts, and plays the move "
                "worth the most against that model, the later streets played out over sampled runouts." + floor +
                "  Its strategy changes as the match goes.  More CPU time would let it sample more runouts "
                "(finer, slower); more RAM or disk would not change its play.")
    else:
        text = f"It plays {spec}: {cls.description}"
    return "acpcbot is a Python poker agent; the project's README describes it in full.  " + text


