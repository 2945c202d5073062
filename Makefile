PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test selfmatch install clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

# Until the match runner lands this runs the most end-to-end thing there is:
# random self-play through the engine with reference deals, logged and checked.
selfmatch: $(STAMP)
	$(PY) benchmarks/engine.py 5000

clean:
	rm -rf $(VENV) .pytest_cache
