"""The store of strategies by name: a strategy module registers its class here when it is imported."""

from __future__ import annotations

from .base import Strategy

_REGISTRY: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator adding a strategy under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"two strategies are named {cls.name!r}")
    _REGISTRY[cls.name] = cls
    return cls


def registered() -> dict[str, type[Strategy]]:
    """Every strategy registered so far, by name (a copy)."""
    return dict(_REGISTRY)
