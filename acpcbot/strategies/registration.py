"""The store of strategies by name: a strategy module registers its class here when it is imported."""

from __future__ import annotations

from .base import Strategy
from .builtin import BUILTIN

_REGISTRY: dict[str, type[Strategy]] = {}


def register(cls: type[Strategy]) -> type[Strategy]:
    """Class decorator adding a strategy under its ``name``."""
    if not cls.name:
        raise ValueError(f"{cls.__name__} has no name")
    if cls.name in _REGISTRY and _REGISTRY[cls.name] is not cls:
        raise ValueError(f"two strategies are named {cls.name!r}")
    shipped = BUILTIN.get(cls.name)
    home = f"{__package__}.{shipped}"
    if shipped is not None and cls.__module__ != home and not cls.__module__.startswith(home + "."):
        # a shipped name taken before its module is imported (they load on first use) would fail that import later
        raise ValueError(f"two strategies are named {cls.name!r}: a shipped one ({__package__}.{shipped}) and "
                         f"{cls.__module__}.{cls.__qualname__}")
    _REGISTRY[cls.name] = cls
    return cls


def registered() -> dict[str, type[Strategy]]:
    """Every strategy registered so far, by name (a copy)."""
    return dict(_REGISTRY)
