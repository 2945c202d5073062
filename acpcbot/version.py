"""The installed version of acpcbot, for every command's ``--version``."""

from __future__ import annotations

import argparse
from typing import Any


def version() -> str:
    """The version of the installed distribution (``pyproject.toml``), or ``unknown`` when it is not installed."""
    from importlib import metadata  # noqa: PLC0415 - 20-50 ms to import: only when a version is asked for
    try:
        return metadata.version("acpcbot")
    except metadata.PackageNotFoundError:
        return "unknown"


class VersionAction(argparse.Action):
    """``--version``: prints ``PROG (acpcbot) VERSION``, the version looked up only when asked (reading the
    distribution's metadata is a noticeable part of a command's start)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show the version and exit")
        super().__init__(option_strings, dest, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        name = parser.prog.split()[0]
        print(f"{name} {version()}" if name == "acpcbot" else f"{name} (acpcbot) {version()}")
        parser.exit()
