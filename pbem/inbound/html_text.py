"""The text of an HTML-only reply (Outlook on the web, some phones), without what it quotes.

Parser: lxml's HTML parser (libxml2), measured with `python -m benchmarks.html_parsers_bench
--shapes nested deep-div deep-li flat` (seconds on this 2-core machine, a fresh process per cell).
`nested` is the hostile case of issue 22: an HTML-only email of nested `<b>` then as many stray
`</i>`; `deep-li` is `<ul><li>` nested; `flat` an ordinary document of paragraphs.

    nested    stdlib (old)  selectolax  lxml.html  inscriptis  html2text  html_to_text (lxml)
    36 kB     1.39          0.071       0.000      0.003       0.053      0.001
    72 kB     4.08          0.239       0.000      0.002       0.096      0.001
    144 kB    18.8          1.56        0.000      0.002       0.167      0.002
    288 kB    71.7          8.92        0.000      0.002       0.341      0.003
    deep-li
    288 kB    0.762         25.7        0.000      0.004       >90        0.001
    flat
    288 kB    0.181         0.013       0.015      0.185       0.514      0.092

lxml is chosen: it is C, maintained (libxml2 2.14 tokenizes as HTML5 does), and linear on any
nesting because libxml2 stops building the tree at 256 open elements: every scan of the open
elements is bounded, and whatever lies deeper or after is dropped, which for a reply only ever
drops quoted text (a real reply is a few levels deep). selectolax follows the HTML5 tree rules
exactly and so is quadratic on nesting (each stray end tag walks every open element: 26 s for
nested lists); html2text rides on the stdlib tokenizer, is quadratic on nested lists and writes
Markdown; inscriptis is lxml underneath with a layout engine we do not need.

What is dropped (issue 22):
- script, style, head, title and the like;
- quote containers with everything inside them: any `blockquote` (Apple Mail's and
  Thunderbird's `type=cite`), Gmail's `gmail_quote`/`gmail_attr`, Thunderbird's `moz-cite-prefix`,
  Yahoo's `yahoo_quoted`, ProtonMail's `protonmail_quote`, signatures' containers;
- from a quote marker on, everything after it in document order (a cut): Outlook puts the quoted
  message after its header block, as siblings, not inside it. Markers: Outlook's `divRplyFwdMsg`,
  `appendonsend`, `OutlookMessageHeader`, `mail-editor-reference-message-container`, the header
  block's `border-top:solid #E1E1E1`, the `x_` ids and classes of quoted Outlook-on-the-web HTML,
  Samsung Email's `<!-- originalMessage -->`, and a line that is only a separator such as
  `-------- Original message --------` in any language.
End tags with no open element are ignored by the parser, and `</body>`/`</html>` (found inside
quoted documents) are removed first: libxml2 would let them close an open quote.

`our_html_lines` reads one of our own emails with the same parser, whole (`ours` matches a
reply's lines against it).
"""
from __future__ import annotations

import re

from lxml import etree

# Elements whose text is never the writer's.
_DROPPED = frozenset({"script", "style", "head", "title", "template", "noscript", "iframe", "object", "svg"})
# Elements that start and end a line of text.
_BLOCKS = frozenset({"p", "div", "tr", "li", "ul", "ol", "dl", "dt", "dd", "table", "hr", "pre", "blockquote",
                     "h1", "h2", "h3", "h4", "h5", "h6", "section", "article", "header", "footer", "main",
                     "nav", "aside", "address", "center", "figure", "form", "fieldset", "caption"})
_CELLS = frozenset({"td", "th"})
# The white space of the HTML source; a no-break space is the writer's (Outlook's blank line is
# a paragraph holding one).
_SOURCE_SPACE = " \t\r\n\f"
# Substrings of an id or class (lower case) whose element, with all it holds, is quoted text.
_QUOTE_NAMES = ("gmail_quote", "gmail_attr", "gmail_signature", "yahoo_quoted", "moz-cite-prefix",
                "moz-forward-container", "moz-signature", "protonmail_quote", "appleoriginalcontents")
# Substrings of an id or class (lower case) after which everything is quoted text.
_CUT_NAMES = ("divrplyfwdmsg", "appendonsend", "outlookmessageheader", "mail-editor-reference-message-container")
# Outlook's header block above the quoted message (its style, without spaces, lower case).
_CUT_STYLES = ("border-top:solid#e1e1e1", "border-top:solid#b5c4df", "border-top:solidrgb(225,225,225)")
_CUT_COMMENTS = frozenset({"originalmessage"})
# "-------- Original message --------", "---------- Forwarded message ---------" in any language.
_SEPARATOR = re.compile(r"^[-\u2010-\u2015]{4,}\s*[^-\u2010-\u2015\s][^-\u2010-\u2015]{0,80}[-\u2010-\u2015]{4,}$")
_DOCUMENT_END = re.compile(r"</\s*(?:body|html)\s*>", re.I)


def html_to_text(html: str) -> str:
    """The writer's text of `html`: blocks as lines, quotes left out (see the module docstring)."""
    root = _parse(_DOCUMENT_END.sub("", html))
    if root is None or any(_is_cut_comment(node) for node in root.itersiblings(preceding=True)):
        return ""
    text = _Text()
    walker = etree.iterwalk(root, events=("start", "end", "comment"))
    for event, element in walker:
        if event == "comment":
            if _is_cut_comment(element):
                break
            text.add(element.tail)
            continue
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if event == "start":
            names = _names(element)
            if _is_cut(element, names):
                break
            if tag in _DROPPED or tag == "blockquote" or any(name in names for name in _QUOTE_NAMES):
                walker.skip_subtree()
                continue  # its end event comes next and adds its tail
            text.open(tag)
            text.add(element.text)
        else:
            text.close(tag)
            text.add(element.tail)
    return _lines_until_separator(text.value())


def _parse(html: str) -> etree._Element | None:
    # Bytes with the encoding named: a str with an XML declaration is refused by lxml, and a
    # <meta charset> in a quoted document must not change how the rest is read.
    parser = etree.HTMLParser(encoding="utf-8", collect_ids=False, no_network=True, remove_pis=True)
    try:
        return etree.fromstring(html.encode("utf-8", "replace"), parser)
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):  # nothing to read
        return None


def _is_cut_comment(node: etree._Element) -> bool:
    return node.tag is etree.Comment and (node.text or "").strip().lower() in _CUT_COMMENTS


def _names(element: etree._Element) -> str:
    """Its id and classes, lower case ("" for most elements: the walk stays cheap)."""
    if not element.attrib:
        return ""
    return f"{element.get('id') or ''} {element.get('class') or ''}".lower()


def _is_cut(element: etree._Element, names: str) -> bool:
    if names and (any(name in names for name in _CUT_NAMES) or any(w.startswith("x_") for w in names.split())):
        return True
    style = element.get("style")
    if not style:
        return False
    style = "".join(style.lower().split())
    return any(marker in style for marker in _CUT_STYLES)


class _Text:
    """Text pieces in document order; a block starts and ends a line (once: empty blocks and the
    white space between them add no blank line), a `<br>` always breaks one."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.pre = 0  # inside <pre>: line breaks are kept
        self.line_has_text = False

    def add(self, piece: str | None) -> None:
        if not piece:
            return
        if self.pre:
            self.parts.append(piece)
            self.line_has_text = bool(piece.rpartition("\n")[2].strip(_SOURCE_SPACE))
        else:
            self.parts.append(" ".join(piece.split("\n")))
            self.line_has_text = self.line_has_text or bool(piece.strip(_SOURCE_SPACE))

    def open(self, tag: str) -> None:
        if tag == "br":
            self._break()
        elif tag in _BLOCKS:
            self._soft_break()
        elif tag in _CELLS:
            self.parts.append(" ")
        if tag == "pre":
            self.pre += 1

    def close(self, tag: str) -> None:
        if tag in _BLOCKS:
            self._soft_break()
        if tag == "pre":
            self.pre = max(0, self.pre - 1)

    def _break(self) -> None:
        self.parts.append("\n")
        self.line_has_text = False

    def _soft_break(self) -> None:
        if self.line_has_text:
            self._break()

    def value(self) -> str:
        return "".join(self.parts)


def _lines_until_separator(text: str) -> str:
    lines: list[str] = []
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        if _SEPARATOR.match(line):
            break
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# ---------------------------------------------------------------- our own HTML, whole
# What starts and ends a line in our own emails, and what is never shown.
_OUR_BLOCKS = frozenset({"address", "article", "blockquote", "br", "caption", "dd", "div", "dl", "dt", "footer",
                         "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "ol", "p", "pre", "section",
                         "table", "tbody", "tfoot", "thead", "tr", "ul"})
_OUR_HIDDEN = frozenset({"head", "script", "style", "title"})


def our_html_lines(html: str, *, cells_are_lines: bool) -> str:
    """One of our own HTML emails as lines, whole (nothing in it is a quote): each block a line,
    a table's cells each on a line or a row on one line (the two ways clients render it), hidden
    parts left out. The same lxml parser as `html_to_text`, linear on any nesting."""
    root = _parse(html)
    if root is None:
        return ""
    parts: list[str] = []
    walker = etree.iterwalk(root, events=("start", "end", "comment"))
    for event, element in walker:
        tag = element.tag.lower() if event != "comment" and isinstance(element.tag, str) else ""
        if event == "start" and tag in _OUR_HIDDEN:
            walker.skip_subtree()
            continue  # its end event comes next and adds its tail
        if tag in _OUR_BLOCKS or (cells_are_lines and tag in _CELLS):
            parts.append("\n")
        elif tag in _CELLS:
            parts.append(" ")
        piece = element.text if event == "start" else element.tail
        if piece:
            parts.append(piece.replace("\n", " "))
    return "".join(parts)
