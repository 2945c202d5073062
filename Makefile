PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test selfmatch install clean

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest -q

# The main job: our strongest player against the baselines through the bundled
# dealer over TCP, in duplicate; results, logs and report in matches/runs/.
selfmatch: $(STAMP)
	$(VENV)/bin/acpc-match run matches/hunl-baselines.toml

clean:
	rm -rf $(VENV) .pytest_cache
