"""Strategies by spec: ``mfs:t=1`` or ``raise:size=pot`` for the shipped and registered ones, ``module:Class[:k=v]`` for plugins.

A plugin is any :class:`~acpcbot.strategies.base.Strategy` subclass in a
module on the Python path (``mybots.tight:TightBot:fold=0.3``); when the
module is not found there, the folders of ``$ACPCBOT_PLUGIN_PATH`` and
then the current folder are searched, after everything else, so a plugin
never shadows an installed module.  Parameters that name files (by the
shipped strategies' convention ``policy``, ``table``, ``model``,
``history``, or a class's own ``file_params``) are made absolute by
:func:`with_absolute_paths` before seats start in other folders.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from pathlib import Path
from typing import Any

from ..gamedef import GameDef
from . import builtin
from .base import Strategy
from .registration import register, registered  # noqa: F401  (register is re-exported)

# What ``acpcbot HOST PORT`` plays without --strategy: the first spec whose
# strategy supports the game.  Strongest first; add new strategies here.
# ``cfr`` (an equilibrium policy; only games with a shipped policy) beats
# both baselines.  ``blueprint`` (heads-up limit hold'em: the shipped
# abstraction-CFR policy) is the equilibrium floor there; adaptive stands
# on it and is asked for by name.  ``adaptive`` (hold'em) beats every
# study player and baseline in duplicate heads-up matches (README,
# *adaptive*).  ``call`` comes before ``random``: head to head they are
# even, but ``call`` never bloats a pot with a random raise (the random
# player's no-limit raise averages half a stack) and cannot be bluffed.
DEFAULT_PREFERENCES: tuple[str, ...] = (
    "cfr",
    "blueprint",
    "adaptive",
    "call",
    "random",
)


class StrategySpecError(ValueError):
    """A strategy spec naming an unknown strategy or a bad parameter."""


def available() -> dict[str, type[Strategy]]:
    """Every strategy by name: the shipped ones (their modules imported now) and any registered so far."""
    builtin.load_all()
    return dict(sorted(registered().items()))


def known_name(name: str) -> bool:
    """Whether ``name`` is a shipped or registered strategy's name (nothing is imported)."""
    return name in builtin.BUILTIN or name in registered()


def registered_class(name: str) -> type[Strategy] | None:
    """The shipped or registered strategy named ``name`` (its module imported now), or None."""
    builtin.load(name)
    return registered().get(name)


#: file parameters of the shipped strategies: "read" files must exist, "write" files need an existing folder
FILE_PARAMS = {"policy": "read", "table": "read", "model": "write", "history": "write"}
PLUGIN_PATH_ENV = "ACPCBOT_PLUGIN_PATH"


def split_spec(spec: str) -> tuple[str, str]:
    """``(head, parameters)``: head is a strategy name or a plugin's ``module:Class``; parameters the ``k=v,...`` text."""
    name, _, rest = spec.strip().partition(":")
    if known_name(name) or not rest:
        return name, rest
    first = rest.split(":", 1)[0]
    if "=" in first.split(",", 1)[0] and "." not in name:
        return name, rest  # an unknown name with parameters: reported as unknown by resolve
    cls_name, _, params = rest.partition(":")
    return f"{name}:{cls_name}", params


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:k=v,k2=v2`` (or ``module:Class:k=v``) into the head and raw parameter texts."""
    name, rest = split_spec(spec)
    if not name:
        raise StrategySpecError(f"empty strategy name in spec {spec!r}")
    params: dict[str, str] = {}
    if rest:
        for item in rest.split(","):
            key, eq, value = item.partition("=")
            if not eq or not key.strip():
                raise StrategySpecError(f"parameter {item!r} in spec {spec!r} is not key=value")
            if key.strip() in params:
                raise StrategySpecError(f"parameter {key.strip()!r} given twice in spec {spec!r}")
            params[key.strip()] = value.strip()
    return name, params


#: folders added by the program (a recipe's folder) to search for plugin modules
_EXTRA_PLUGIN_DIRS: list[str] = []


def add_plugin_dir(folder: str | Path) -> None:
    """Also look for plugin modules in ``folder`` (after the Python path and $ACPCBOT_PLUGIN_PATH)."""
    path = os.path.abspath(folder)
    if path not in _EXTRA_PLUGIN_DIRS:
        _EXTRA_PLUGIN_DIRS.append(path)


def _plugin_dirs() -> list[str]:
    """Where plugin modules are looked for after the Python path: $ACPCBOT_PLUGIN_PATH, added folders, the current one.

    Relative folders of $ACPCBOT_PLUGIN_PATH are read against the current folder, as every path is read where it
    is given (programs that start seats elsewhere pass them on made absolute: :func:`absolute_plugin_path`).
    """
    return [*absolute_plugin_path().split(os.pathsep), *_EXTRA_PLUGIN_DIRS, os.getcwd()] \
        if os.environ.get(PLUGIN_PATH_ENV) else [*_EXTRA_PLUGIN_DIRS, os.getcwd()]


def absolute_plugin_path(value: str | None = None) -> str:
    """$ACPCBOT_PLUGIN_PATH (or ``value``) with every folder made absolute against the current folder."""
    text = os.environ.get(PLUGIN_PATH_ENV, "") if value is None else value
    return os.pathsep.join(os.path.abspath(d) for d in text.split(os.pathsep) if d)


def _is_folder_module(module: Any) -> bool:
    """Whether an import found only a folder without __init__.py (a namespace package), not a module's code."""
    return getattr(module, "__file__", None) is None and hasattr(module, "__path__")


def _import_plugin_module(module: str) -> Any:
    """Import a plugin's module from the Python path, else from the plugin folders (appended after everything).

    A folder named like the module (no ``__init__.py``) is found by any import as an empty namespace package;
    the plugin folders are then searched too, where the module's own file wins over such a folder.
    """
    try:
        found = importlib.import_module(module)
        if not _is_folder_module(found):
            return found
        sys.modules.pop(module, None)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise  # the plugin itself imports something missing
    for folder in _plugin_dirs():
        if folder not in sys.path:
            sys.path.append(folder)
    importlib.invalidate_caches()
    return importlib.import_module(module)


def load_plugin(head: str) -> type[Strategy]:
    """The Strategy subclass a plugin head ``module:Class`` names; StrategySpecError saying what is wrong."""
    module_name, _, cls_name = head.partition(":")
    if not module_name or not cls_name:
        raise StrategySpecError(f"plugin {head!r}: write it as module:ClassName")
    try:
        module = _import_plugin_module(module_name)
    except ModuleNotFoundError as exc:
        where = ", ".join(_plugin_dirs())
        raise StrategySpecError(f"plugin {head!r}: no module {exc.name!r} on the Python path or in {where}") from None
    except Exception as exc:  # noqa: BLE001 - the user's module failed while importing
        raise StrategySpecError(f"plugin {head!r}: importing {module_name} failed: {type(exc).__name__}: {exc}") \
            from None
    cls = getattr(module, cls_name, None)
    if cls is None and _is_folder_module(module):
        folders = " and ".join(str(p) for p in module.__path__)
        raise StrategySpecError(f"plugin {head!r}: {module_name!r} is the folder {folders} (it has no __init__.py), "
                                f"not a Python module, and no {module_name}.py was found before it: a folder named like the "
                                f"module shadows it; rename the folder, or put {module_name}.py in the folder the "
                                f"command runs in or in $ACPCBOT_PLUGIN_PATH")
    if cls is None:
        raise StrategySpecError(f"plugin {head!r}: module {module_name} ({getattr(module, '__file__', '?')}) has no "
                                f"{cls_name!r}")
    if not (isinstance(cls, type) and issubclass(cls, Strategy)):
        raise StrategySpecError(f"plugin {head!r}: {cls_name} is not a subclass of "
                                "acpcbot.strategies.base.Strategy")
    return cls


def strategy_class(name: str) -> type[Strategy]:
    """The class a spec's head names: a registered strategy or a plugin ``module:Class``."""
    cls = registered_class(name)
    if cls is None and ":" in name:
        cls = load_plugin(name)
    if cls is None:
        hint = " (a plugin is written module:ClassName)" if "." in name else ""
        raise StrategySpecError(f"unknown strategy {name!r}; known: {', '.join(available())}{hint}")
    return cls


def resolve(spec: str) -> tuple[type[Strategy], dict[str, Any]]:
    """The strategy class and its converted, validated parameters for a spec."""
    name, raw = parse_spec(spec)
    cls = strategy_class(name)
    label = cls.name or name
    values: dict[str, Any] = {}
    for key, text in raw.items():
        param = cls.params.get(key)
        if param is None:
            known = ", ".join(cls.params) or "none"
            raise StrategySpecError(f"strategy {label!r} has no parameter {key!r} (parameters: {known})")
        try:
            values[key] = param.convert(text)
        except (TypeError, ValueError) as exc:
            raise StrategySpecError(f"{label}: parameter {key}={text!r} is invalid: {exc}") from None
    return cls, values


def file_params(cls: type[Strategy]) -> dict[str, str]:
    """The parameters of ``cls`` that name files: parameter -> "read" or "write"."""
    declared = getattr(cls, "file_params", None)
    if isinstance(declared, dict):
        return dict(declared)
    return {k: v for k, v in FILE_PARAMS.items() if k in cls.params}


def with_absolute_paths(spec: str, base: str | Path) -> str:
    """``spec`` with every file parameter made absolute against ``base``; StrategySpecError naming a missing file.

    A file read (``table``, ``policy``) must exist; a file written
    (``model``, ``history``) needs its folder.  Checked here, before any
    seat starts, so a typo costs no match.
    """
    head, raw = parse_spec(spec)
    cls = strategy_class(head)
    kinds = file_params(cls)
    if not any(raw.get(k) for k in kinds):
        return spec.strip()
    label = cls.name or head
    out = []
    for key, text in raw.items():
        if key in kinds and text:
            path = Path(os.path.abspath(os.path.join(base, os.path.expanduser(text))))
            if kinds[key] == "read" and not path.is_file():
                raise StrategySpecError(f"{label}: parameter {key}={text}: no such file {path}")
            if kinds[key] == "write" and not path.parent.is_dir():
                raise StrategySpecError(f"{label}: parameter {key}={text}: no folder {path.parent} to write it in")
            text = str(path)
        out.append(f"{key}={text}")
    return f"{head}:{','.join(out)}"


def create(spec: str, game: GameDef, seed: int | None = None) -> Strategy:
    """Build the strategy a spec names, for ``game``, with a generator seeded by ``seed``."""
    cls, values = resolve(spec)
    strategy = cls(game, random.Random(seed), **values)
    strategy.spec = spec.strip()
    return strategy


def default_spec(game: GameDef) -> str:
    """The strongest strategy spec that can play ``game``: the first fit in ``DEFAULT_PREFERENCES``."""
    reasons = []
    for spec in DEFAULT_PREFERENCES:
        cls, _ = resolve(spec)
        reason = cls.not_default_reason(game)
        if reason is None:
            return spec
        reasons.append(f"{spec}: {reason}")
    raise StrategySpecError(f"no default strategy can play {game.name or 'this game'} ({'; '.join(reasons)})")


def describe(cls: type[Strategy]) -> str:
    """A listing of one strategy: name, description and each parameter."""
    lines = [f"{cls.name:<12} {cls.description}"]
    for key, param in cls.params.items():
        lines.append(f"    {key}: {param.describe()}")
    return "\n".join(lines)
