"""The decision module: strategies behind one small interface, found by name in a registry."""

from .base import Param, Strategy, UnsupportedGame
from .registry import available, create, parse_spec, register

__all__ = ["Param", "Strategy", "UnsupportedGame", "available", "create", "parse_spec", "register"]
