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
import datetime
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import threading
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Sequence

from .gamedef import SHIPPED_GAMES, GameDef, GameDefError, load_game, parse_game

EXIT_FAILED = 1
EXIT_USAGE = 2

SUBMISSION_NAMES = {"hulhe": "submission_2pl", "hunl": "submission_2pn", "3pl": "submission_3pl"}
PYTHON_VERSIONS = ("3.11", "3.12", "3.13")
SHUTDOWN_SECONDS = 10.0  # the validation script's allowance for an agent to exit after a match
MANIFEST = "kit.json"


class KitError(Exception):
    """A kit that cannot be built or checked; the message says what and where."""


# ------------------------------------------------------------------ building

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


def kit_folder_name(game: GameDef) -> str:
    """The kit's folder name: the ACPC's submission label for its games, ``submission_<game>`` otherwise."""
    if game.name in SUBMISSION_NAMES:
        return SUBMISSION_NAMES[game.name]
    stem = Path(game.name).stem or "game"
    return "submission_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in stem)


def resolve_strategy(game: GameDef, spec: str | None, seed: int | None) -> str:
    """The spec the kit will play (the game's default when none is given); KitError if it cannot play the game."""
    from .strategies.base import UnsupportedGame
    from .strategies.registry import StrategySpecError, create, default_spec
    try:
        chosen = spec or default_spec(game)
        return create(chosen, game, seed if seed is not None else 1).spec
    except (StrategySpecError, UnsupportedGame) as exc:
        raise KitError(f"--strategy: {exc}") from None


def build_kit(out_dir: str | os.PathLike[str], options: KitOptions) -> Path:
    """Write the kit folder under ``out_dir`` (replacing an earlier kit there); return its path."""
    try:
        game = load_game(options.game)
    except GameDefError as exc:
        raise KitError(f"--game: {exc}") from None
    if not options.wheels and options.python is None:
        raise KitError("--no-wheels needs --python: without wheels the kit cannot build its own environment")
    spec = resolve_strategy(game, options.strategy, options.seed)
    kit = Path(out_dir).resolve() / kit_folder_name(game)
    if kit.exists():
        if not (kit / MANIFEST).is_file():
            raise KitError(f"{kit} exists and is not a kit (no {MANIFEST}): not replacing it")
        shutil.rmtree(kit)
    try:
        kit.mkdir(parents=True)
        source = Path(__file__).resolve().parent
        shutil.copytree(source, kit / "src" / "acpcbot", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        (kit / "game.game").write_text(game.to_text())
        versions = {"numpy": metadata.version("numpy"), "treys": metadata.version("treys")}
        (kit / "requirements.txt").write_text("".join(f"{k}=={v}\n" for k, v in versions.items()))
        wheels: list[str] = []
        if options.wheels:
            wheels = download_wheels(kit / "wheels", versions, options.python_versions)
        # shipped games go by name (as the organisers' dealer names them); others by the kit's copy
        game_arg = game.name if game.name in SHIPPED_GAMES else "$KIT/game.game"
        _write_script(kit / "startme.sh", _startme(game_arg, spec, options))
        _write_script(kit / "setup.sh", _SETUP)
        manifest = {"schema": 1, "game": game.name, "game_file": "game.game", "strategy": spec,
                    "seed": options.seed, "name": options.name, "python": options.python,
                    "requirements": versions, "wheels": wheels,
                    "acpcbot": _package_version(), "commit": _git_commit(source),
                    # the kit copies the working tree: say when it differs from the commit
                    "uncommitted_changes": _git_dirty(source),
                    "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        (kit / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        (kit / "README").write_text(_readme(game, spec, options, manifest))
    except OSError as exc:
        raise KitError(f"{kit}: cannot write the kit: {exc}") from None
    return kit


def download_wheels(folder: Path, versions: dict[str, str], python_versions: Sequence[str]) -> list[str]:
    """Fetch the run-time wheels into ``folder`` with pip (numpy per Python version, treys once); their names."""
    folder.mkdir(parents=True, exist_ok=True)
    pins = [f"{k}=={v}" for k, v in versions.items()]
    runs = [["--only-binary=:all:", "--python-version", v, pins[0]] for v in python_versions]
    runs.append(pins[1:])  # treys is pure Python: one wheel serves every version
    for args in runs:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(folder), *args]
        done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != 0:
            tail = "\n".join(done.stdout.strip().splitlines()[-5:])
            raise KitError(f"pip download {' '.join(args)} failed (network needed to build the kit):\n{tail}")
    names = sorted(p.name for p in folder.iterdir())
    if not any(n.startswith("treys-") and n.endswith(".whl") for n in names):
        raise KitError("pip download gave no treys wheel (a source archive cannot install offline)")
    return names


def make_tarball(kit: Path) -> Path:
    """``<kit>.tar.gz`` beside the kit folder, with the folder at its top and file modes kept."""
    target = kit.with_name(kit.name + ".tar.gz")
    skip = {"venv", "venv.lock", "cache"}

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        parts = Path(info.name).parts
        if len(parts) > 1 and parts[1] in skip:
            return None  # built on the machine that runs the kit, never shipped
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(target, "w:gz") as tar:
        tar.add(kit, arcname=kit.name, filter=keep)
    return target


def _write_script(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)  # the validation script wants at least rwxr-xr-x


def _startme(game_arg: str, spec: str, options: KitOptions) -> str:
    args = ["--game", f'"{game_arg}"' if game_arg.startswith("$KIT") else shlex.quote(game_arg),
            "--strategy", shlex.quote(spec), "--name", shlex.quote(options.name)]
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


_SETUP = """\
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
# build the hand-ranking tables once, into the kit's cache
PYTHONPATH="$KIT/src" XDG_CACHE_HOME="$KIT/cache" PYTHONNOUSERSITE=1 "$KIT/venv/bin/python" -c "from acpcbot.evaluator.tables import lookups; lookups()"
echo "$KIT" > "$KIT/venv/.ready"
echo "setup: ready ($("$KIT/venv/bin/python" -c 'import sys, numpy, treys; print("Python", sys.version.split()[0], "numpy", numpy.__version__)'))"
"""


def _readme(game: GameDef, spec: str, options: KitOptions, manifest: dict) -> str:
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

    ./setup.sh                 # once, after unpacking: builds venv/ from wheels/, offline (about half a minute)
    ./startme.sh HOST PORT     # one match: connect to the dealer at HOST, this seat's PORT

{env}
startme.sh runs setup.sh itself if venv/ is missing or was built in another folder.
The kit writes only inside its own folder (venv/, and cache/ for its hand-ranking
tables).  startme.sh exits 0 when the dealer closes the match; its log (standard
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
    from .strategies.registry import resolve
    from .solve.blueprint_train import is_limit_holdem

    cls, values = resolve(spec)
    head = cls.name or spec.split(":")[0]
    if head == "blueprint":
        text = ("It plays blueprint: an approximate equilibrium of an abstraction of heads-up limit hold'em "
                "(169 preflop classes, then 8 flop, 6 turn and 10 river buckets), computed offline with "
                "discounted CFR (python -m acpcbot.solve hulhe) and sampled at each decision for its cards.  "
                "Its strategy is the same throughout a match: it models no opponent.  More CPU time, RAM or "
                "disk would not change its play during a match (a decision is a table lookup).")
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


def _package_version() -> str:
    try:
        return metadata.version("acpcbot")
    except metadata.PackageNotFoundError:
        return "unknown"


def _git_commit(source: Path) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(source), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _git_dirty(source: Path) -> bool | None:
    try:
        done = subprocess.run(["git", "-C", str(source), "status", "--porcelain", "--", "."],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return bool(done.stdout.strip()) if done.returncode == 0 else None


# ------------------------------------------------------------------ checking

@dataclass
class CheckResult:
    """What a check match showed; ``problems`` is empty when the kit passed."""

    hands: int = 0
    score: str = ""
    seconds: float = 0.0
    workdir: Path | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether the kit passed."""
        return not self.problems


def check_kit(kit: str | os.PathLike[str], hands: int = 20, seed: int = 0, *, copy: bool = True,
              workdir: str | os.PathLike[str] | None = None, timeout: float | None = None) -> CheckResult:
    """Play ``hands`` hands through the bundled dealer with the kit's startme.sh in seat 1; see the module doc."""
    kit = Path(kit).resolve()
    try:
        manifest = json.loads((kit / MANIFEST).read_text())
        game = parse_game((kit / manifest["game_file"]).read_text(), str(kit / manifest["game_file"]))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KitError(f"{kit}: not a readable kit ({MANIFEST} and its game file): {exc}") from None
    if not (kit / "startme.sh").is_file():
        raise KitError(f"{kit}: no startme.sh")
    if importlib.util.find_spec("dealer") is None:
        raise KitError("the check needs the bundled dealer (python -m dealer): run it from an acpcbot install")
    work = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix="acpcbot-check-"))
    work.mkdir(parents=True, exist_ok=True)
    if copy:
        target = work / kit.name
        shutil.copytree(kit, target, symlinks=True, ignore=shutil.ignore_patterns("venv", "venv.lock", "cache"))
        kit = target
    # generous: a first start builds the environment; the hands themselves take seconds
    limit = timeout if timeout is not None else 300.0 + 2.0 * hands
    result = CheckResult(workdir=work)
    started = time.monotonic()
    procs: list[subprocess.Popen] = []
    try:
        _play_check_match(kit, game, hands, seed, work, limit, procs, result)
    finally:
        for proc in procs:
            _kill_group(proc)
    result.seconds = time.monotonic() - started
    return result


def _play_check_match(kit: Path, game: GameDef, hands: int, seed: int, work: Path, limit: float,
                      procs: list[subprocess.Popen], result: CheckResult) -> None:
    n = game.num_players
    names = ["kit"] + [f"random{i}" for i in range(1, n)]
    game_file = str(kit / "game.game")
    transcript = work / "check.err"
    with open(transcript, "wb") as err:
        dealer = subprocess.Popen([sys.executable, "-m", "dealer", "check", game_file, str(hands), str(seed),
                                   *names], cwd=work, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=err, start_new_session=True)
    procs.append(dealer)
    lines: list[str] = []
    first_line = threading.Event()

    def read_stdout() -> None:
        assert dealer.stdout is not None
        for raw in dealer.stdout:
            lines.append(raw.decode("utf-8", "replace").strip())
            first_line.set()
        first_line.set()

    threading.Thread(target=read_stdout, daemon=True).start()
    if not first_line.wait(60.0) or not lines:
        result.problems.append("the dealer printed no ports: " + _tail(transcript))
        return
    try:
        ports = [int(p) for p in lines[0].split()]
    except ValueError:
        result.problems.append(f"the dealer's first line is not its ports: {lines[0]!r}")
        return
    # the kit starts as acpc_play_match.pl starts a player: ./startme.sh HOST PORT in its own folder
    seats = [_start(["./startme.sh", "127.0.0.1", str(ports[0])], kit, work / "kit")]
    procs.extend(seats)
    for i in range(1, n):
        seats.append(_start([sys.executable, "-m", "acpcbot", "127.0.0.1", str(ports[i]), "--game", game_file,
                             "--strategy", "random", "--seed", str(seed + i), "--name", names[i],
                             "--log-level", "WARNING"], work, work / names[i]))
        procs.append(seats[-1])
    try:
        dealer.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        result.problems.append(f"the match did not end within {limit:.0f} s; kit.err: {_tail(work / 'kit.err')}")
        return
    for seat in seats:
        try:
            seat.wait(timeout=SHUTDOWN_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    if seats[0].returncode is None:
        result.problems.append(f"the kit was still running {SHUTDOWN_SECONDS:.0f} s after the match ended")
    elif seats[0].returncode != 0:
        result.problems.append(f"startme.sh exited with status {seats[0].returncode}: {_tail(work / 'kit.err')}")
    if dealer.returncode != 0:
        result.problems.append(f"the dealer exited with status {dealer.returncode}: {_tail(transcript)}")
    text = transcript.read_text(errors="replace")
    warnings = [line for line in text.splitlines() if "WARNING" in line or "ERROR" in line]
    if warnings:
        result.problems.append(f"{len(warnings)} WARNING/ERROR lines in the dealer's transcript, first: {warnings[0]}")
    result.score = next((line for line in reversed(lines) if line.startswith("SCORE:")), "")
    log = work / "check.log"
    result.hands = sum(1 for line in log.read_text().splitlines() if line.startswith("STATE:")) if log.is_file() else 0
    if result.hands != hands:
        result.problems.append(f"the log holds {result.hands} hands, {hands} were to be played")


def _start(cmd: list[str], cwd: Path, stem: Path) -> subprocess.Popen:
    with open(f"{stem}.out", "wb") as out, open(f"{stem}.err", "wb") as err:
        return subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, start_new_session=True)


def _kill_group(proc: subprocess.Popen) -> None:
    # each child leads its own session: end it and whatever it started (startme.sh's python), by its id
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _tail(path: Path, lines: int = 3) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:]) or "(empty)"
    except OSError:
        return "(missing)"


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
    return _report(result)


def _report(result: CheckResult) -> int:
    if result.ok:
        print(f"check passed: {result.hands} hands in {result.seconds:.1f} s, no warnings; {result.score} "
              f"(files in {result.workdir})")
        return 0
    for problem in result.problems:
        print(f"check FAILED: {problem}", file=sys.stderr)
    print(f"(match files in {result.workdir})", file=sys.stderr)
    return EXIT_FAILED


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
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
    except KitError as exc:
        print(f"{p.prog}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED if "pip download" in str(exc) else EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())
