"""The pages' Jinja environment: `board.hand` on a plain dict looks up the key directly.

Jinja resolves `x.name` as `getattr(x, "name")` first and `x["name"]` only after an
AttributeError. The page contexts (pbem/present/board.py) are plain dicts, so every `.name` in a
template used to raise and catch an exception: about a quarter of the confirmation page's
rendering time. For a plain dict, a name that is not an attribute of `dict` can only be a key,
so looking it up as a key first gives exactly Jinja's result, without the exception.
"""
from __future__ import annotations

from typing import Any

from flask.templating import Environment
from markupsafe import Markup

from pbem import i18n

_DICT_ATTRIBUTES = frozenset(dir(dict))


def card_html(card: Any) -> Markup:
    """A card of `pbem.present.phrases` as it appears on a page: its colour word as a class
    (`card-green`, pbem/static/colours.css) and in its name (colour-blind players), its code for
    the leak tests. A filter, `{{ c|card }}`: a macro call per card cost a fifth of a page's
    rendering time."""
    return Markup('<span class="card card-{}" data-card="{}">{}</span>').format(
        card.colour, card.code, card.name)


class PageEnvironment(Environment):
    """Flask's Jinja environment with the fast path above for plain dicts, and the card filter."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters["card"] = card_html
        i18n.install(self)  # the reader's language (pbem/i18n.py, set per request)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)
