"""Rendering emails from `email_templates/` (a top-level package, its data shipped in the wheel):
`<name>.subject.txt`, `<name>.txt`, `<name>.html`.

HTML templates are autoescaped (player names are untrusted); text templates are not, since
they are never shown as HTML. The subject is forced onto one line.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

import pbem.i18n as i18n
from pbem.mail.outbox import Email
from pbem.words import plural

# Found as the installed package is, editable or from the wheel (a directory either way).
TEMPLATE_DIR = Path(str(resources.files("email_templates")))
MAX_SUBJECT_LENGTH = 200
_SPACE_RE = re.compile(r"\s+")


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Templates change only with a deploy: no stat() of every template file per email.
        auto_reload=False,
    )
    env.filters["plural"] = plural  # the one plural rule (pbem/words.py), as on the pages
    i18n.install(env)  # each email in its recipient's language: `with i18n.using(seat.language)`
    return env


def email_names() -> list[str]:
    """Every email kind that has a subject template."""
    return sorted(p.name[: -len(".subject.txt")] for p in TEMPLATE_DIR.glob("*.subject.txt"))


def one_line(text: str, limit: int = MAX_SUBJECT_LENGTH) -> str:
    """Collapse every run of whitespace (CR/LF included) to one space; cut at `limit`."""
    line = _SPACE_RE.sub(" ", text).strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def render_subject(name: str, context: dict[str, Any]) -> str:
    """The one-line subject of email `name`."""
    return one_line(environment().get_template(f"{name}.subject.txt").render(context))


def render_email(name: str, to_addr: str, context: dict[str, Any],
                 headers: dict[str, str] | None = None) -> Email:
    """Render the three templates of email `name` for one recipient."""
    env = environment()
    subject = render_subject(name, context)
    text = env.get_template(f"{name}.txt").render(context)
    html = env.get_template(f"{name}.html").render(context)
    return Email(kind=name, to_addr=to_addr, subject=subject, text_body=text, html_body=html,
                 headers=dict(headers or {}))
