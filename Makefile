# Two commands matter: `make run` and `make test`. Everything else is set up by them.
VENV ?= .venv
PY := $(VENV)/bin/python
PG_TEST_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/test

.PHONY: install run test lint test-sqlite test-postgres bench clean languages \
	translations translations-extract translations-update translations-compile

TRANSLATIONS := pbem/translations
DOMAINS := emails pages
# The translated languages: pbem/i18n.py's LANGUAGES but its DEFAULT, the one list, read from its
# source with sed (no venv needed yet); `make languages` prints them (test_i18n_catalogs.py checks).
I18N := pbem/i18n.py
DEFAULT_LANGUAGE := $(shell sed -n 's/^DEFAULT = "\([^"]*\)".*/\1/p' $(I18N))
LANGUAGES := $(filter-out $(DEFAULT_LANGUAGE),$(shell sed -n 's/^LANGUAGES[^{]*{\(.*\)}.*/\1/p' $(I18N) \
	| grep -o '"[A-Za-z_]*":' | tr -d '":'))
BABEL := $(VENV)/bin/pybabel
PO_FILES := $(wildcard $(TRANSLATIONS)/*/LC_MESSAGES/*.po)
MO_FILES := $(PO_FILES:.po=.mo)

# axe-core for the accessibility tests (tests/browser/test_axe_browser.py), from the npm registry
# into the venv; without npm (or offline) a note, and those tests skip with the reason.
AXE := $(VENV)/axe/node_modules/axe-core/axe.min.js
NPM ?= npm

# The packages installed, then the catalogs compiled: a fresh clone runs and tests in every language.
install: $(VENV)/.installed $(MO_FILES) $(AXE)

$(AXE):
	@if command -v $(NPM) >/dev/null 2>&1 && $(NPM) install --silent --no-audit --no-fund --prefix $(VENV)/axe axe-core@4; \
	then echo "axe-core installed in $(VENV)/axe"; \
	else echo "note: axe-core not installed (no npm, or npm failed): the axe tests will be skipped"; fi

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# .mo files are build products (git-ignored): each rebuilt when its .po changes (or is missing).
%.mo: %.po $(VENV)/.installed
	$(BABEL) compile --statistics -i $< -o $@

# Every translatable string of the code into the two templates (.pot), one per domain.
translations-extract: $(VENV)/.installed
	for d in $(DOMAINS); do \
	  $(BABEL) -q extract -F babel-$$d.cfg -k _ -k gettext -k ngettext:1,2 -k lazy -k BotKind:1 \
	    --sort-by-file --project=korsar -o $(TRANSLATIONS)/$$d.pot . || exit 1; \
	done

# The new strings of the templates into each language's catalog (created if missing).
translations-update: translations-extract
	for d in $(DOMAINS); do for l in $(LANGUAGES); do \
	  if [ -f $(TRANSLATIONS)/$$l/LC_MESSAGES/$$d.po ]; then \
	    $(BABEL) -q update -D $$d -i $(TRANSLATIONS)/$$d.pot -d $(TRANSLATIONS) -l $$l || exit 1; \
	  else \
	    $(BABEL) -q init -D $$d -i $(TRANSLATIONS)/$$d.pot -d $(TRANSLATIONS) -l $$l || exit 1; \
	  fi; \
	done; done

# Each catalog to its .mo, with its statistics (untranslated or fuzzy messages are counted).
translations-compile: $(VENV)/.installed
	for po in $$(find $(TRANSLATIONS) -name '*.po' | sort); do \
	  $(BABEL) compile --statistics -i $$po -o $${po%.po}.mo || exit 1; \
	done

translations: translations-update translations-compile

languages:
	@echo $(LANGUAGES)

run: install
	$(PY) -m pbem.devserver

# Two test processes (pytest-xdist): most tests wait on sockets and child processes, so the suite
# takes about half the time on this 2-core machine.
XDIST ?= -n 2

test: install lint
	$(PY) -m pytest -q $(XDIST)
	$(PY) -m pytest -q $(XDIST) -m db --db postgresql --pg-url $(PG_TEST_URL)

lint: install
	$(PY) -m ruff check .
	$(PY) -m mypy

test-sqlite: install
	$(PY) -m pytest -q $(XDIST)

test-postgres: install
	$(PY) -m pytest -q $(XDIST) -m db --db postgresql --pg-url $(PG_TEST_URL)

bench: install
	$(PY) -m pip install -q -e '.[test,bench]'
	$(PY) -m engine bench --players 4 --games 2000
	$(PY) -m engine duel --games 1000
	$(PY) -m benchmarks.run_all

clean:
	rm -rf $(VENV) var
	find $(TRANSLATIONS) -name "*.mo" -delete
