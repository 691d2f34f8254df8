# Two commands for a fresh machine with Python 3.11+ and make:
#   make run    installs what is needed and starts the app on SQLite (instance/companion.sqlite)
#   make test   installs what is needed and runs the whole test suite
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
VENV_OK   := $(VENV)/.venv-made
# What `make run` needs is the app alone; `make test` adds the test tools (Playwright, zxing,
# axe, psycopg).  Two stamps, so that `make run` never installs the test tools.
RUN_STAMP  := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
HOST   ?= 0.0.0.0
PORT   ?= 5000

.PHONY: install run test bench clean

$(VENV_OK):
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	touch $(VENV_OK)

$(RUN_STAMP): pyproject.toml setup.py $(VENV_OK)
	$(BIN)/python -m pip install --quiet -e .
	touch $(RUN_STAMP)

$(TEST_STAMP): pyproject.toml setup.py $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

install: $(TEST_STAMP)

run: $(RUN_STAMP)
	$(BIN)/flask --app companion serve --host $(HOST) --port $(PORT)

test: $(TEST_STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(TEST_STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
