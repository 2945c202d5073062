"""The installed version of acpcbot, for every command's ``--version``."""

from __future__ import annotations

from importlib import metadata


def version() -> str:
    """The version of the installed distribution (``pyproject.toml``), or ``unknown`` when it is not installed."""
    try:
        return metadata.version("acpcbot")
    except metadata.PackageNotFoundError:
        return "unknown"
