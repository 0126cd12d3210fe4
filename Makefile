# Entry points: `make run` (the main job), `make test` (the test suite), `make lint`
# (ruff and mypy, what CI runs before the tests) and `make docs` (the documentation site,
# warnings as errors, into site/). Each creates .venv on first use and installs everything
# needed into it.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# torch is installed on its own, before everything else, so that the resolver never picks
# a build for us; override e.g. TORCH_SPEC="torch==2.13.0+cpu" together with a CPU wheel
# index in PIP_EXTRA_INDEX_URL to avoid a CUDA build where the default one is CUDA.
TORCH_SPEC ?= torch==2.13.0

.PHONY: run demo test test-all lint docs bench install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	$(PY) -m pip install "$(TORCH_SPEC)"
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

lint: $(STAMP)
	$(VENV)/bin/ruff check drl tests
	$(VENV)/bin/ruff format --check drl tests
	$(VENV)/bin/mypy drl

DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PY) -m pip install -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(VENV)/bin/mkdocs build --strict

bench: $(STAMP)
	$(PY) -m pip install -e ".[bench]"
	$(PY) benchmarks/perft_peers.py
	$(PY) benchmarks/env_speed.py
	$(PY) benchmarks/search_speed.py
	$(PY) benchmarks/selfplay_speed.py

clean:
	rm -rf $(VENV)
