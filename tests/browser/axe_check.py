"""axe-core in the system Chromium: where its script is (`make install` puts it in the venv from
the npm registry), how a page is checked, and what a violation says in a test's message."""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

# `npm install --prefix .venv/axe axe-core@4` (the Makefile's install); KORSAR_AXE: another copy.
AXE = Path(os.environ.get("KORSAR_AXE") or Path(sys.prefix) / "axe" / "node_modules" / "axe-core" / "axe.min.js")
# What fails the suite: moderate or worse ("minor" findings are left to a person's judgement).
FAILING_IMPACTS = frozenset({"moderate", "serious", "critical"})
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
# An email is a fragment a mail client shows inside its own page, which has the landmarks.
EMAIL_RULES_OFF = ("region", "landmark-one-main")


def axe_script() -> Path:
    """The axe-core script, or the test skipped with the reason."""
    if not AXE.is_file():
        pytest.skip(f"axe-core is not installed at {AXE} (`make install` installs it when npm exists, "
                    "or set KORSAR_AXE to an axe.min.js): accessibility checks skipped")
    return AXE


def violations(page: Any, *, rules_off: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """The failing violations of axe-core on the page as it is now (the script injected if the
    page has none yet: a new page or a navigation)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(axe_script()))
    options = {"runOnly": {"type": "tag", "values": TAGS}, "resultTypes": ["violations"],
               "rules": {rule: {"enabled": False} for rule in rules_off}}
    found = page.evaluate("options => axe.run(document, options).then(r => r.violations)", options)
    return [v for v in found if v.get("impact") in FAILING_IMPACTS]


def described(where: str, found: list[dict[str, Any]]) -> list[str]:
    """One line per violation: where, the rule and its impact, what it asks, the first elements."""
    lines = []
    for v in found:
        targets = ", ".join(" ".join(map(str, node["target"])) for node in v["nodes"][:3])
        more = f" (+{len(v['nodes']) - 3} more)" if len(v["nodes"]) > 3 else ""
        lines.append(f"{where}: {v['id']} [{v['impact']}] {v['help']}: {targets}{more} ({v['helpUrl']})")
    return lines
