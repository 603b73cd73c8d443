"""The catalogs are complete: every message the code marks is in the domain's template (.pot),
and every message of the template is translated in French and Vietnamese, not fuzzy, with the
same placeholders as the English (a `%(game)s` lost or renamed in a translation would drop the
game's name from a sentence, or raise when filled). `pybabel compile --statistics` agrees."""
from __future__ import annotations

import re
import subprocess
import sys
from gettext import c2py
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

import engine.bots
from pbem import i18n

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "pbem" / "translations"
PYBABEL = Path(sys.executable).with_name("pybabel")
TRANSLATED = [code for code in i18n.LANGUAGES if code != i18n.DEFAULT]
CATALOGS = [(domain, code) for domain in i18n.DOMAINS for code in TRANSLATED]
# Python's %-placeholders, as gettext and Jinja's new-style i18n fill them.
PLACEHOLDER = re.compile(r"%(?:\((\w+)\))?[-#0 +]*\d*(?:\.\d+)?[sdifr%]")


def test_the_makefile_reads_the_one_list_of_languages() -> None:
    """`make translations-update` updates (or creates) a catalog for each language of
    `i18n.LANGUAGES` but English: the Makefile reads that list from pbem/i18n.py."""
    printed = subprocess.run(["make", "-s", "--no-print-directory", "languages"], cwd=ROOT, check=True,
                             capture_output=True, text=True).stdout.split()
    assert printed == TRANSLATED


def _read(path: Path) -> Catalog:
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: run `make translations-update`"
    with path.open("rb") as handle:
        return read_po(handle)


def _template(domain: str) -> Catalog:
    return _read(TRANSLATIONS / f"{domain}.pot")


def _placeholders(text: str) -> set[str]:
    return {m[1] or m[0] for m in PLACEHOLDER.finditer(text) if m[0] != "%%"}


def _ids(catalog: Catalog) -> set[str]:
    return {m.id if isinstance(m.id, str) else m.id[0] for m in catalog if m.id}


def _forms(message: Message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_the_template_holds_every_message_the_code_marks(domain, tmp_path):
    fresh = tmp_path / f"{domain}.pot"
    subprocess.run([str(PYBABEL), "-q", "extract", "-F", f"babel-{domain}.cfg", "-k", "_", "-k", "gettext",
                    "-k", "ngettext:1,2", "-k", "lazy", "-k", "BotKind:1", "-o", str(fresh), "."], cwd=ROOT, check=True)
    with fresh.open("rb") as handle:
        marked = _ids(read_po(handle))
    missing = sorted(marked - _ids(_template(domain)))
    assert not missing, f"{len(missing)} marked messages not in {domain}.pot (make translations-update): {missing[:10]}"


def test_every_bots_display_name_is_a_message_of_the_emails_template():
    """engine.bots.REGISTRY's display names are plain English in the engine, extracted from it
    (babel-emails.cfg, -k BotKind:1), so every bot is named in the reader's language."""
    names = {kind.display for kind in engine.bots.REGISTRY.values()}
    assert names <= _ids(_template("emails"))


@pytest.mark.parametrize("domain, code", CATALOGS)
def test_every_message_is_translated_and_none_is_fuzzy(domain, code):
    catalog = _read(TRANSLATIONS / code / "LC_MESSAGES" / f"{domain}.po")
    problems = []
    for wanted in _template(domain):
        if not wanted.id:
            continue
        message = catalog.get(wanted.id, wanted.context)
        if message is None:
            problems.append(f"missing: {wanted.id!r}")
        elif message.fuzzy:
            problems.append(f"fuzzy: {wanted.id!r}")
        elif not all(form.strip() for form in _forms(message)):
            problems.append(f"untranslated: {wanted.id!r}")
    assert not problems, f"{domain}/{code}: {len(problems)} problems, first: {problems[:10]}"


@pytest.mark.parametrize("domain, code", CATALOGS)
def test_every_translation_keeps_the_placeholders_of_its_message(domain, code):
    catalog = _read(TRANSLATIONS / code / "LC_MESSAGES" / f"{domain}.po")
    problems = []
    for message in catalog:
        if not message.id or not message.string:
            continue
        if isinstance(message.id, str):
            if _placeholders(message.string) != _placeholders(message.id):  # type: ignore[arg-type]
                problems.append(f"{message.id!r} -> {message.string!r}")
            continue
        # Plural forms: the count (`num`) may go unsaid in a form ("une carte"); nothing else may.
        wanted = (_placeholders(message.id[0]) | _placeholders(message.id[1])) - {"num"}
        for form in _forms(message):
            if _placeholders(form) - {"num"} != wanted or not _placeholders(form) <= wanted | {"num"}:
                problems.append(f"{message.id[0]!r} -> {form!r}")
    assert not problems, f"{domain}/{code}: placeholders differ in {len(problems)}: {problems[:5]}"


@pytest.mark.parametrize("domain, code", CATALOGS)
def test_pybabel_compiles_every_catalog_with_every_message_translated(domain, code, tmp_path):
    po = TRANSLATIONS / code / "LC_MESSAGES" / f"{domain}.po"
    assert po.exists()
    done = subprocess.run([str(PYBABEL), "compile", "--statistics", "-i", str(po), "-o", str(tmp_path / "x.mo")],
                          capture_output=True, text=True, check=True)
    stats = re.search(r"(\d+) of (\d+) messages \(\d+%\) translated", done.stdout + done.stderr)
    assert stats, done.stdout + done.stderr
    assert stats[1] == stats[2] and "fuzzy" not in done.stdout + done.stderr, done.stdout + done.stderr


@pytest.mark.parametrize("domain", i18n.DOMAINS)
def test_the_catalogs_declare_the_plural_rule_of_their_language(domain):
    french = _read(TRANSLATIONS / "fr" / "LC_MESSAGES" / f"{domain}.po")
    form = c2py(french.plural_expr)
    assert form(0) == form(1) == 0 and form(2) != 0  # French: 0 and 1 take the singular
    assert _read(TRANSLATIONS / "vi" / "LC_MESSAGES" / f"{domain}.po").num_plurals == 1  # one form
