"""The one error of the text formats: a line that cannot be read or describes an impossible hand."""

from __future__ import annotations


class ProtocolError(ValueError):
    """A protocol line that cannot be parsed or describes an impossible hand."""
