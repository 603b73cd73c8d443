"""The pages' Jinja environment looks up plain dict keys first: same results as Jinja's own."""
from __future__ import annotations

import jinja2
import pytest

from pbem.web.templating import PageEnvironment

TEMPLATES = [
    "{{ d.name }}|{{ d.missing }}|{{ d.missing is defined }}",
    "{{ d['name'] }}|{{ d.nested.inner }}|{{ d.nested.gone|default('none') }}",
    "{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}",  # a dict method named like a key
    "{{ d.get('name') }}|{{ d.keys()|list|length }}|{{ d.values is callable }}",
    "{{ o.real }}|{{ o.nope is defined }}|{{ s.upper() }}|{{ sub.name }}",  # not plain dicts
]


class _Dict(dict):  # a dict subclass may have attributes of its own: left to Jinja
    name = "attribute"


@pytest.mark.parametrize("source", TEMPLATES)
def test_the_same_output_as_jinja(app, source):
    context = {"d": {"name": "Ann", "items": "shadowed?", "nested": {"inner": 1}},
               "o": 3, "s": "abc", "sub": _Dict(name="key")}
    expected = jinja2.Environment(autoescape=True).from_string(source).render(context)
    assert isinstance(app.jinja_env, PageEnvironment)
    assert app.jinja_env.from_string(source).render(context) == expected


def test_a_card_on_a_page_names_its_colour_and_escapes_its_name():
    from pbem.present.phrases import CardView
    from pbem.mail.render import card_html

    assert str(card_html(CardView("B3", "Blue pirate 3 <b>", "blue"))) == (
        '<span class="card card-blue" data-card="B3"><span class="mark" aria-hidden="true">\u25cf</span>'
        ' Blue pirate 3 &lt;b&gt;</span>')

