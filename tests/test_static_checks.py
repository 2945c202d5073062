"""The static checks' set-up: ruff and mypy are development tools, never run-time dependencies, and mypy checks the
modules everything stands on with the flags of --strict (`make lint` runs both; CI calls it)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

# what `mypy --strict` turns on that can be set per module (the rest are global: warn_unused_configs,
# warn_redundant_casts, which the [tool.mypy] section sets)
STRICT_FLAGS = {"disallow_any_generics", "disallow_subclassing_any", "disallow_untyped_calls", "disallow_untyped_defs",
                "disallow_incomplete_defs", "check_untyped_defs", "disallow_untyped_decorators", "warn_unused_ignores",
                "warn_return_any", "no_implicit_reexport", "strict_equality", "extra_checks"}


def names(requirements: list[str]) -> set[str]:
    """The distribution names of requirement strings (versions and markers cut)."""
    return {re.split(r"[<>=!~\[; ]", r, maxsplit=1)[0].lower() for r in requirements}


def test_the_checkers_are_a_dev_extra_not_a_run_time_dependency():
    assert names(PROJECT["project"]["dependencies"]) == {"numpy", "treys"}
    assert {"ruff", "mypy"} <= names(PROJECT["project"]["optional-dependencies"]["dev"])


def test_the_engine_evaluator_and_text_formats_are_checked_strictly():
    strict = [o for o in PROJECT["tool"]["mypy"]["overrides"] if STRICT_FLAGS <= {k for k, v in o.items() if v is True}]
    modules = {m for o in strict for m in o["module"]}
    assert {"acpcbot.engine", "acpcbot.hand", "acpcbot.gamedef", "acpcbot.cards", "acpcbot.evaluator.*",
            "acpcbot.notation.*", "acpcbot.protocol"} <= modules


def test_make_lint_runs_both_checkers_over_both_packages_and_ci_calls_it():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"(?ms)^lint:.*?(?=^\S|\Z)", makefile).group(0)
    assert "ruff check acpcbot dealer" in recipe and "mypy acpcbot dealer" in recipe and "'.[test,dev]'" in makefile
    assert re.search(r"(?m)^make lint$", (ROOT / ".ci" / "run").read_text(encoding="utf-8"))
