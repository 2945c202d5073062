"""Imports every module that registers a built-in strategy (add new modules here)."""

from . import cfr  # noqa: F401
from . import blueprint  # noqa: F401
from . import human  # noqa: F401
from . import simple  # noqa: F401
from . import uc3m  # noqa: F401
from . import utility  # noqa: F401
from . import bayes  # noqa: F401
from . import patterns  # noqa: F401
from . import learner2008  # noqa: F401
from . import study2008  # noqa: F401
from . import adaptive  # noqa: F401
from . import probes  # noqa: F401
