"""What we sent a seat, as its reply may quote it (`OurEmail`, built by `our_email`): the keys of
the meaningful lines of our emails (text parts, and HTML read into lines the two ways clients
render a table), with the pieces a client that re-wraps them makes, the move labels as printed,
what follows each line, and our hosts. `quotes` cuts a reply at the first line of ours."""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from pbem.inbound.html_text import our_html_lines

# A line of ours may come back re-wrapped by the quoting client (at 72, 76, 78 characters,
# less its indentation or quote marks): its first piece and its last words match too.
WRAP_WIDTHS = (50, 80)
WRAPPED_TAIL_CHARS = 20
MAX_WRAPPED_LINE_CHARS = 1_000


@dataclass(frozen=True)
class OurEmail:
    """What we sent the seat, as its reply may quote it (built by `our_email`)."""

    lines: frozenset[str]  # line_key() of every meaningful line of the emails we sent this seat
    labels: frozenset[str]  # line_key() of each move label as printed, with and without its number
    hosts: tuple[str, ...]  # our link host(s) and reply domain, lower-case ("korsar.test")
    # (key, key of the next non-blank line) in our emails: a copied label followed by what
    # follows it in our email is quoted, not typed.
    follows: frozenset[tuple[str, str]] = frozenset()


NOTHING_OURS = OurEmail(frozenset(), frozenset(), ())

_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff\u00ad"))
QUOTE_MARKS = ">|"
_BULLETS = "-*•·–—▪◦‣●○"
_EMPHASIS = "*_"
_LABEL_NUMBER = re.compile(r"\d{1,3}[.)] ")


def normal(line: str) -> str:
    """NFKC (full-width colons and no-break spaces become plain ones), invisible marks gone."""
    return unicodedata.normalize("NFKC", line).translate(_INVISIBLE)


def line_key(line: str) -> str:
    """How a line is compared with ours: quote marks, indentation, spacing, case and emphasis
    do not count; a bullet does ("  - Green 2" of a hand is not the writer's "Green 2")."""
    text = normal(line)
    start = 0
    while start < len(text) and (text[start] in QUOTE_MARKS or text[start].isspace()):
        start += 1
    key = " ".join(text[start:].casefold().split())
    if len(key) > 2 and key[0] in _EMPHASIS and key[-1] in _EMPHASIS:
        key = key.strip(_EMPHASIS + " ")
    if len(key) > 2 and key[0] in _BULLETS and key[1] == " ":
        key = "- " + key[2:]
    return key


def _meaningful(key: str) -> bool:
    """A line that says something, so that it cannot be the writer's by chance: not blank,
    "--", "1.", a lone word ("Gold", a player's name), a word and a number ("Vaisseau 2") or a
    few letters ("3 gold"); an item of a list is ("  - Red 3": no writer types the bullet)."""
    letters = sum(1 for c in key if c.isalpha())
    if key.startswith("- "):
        return letters >= 3
    return letters >= 5 and sum(1 for word in key.split(" ") if any(c.isalpha() for c in word)) >= 2


def _unnumbered(key: str) -> str:
    match = _LABEL_NUMBER.match(key)
    return key[match.end():] if match else key


def _forms(key: str) -> set[str]:
    """`key` and, for a long line, the first piece a client that re-wraps it at some width
    from WRAP_WIDTHS makes of it (indentation and quote marks allowed for), and its last
    words (a piece a careless client leaves unmarked)."""
    if not _meaningful(key):
        return set()
    forms = {key}
    if WRAP_WIDTHS[0] < len(key) <= MAX_WRAPPED_LINE_CHARS:
        words = key.split(" ")
        for cut in range(1, len(words)):
            head, tail = " ".join(words[:cut]), " ".join(words[cut:])
            fits = len(head) <= WRAP_WIDTHS[1] and len(head) + 1 + len(words[cut]) > WRAP_WIDTHS[0]
            if fits and _meaningful(head):
                forms.add(head)
            if WRAPPED_TAIL_CHARS <= len(tail) <= WRAP_WIDTHS[1] and _meaningful(tail):
                forms.add(tail)
    return forms


def _host(host: str) -> str:
    host = host.strip().casefold()
    if "//" in host:
        host = urlsplit(host).hostname or ""
    return host.strip(".@")


def our_email(texts: Iterable[str], labels: Iterable[str], hosts: Iterable[str]) -> OurEmail:
    """What the seat's reply may quote of the emails we sent it: `texts` (their text parts;
    an HTML part is read into lines here too), the move `labels` as printed and our `hosts`."""
    label_keys: set[str] = set()
    for label in labels:
        key = line_key(label)
        if key:
            label_keys.update((key, _unnumbered(key)))
    lines: set[str] = set()
    follows: set[tuple[str, str]] = set()
    known: dict[str, set[str]] = {}  # the forms of each key (our emails repeat most lines)
    for text in texts:
        for rendering in _renderings(text or ""):
            keys = [k for k in map(line_key, rendering.split("\n")) if k]
            for key in keys:
                if key not in known:  # a label is matched whole: a piece of one is the writer's
                    known[key] = _forms(key) if not is_label(key, label_keys) else {key} & _forms(key)
                lines.update(known[key])
            for key, following in zip(keys, keys[1:]):
                follows.update((key, form) for form in known[following] | {following})
    return OurEmail(lines=frozenset(lines), labels=frozenset(label_keys),
                    hosts=tuple(sorted({h for h in map(_host, hosts) if h})), follows=frozenset(follows))


def is_label(key: str, labels: frozenset[str] | set[str]) -> bool:
    return key in labels or _unnumbered(key) in labels


def names_host(key: str, hosts: tuple[str, ...]) -> bool:
    """`key` (case-folded) holds one of `hosts` as a whole domain name ("@korsar.test",
    "//korsar.test/", "www.korsar.test"), not inside another ("korsar.testing")."""
    for host in hosts:
        at = key.find(host)
        while at >= 0:
            before = key[at - 1] if at else " "
            end = at + len(host)
            after = key[end] if end < len(key) else " "
            if not (before.isalnum() or before == "-") and not (after.isalnum() or after == "-"):
                return True
            at = key.find(host, at + 1)
    return False


# ---------------------------------------------------------------- our HTML, as lines
_HTML = re.compile(r"<(?:!doctype|html|body|table|div|p|br|span|td)\b", re.I)


def _renderings(text: str) -> list[str]:
    """`text` as lines; an HTML email in the two ways clients turn it into text (a table's
    cells each on a line, or a row on one line)."""
    if not _HTML.search(text[:4096]):
        return [text]
    return [our_html_lines(text, cells_are_lines=True), our_html_lines(text, cells_are_lines=False)]
