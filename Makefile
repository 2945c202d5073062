PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LINT_STAMP := $(VENV)/.installed-dev

.PHONY: help test soak lint selfmatch install clean submission docs-results
.DEFAULT_GOAL := help

help:
	@echo "make test        the quick suite on every core: all but the long runs (about 100 s on a quiet"
	@echo "                 2-core machine, several times that when other work shares the processors)"
	@echo "make soak        the long runs: matches of hundreds to thousands of hands, strength matches, floods against"
	@echo "                 the reference dealer when ACPC_REFERENCE_DIR names it built (about 20 minutes, quiet)"
	@echo "make lint        the static checks: ruff (pyflakes, import order) and mypy over acpcbot/ and dealer/"
	@echo "                 (--strict on the engine, cards, game definitions, evaluator and text formats)"
	@echo "make selfmatch   the main job: adaptive (off the HUNL floor) against the studies' players over TCP, in duplicate"
	@echo "make submission  the competition kit in build/submission"
	@echo "make docs-results  the measured tables of README.md and docs/, generated from docs/results/*.json"
	@echo "make install     create .venv, install the package and build its caches (the targets above do it when needed)"
	@echo "make clean       remove .venv and the test and lint caches"

$(PY):
	$(PYTHON) -m venv $(VENV)

# The modules compiled once here: where PYTHONDONTWRITEBYTECODE is set (as on this project's machines) every
# process would compile the ones it imports again (about 0.25 s of CPU each; the test suite starts hundreds).
$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	$(PY) -m compileall -q acpcbot dealer
	touch $(STAMP)

# Sources edited since (a merge, a pull) compiled again before the targets that start many processes; compileall
# skips the modules whose bytecode is current. The caches strategies and the analysis build at first use (hand-
# ranking tables, the shipped blueprints expanded, AIVAT's preflop board sample; ~/.cache/acpcbot) are built here
# once: on a fresh machine every process that starts before the first is written builds its own (the test suite
# starts dozens at once); current ones are only read, a changed format is built again. Little cost when nothing
# changed.
COMPILED := $(VENV)/.compiled
$(COMPILED): $(STAMP) $(shell find acpcbot dealer -name '*.py' 2>/dev/null)
	$(PY) -m compileall -q acpcbot dealer
	$(PY) -m acpcbot.prepare
	touch $(COMPILED)

install: $(COMPILED)

# The static checks' tools are the dev extra, installed beside the test one (never a run-time dependency).
$(LINT_STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test,dev]'
	touch $(LINT_STAMP)

# The suite's files are dealt to one pytest process per core (tests/suite.py); `-m slow` marks what
# `make soak` runs instead: the long runs (matches of hundreds to thousands of hands, strength matches)
# and the comparisons of floods with the built reference dealer.
test: $(COMPILED)
	$(PY) tests/suite.py -m "not slow"

soak: $(COMPILED)
	$(PY) tests/suite.py -m slow

# Settings in pyproject.toml ([tool.ruff], [tool.mypy]); both run, and both must report nothing.
lint: $(LINT_STAMP)
	@status=0; \
	echo "ruff check acpcbot dealer"; $(VENV)/bin/ruff check acpcbot dealer || status=1; \
	echo "mypy acpcbot dealer"; $(VENV)/bin/mypy acpcbot dealer || status=1; \
	exit $$status

# The main job: our strongest player against the baselines through the bundled
# dealer over TCP, in duplicate; results, logs and report in matches/runs/.
selfmatch: $(COMPILED)
	$(VENV)/bin/acpc-match run matches/hunl-baselines.toml

# The competition kit: build/submission/submission_2pn/ and its .tar.gz, for hunl with the default
# strategy, numpy and treys wheels vendored for an offline install (pip downloads them: network needed
# here, never on the organisers' machine); then a 20-hand check of its startme.sh through our dealer.
submission: $(STAMP)
	$(PY) -m acpcbot.package --game hunl --out build/submission --tar --check

# Every measured figure of the docs is a table generated from a committed result file (docs/results/*.json).
docs-results: $(STAMP)
	$(PY) tools/docs_results.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
