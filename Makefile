# The two Quick start commands (see README.md): `make run` and `make test`.
# Both create .venv with a Python >= 3.12 found on this machine and install what they need.

PYTHON ?= $(shell for p in python3.14 python3.13 python3.12 python3 $$HOME/.pyenv/versions/3.1[2-9]*/bin/python3 /usr/local/bin/python3.1[2-9] /usr/bin/python3.1[2-9]; do command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && { echo $$p; break; }; done)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: run test install install-test migrate worker beat schema game-docs lint lint-imports webclient-types typecheck-web

$(PY):
	@test -n "$(PYTHON)" || { echo "Stapel needs Python >= 3.12 (none found)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	@touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	@touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

migrate: install
	$(PY) manage.py migrate --noinput

# The whole product on one machine: SQLite, in-memory channel layer, in-process tasks.
# (uvicorn picks its websockets-sansio protocol itself; naming the old one is deprecated.
# permessage-deflate is declined, as in deploy/: see docs/api.md, "Compression".)
run: migrate
	$(PY) -m uvicorn config.asgi:application --host $(HOST) --port $(PORT) --ws-per-message-deflate false --no-access-log

test: install-test
	$(PY) -m pytest $(PYTEST_ARGS)

worker: install
	$(VENV)/bin/celery -A config worker -l info

beat: install
	$(VENV)/bin/celery -A config beat -l info

schema: install
	$(PY) manage.py export_schema

# docs/games/<game>.md from each game's declaration (a test fails when they are stale).
game-docs: install
	$(PY) manage.py game_docs

lint: install-test
	$(PY) -m ruff check .
	$(VENV)/bin/lint-imports

# The import rules of pyproject.toml ([tool.importlinter]); CI runs them before the tests.
lint-imports: install-test
	$(VENV)/bin/lint-imports

# The web client's types from schema.graphql, and its type check (needs node + npm).
webclient-types: install
	$(PY) games/webclient/generate_types.py

typecheck-web:
	cd games/webclient && npm ci --no-audit --no-fund && npx tsc --noEmit -p .
