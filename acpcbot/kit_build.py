"""Building the competition kit: the folder, its copy of acpcbot, its wheels, scripts and manifest, verified first.

See :mod:`acpcbot.package` for what a kit holds and how it is checked.
Everything the kit will need (the game, the strategy and every file or
plugin module it names) is checked before the first file is written, so a
kit that could not run is never built.
"""

from __future__ import annotations

import datetime
import json
import os
import shutil
import subprocess
import sys
import tarfile
from importlib import metadata
from pathlib import Path
from typing import Sequence

from .gamedef import SHIPPED_GAMES, GameDef, GameDefError, load_game
from .kit_templates import KIT_PLACEHOLDER, KitOptions, readme_text, setup_script, startme_script

SUBMISSION_NAMES = {"hulhe": "submission_2pl", "hunl": "submission_2pn", "3pl": "submission_3pl"}
SHUTDOWN_SECONDS = 10.0  # the validation script's allowance for an agent to exit after a match
MANIFEST = "kit.json"


class KitError(Exception):
    """A kit that cannot be built or checked; the message says what and where."""


# ------------------------------------------------------------------ building

def kit_folder_name(game: GameDef) -> str:
    """The kit's folder name: the ACPC's submission label for its games, ``submission_<game>`` otherwise."""
    if game.name in SUBMISSION_NAMES:
        return SUBMISSION_NAMES[game.name]
    stem = Path(game.name).stem or "game"
    return "submission_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in stem)


def resolve_strategy(game: GameDef, spec: str | None, seed: int | None) -> str:
    """The spec the kit will play (the game's default when none is given); KitError if it cannot play the game."""
    from .strategies.base import UnsupportedGame
    from .strategies.registry import StrategySpecError, create, default_spec, with_absolute_paths
    try:
        chosen = spec or default_spec(game)
        with_absolute_paths(chosen, os.getcwd())  # a file it reads must exist: said here, not by its loader
        return create(chosen, game, seed if seed is not None else 1).spec
    except (StrategySpecError, UnsupportedGame, ValueError, OSError) as exc:  # a policy file that does not load
        raise KitError(f"--strategy: {str(exc)[:300]}") from None


def shipped_files(spec: str) -> tuple[str, list[tuple[Path, str]]]:
    """The spec as the kit runs it and what the kit must carry for it: (source, path in the kit) pairs.

    A plugin strategy's module (``mybot:TightBot``) goes into the kit's
    ``src/`` beside acpcbot; a file the strategy reads (``policy=``,
    ``table=``) into ``files/``, and the spec names it there (``$KIT`` stands
    for the kit's folder, :data:`KIT_PLACEHOLDER` in the returned text); a
    file it writes goes to ``files/`` too.  KitError, before anything is
    written, when something the strategy needs cannot be found or shipped.
    """
    from .strategies.registry import StrategySpecError, file_params, parse_spec, strategy_class
    try:
        head, raw = parse_spec(spec)
        cls = strategy_class(head)
    except StrategySpecError as exc:
        raise KitError(f"--strategy: {exc}") from None
    ours = Path(__file__).resolve().parent
    carried: list[tuple[Path, str]] = []
    if ":" in head:
        top = head.partition(":")[0].split(".")[0]
        module = sys.modules.get(top)
        file = getattr(module, "__file__", None) if module is not None else None
        origin = Path(file).resolve() if file else None
        if origin is None or not origin.is_file():
            raise KitError(f"--strategy: the plugin module {top} has no file the kit could carry")
        if origin.parent != ours and ours not in origin.parents:
            carried.append((origin.parent, f"src/{top}") if origin.name == "__init__.py" else
                           (origin, f"src/{origin.name}"))
    kinds = file_params(cls)
    if not any(raw.get(k) for k in kinds):
        return spec.strip(), carried
    params = []
    for key, text in raw.items():
        if key in kinds and text:
            path = Path(os.path.abspath(os.path.expanduser(text)))
            if kinds[key] == "read" and not path.is_file():
                raise KitError(f"--strategy: {key}={text}: no such file {path}")
            if kinds[key] == "read" and ours in path.parents:
                where = f"src/acpcbot/{path.relative_to(ours).as_posix()}"  # shipped with the source
            else:
                where = f"files/{len(carried)}-{path.name}"
                if kinds[key] == "read":
                    carried.append((path, where))
            text = f"{KIT_PLACEHOLDER}/{where}"
        params.append(f"{key}={text}")
    return f"{head}:{','.join(params)}", carried


def build_kit(out_dir: str | os.PathLike[str], options: KitOptions) -> Path:
    """Write the kit folder under ``out_dir`` (replacing an earlier kit there); return its path."""
    try:
        game = load_game(options.game)
    except GameDefError as exc:
        raise KitError(f"--game: {exc}") from None
    if not options.wheels and options.python is None:
        raise KitError("--no-wheels needs --python: without wheels the kit cannot build its own environment")
    spec, carried = shipped_files(resolve_strategy(game, options.strategy, options.seed))
    kit = Path(out_dir).absolute() / kit_folder_name(game)
    if kit.is_symlink():
        raise KitError(f"{kit} is a symbolic link: not replacing what it points to (remove the link or choose "
                       f"another --out)")
    kit = kit.resolve()
    if kit.exists():
        if not kit.is_dir() or not (kit / MANIFEST).is_file():
            raise KitError(f"{kit} exists and is not a kit (no {MANIFEST}): not replacing it")
        try:
            shutil.rmtree(kit)
        except OSError as exc:
            raise KitError(f"{kit}: cannot remove the earlier kit: {exc.strerror or exc}") from None
    try:
        kit.mkdir(parents=True)
        source = Path(__file__).resolve().parent
        shutil.copytree(source, kit / "src" / "acpcbot", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for src, where in carried:  # the plugin module and the files the strategy reads
            (kit / where).parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, kit / where, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(src, kit / where)
        if any(KIT_PLACEHOLDER in p for p in spec.split(",")):
            (kit / "files").mkdir(exist_ok=True)
        (kit / "game.game").write_text(game.to_text())
        versions = {"numpy": metadata.version("numpy"), "treys": metadata.version("treys")}
        (kit / "requirements.txt").write_text("".join(f"{k}=={v}\n" for k, v in versions.items()))
        wheels: list[str] = []
        if options.wheels:
            wheels = download_wheels(kit / "wheels", versions, options.python_versions)
        # shipped games go by name (as the organisers' dealer names them); others by the kit's copy
        game_arg = game.name if game.name in SHIPPED_GAMES else "$KIT/game.game"
        _write_script(kit / "startme.sh", startme_script(game_arg, spec, options))
        _write_script(kit / "setup.sh", setup_script(game_arg, spec))
        manifest = {"schema": 1, "game": game.name, "game_file": "game.game", "strategy": spec.replace(KIT_PLACEHOLDER, "$KIT"),
                    "seed": options.seed, "name": options.name, "python": options.python,
                    "requirements": versions, "wheels": wheels,
                    "acpcbot": _package_version(), "commit": _git_commit(source),
                    # the kit copies the working tree: say when it differs from the commit
                    "uncommitted_changes": _git_dirty(source),
                    "built": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
        (kit / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
        (kit / "README").write_text(readme_text(game, spec.replace(KIT_PLACEHOLDER, "$KIT"), options, manifest))
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


