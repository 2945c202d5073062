PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: test selfmatch install clean submission

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

# The competition kit: build/submission/submission_2pn/ and its .tar.gz, for hunl with the default
# strategy, numpy and treys wheels vendored for an offline install (pip downloads them: network needed
# here, never on the organisers' machine); then a 20-hand check of its startme.sh through our dealer.
submission: $(STAMP)
	$(PY) -m acpcbot.package --game hunl --out build/submission --tar --check

clean:
	rm -rf $(VENV) .pytest_cache
