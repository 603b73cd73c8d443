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
from jinja2 import ChoiceLoader

from pbem import i18n
from pbem.mail.render import card_html, shared_loader

_DICT_ATTRIBUTES = frozenset(dir(dict))


class PageEnvironment(Environment):
    """Flask's Jinja environment with the fast path above for plain dicts, the card filter and
    the partials the emails draw too (`shared/`, the same loader as the emails')."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.loader = ChoiceLoader([shared_loader(), self.loader]) if self.loader else shared_loader()
        self.filters["card"] = card_html
        i18n.install(self)  # the reader's language (pbem/i18n.py, set per request)

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)
