# Loopline: the two commands are `make demo` and `make test`; each builds .venv by itself.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
PIP    := $(PY) -m pip install -q --disable-pip-version-check
DOMAIN ?= rcm

.PHONY: install browser demo test test-fast lint bench clean up down

install: $(STAMP)

# torch first, pinned to the CPU wheel on disk; then everything else under one constraints file.
$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip
	$(PIP) torch==2.13.0
	$(PIP) -c constraints.txt -e '.[dev]'
	@touch $(STAMP)

# `make demo DOMAIN=credit` works credit packages through the bridge against the deal-system sandbox.
demo: $(STAMP)
	$(VENV)/bin/loopline demo --domain $(DOMAIN)

# The review page's browser tests drive Debian's chromium (never `playwright install`, which downloads).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
browser:
	@command -v chromium >/dev/null || ($(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium)

test: $(STAMP) browser
	$(PY) -m pytest -m "not gpu" -p no:cacheprovider

test-fast: $(STAMP)
	$(PY) -m pytest -m "not gpu and not integration and not e2e" -p no:cacheprovider

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	$(PY) -m loopline.devtools.check_imports
	$(PY) -m loopline.devtools.import_cycles

bench: $(STAMP)
	$(PY) bench/env_steps.py
	$(PY) bench/baselines.py
	$(PY) bench/baselines.py --domain credit
	$(PY) bench/capture.py
	$(PY) bench/projector.py
	$(PY) bench/verifiers.py
	$(PY) bench/lora.py
	$(PY) bench/serve.py
	$(PY) bench/adversarial.py
	$(PY) bench/promotion.py
	$(PY) bench/scaling.py
	$(VENV)/bin/loopline verifiers report --out bench/results/verifier_card.json

up: $(STAMP)
	$(VENV)/bin/loopline up
down: $(STAMP)
	$(VENV)/bin/loopline down

clean:
	rm -rf $(VENV) .loopline .mypy_cache .ruff_cache .pytest_cache
