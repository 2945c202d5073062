"""Strategies by name, with parameters from specs such as ``mfs:t=1`` or ``raise:size=pot``: the shipped ones and any registered."""

from __future__ import annotations

import random
from typing import Any

from ..gamedef import GameDef
from . import builtin  # noqa: F401  (importing the shipped strategy modules registers them)
from .base import Strategy
from .registration import register, registered  # noqa: F401  (register is re-exported)

# What ``acpcbot HOST PORT`` plays without --strategy: the first spec whose
# strategy supports the game.  Strongest first; add new strategies here.
# ``cfr`` (an equilibrium policy; only games with a shipped policy) beats
# both baselines.  ``adaptive`` (hold'em) beats every study player and
# baseline in duplicate heads-up matches (README, *adaptive*).  ``call``
# comes before ``random``: head to head they are even, but ``call`` never
# bloats a pot with a random raise (the random player's no-limit raise
# averages half a stack) and cannot be bluffed.
DEFAULT_PREFERENCES: tuple[str, ...] = (
    "cfr",
    "adaptive",
    "call",
    "random",
)


class StrategySpecError(ValueError):
    """A strategy spec naming an unknown strategy or a bad parameter."""


def available() -> dict[str, type[Strategy]]:
    """Every registered strategy by name."""
    return dict(sorted(registered().items()))


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:k=v,k2=v2`` into the name and raw parameter texts."""
    name, _, rest = spec.strip().partition(":")
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


def resolve(spec: str) -> tuple[type[Strategy], dict[str, Any]]:
    """The strategy class and its converted, validated parameters for a spec."""
    name, raw = parse_spec(spec)
    strategies = available()
    cls = strategies.get(name)
    if cls is None:
        raise StrategySpecError(f"unknown strategy {name!r}; known: {', '.join(strategies)}")
    values: dict[str, Any] = {}
    for key, text in raw.items():
        param = cls.params.get(key)
        if param is None:
            known = ", ".join(cls.params) or "none"
            raise StrategySpecError(f"strategy {name!r} has no parameter {key!r} (parameters: {known})")
        try:
            values[key] = param.convert(text)
        except (TypeError, ValueError) as exc:
            raise StrategySpecError(f"{name}: parameter {key}={text!r} is invalid: {exc}") from None
    return cls, values


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
        reason = cls.unsupported_reason(game)
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
