"""Imports every module that registers a built-in strategy (add new modules here)."""

from . import (
    adaptive,  # noqa: F401
    bayes,  # noqa: F401
    blueprint,  # noqa: F401
    cfr,  # noqa: F401
    human,  # noqa: F401
    learner2008,  # noqa: F401
    patterns,  # noqa: F401
    probes,  # noqa: F401
    simple,  # noqa: F401
    study2008,  # noqa: F401
    uc3m,  # noqa: F401
    utility,  # noqa: F401
)
