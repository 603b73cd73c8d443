"""Rendering emails from `email_templates/` (a top-level package, its data shipped in the wheel):
`<name>.subject.txt`, `<name>.txt`, `<name>.html`, and the partials both media draw
(`shared/`, in pbem/templates/shared: the board and the final breakdown).

HTML templates are autoescaped (player names are untrusted); text templates are not, since
they are never shown as HTML. The subject is forced onto one line. The shared partials carry
classes only: each HTML email gets `email_templates/email.css` and the card colours of
`pbem/static/colours.css` inlined into style attributes (css-inline), as mail clients drop
<style> and classes.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import css_inline
from jinja2 import (BaseLoader, ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, StrictUndefined,
                    select_autoescape)
from markupsafe import Markup

import pbem.i18n as i18n
from pbem.config import PACKAGE_DIR
from pbem.mail.outbox import Email
from pbem.words import plural

# Found as the installed package is, editable or from the wheel (a directory either way).
TEMPLATE_DIR = Path(str(resources.files("email_templates")))
# The partials the pages and the emails both draw: the pages' tree holds them (pbem/templates).
SHARED_DIR = PACKAGE_DIR / "templates" / "shared"
# Inlined in this order: the card colours (one table with the pages), then the emails' own rules.
EMAIL_CSS = (PACKAGE_DIR / "static" / "colours.css", TEMPLATE_DIR / "email.css")
MAX_SUBJECT_LENGTH = 200
_SPACE_RE = re.compile(r"\s+")
# While the inliner parses an email, every "&" is this private-use character: the parser then
# decodes no entity, so the HTML comes back escaped exactly as Jinja escaped it (a name's quotes
# and angle brackets stay entities, in text and in attributes alike).
_AMPERSAND = "\ue000"
_CLASS_RE = re.compile(r' class="[^"]*"')  # a tag's classes (quotes in values are entities)
_TBODY_RE = re.compile(r"</?tbody>")  # the parser's own: the templates write rows in their tables


def shared_loader() -> BaseLoader:
    """`shared/<partial>` for a Jinja environment: the one loader path of the partials both media
    draw (the emails' environment here, the pages' in pbem/web/templating.py)."""
    return PrefixLoader({"shared": FileSystemLoader(str(SHARED_DIR))})


def card_html(card: Any) -> Markup:
    """A card of `pbem.present.phrases` as pages and emails draw it: its colour word as a class
    (`card-green`, pbem/static/colours.css) and in its name, its colour's mark before the name
    (hidden from screen readers, which read the word), `captain` for the outlined chip of a
    captain, its code for the leak tests. A filter, `{{ c|card }}`: a macro call per card cost a
    fifth of a page's rendering time."""
    kind = " captain" if card.captain else ""
    if not card.mark:
        return Markup('<span class="card card-{}{}" data-card="{}">{}</span>').format(
            card.colour, kind, card.code, card.name)
    return Markup('<span class="card card-{}{}" data-card="{}"><span class="mark" aria-hidden="true">{}</span>'
                  ' {}</span>').format(card.colour, kind, card.code, card.mark, card.name)


@lru_cache(maxsize=1)
def inliner() -> css_inline.CSSInliner:
    """The emails' stylesheets, read once, inlined into an email's HTML (no remote sheet is read)."""
    css = "\n".join(path.read_text(encoding="utf-8") for path in EMAIL_CSS)
    return css_inline.CSSInliner(load_remote_stylesheets=False, minify_css=True, extra_css=css)


def inline_css(html: str) -> str:
    """An email's HTML with the emails' stylesheets in style attributes and its classes dropped
    (mail clients ignore them): what the shared partials look like in a mail client. An email
    without classes (none of the shared partials) is left as written."""
    if ' class="' not in html:
        return html
    hidden = html.replace(_AMPERSAND, "&#57344;").replace("&", _AMPERSAND)
    inlined = inliner().inline(hidden)
    return _TBODY_RE.sub("", _CLASS_RE.sub("", inlined)).replace(_AMPERSAND, "&")


@lru_cache(maxsize=1)
def environment() -> Environment:
    env = Environment(
        loader=ChoiceLoader([FileSystemLoader(str(TEMPLATE_DIR)), shared_loader()]),
        autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        # Templates change only with a deploy: no stat() of every template file per email.
        auto_reload=False,
    )
    env.filters["card"] = card_html  # as on the pages
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
    html = inline_css(env.get_template(f"{name}.html").render(context))
    return Email(kind=name, to_addr=to_addr, subject=subject, text_body=text, html_body=html,
                 headers=dict(headers or {}))
