# Two entry points: `make run` (the main job) and `make test` (the test suite).
# Both create .venv on first use and install everything needed into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run demo test test-all bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# CPU build of torch first, so the dependency resolver never pulls a CUDA build.
	$(PY) -m pip install "torch==2.13.0"
	$(PY) -m pip install -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(VENV)/bin/drl-train variant=give_and_take

demo: $(STAMP)
	$(VENV)/bin/drl-demo

test: $(STAMP)
	$(PY) -m pytest -n 2 -q

test-all: $(STAMP)
	$(PY) -m pytest -n 2 -q -m ""

bench: $(STAMP)
	$(PY) -m pip install -e ".[bench]"
	$(PY) benchmarks/perft_peers.py

clean:
	rm -rf $(VENV)
