# Two commands matter: `make run` and `make test`. Everything else is set up by them.
VENV ?= .venv
PY := $(VENV)/bin/python
PG_TEST_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: install run test lint test-sqlite test-postgres bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

run: install
	$(PY) -m pbem.devserver

test: install lint
	$(PY) -m pytest -q
	$(PY) -m pytest -q -m db --db postgresql --pg-url $(PG_TEST_URL)

lint: install
	$(PY) -m ruff check .
	$(PY) -m mypy

test-sqlite: install
	$(PY) -m pytest -q

test-postgres: install
	$(PY) -m pytest -q -m db --db postgresql --pg-url $(PG_TEST_URL)

bench: install
	$(PY) -m engine bench --players 4 --games 2000
	$(PY) -m engine duel --games 1000
	$(PY) -m benchmarks.run_all

clean:
	rm -rf $(VENV) var
