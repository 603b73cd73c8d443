"""HTML to text on hostile nesting (issue 22): seconds per size per parser.

    python -m benchmarks.html_parsers_bench [--sizes 36 72 144 288] [--shapes nested ...]
                                            [--timeout 90]

The issue's case is `nested`: an HTML-only email of N `<b>` then N stray `</i>` (each stray end
tag makes a parser that follows the HTML5 tree rules walk every open element). `deep-div` and
`deep-li` nest real blocks; `flat` is an ordinary document of paragraphs, for scale. Each
parser runs in a fresh process per size (killed past --timeout, shown as ">T"); a parser that
is not installed shows "n/a". The parsers: the stdlib HTMLParser converter the project had
before (copied below), selectolax (lexbor), lxml.html, inscriptis, html2text, and the project's
`html_to_text` (lxml). The others come with the `bench` extra (`make bench` installs it; only
lxml is a dependency of the service).
"""
from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable
from html.parser import HTMLParser

SHAPES: dict[str, Callable[[int], str]] = {
    "nested": lambda size: "<b>" * (size // 7) + "</i>" * (size // 7),
    "deep-div": lambda size: "<div>" * (size // 5),
    "deep-li": lambda size: "<ul><li>" * (size // 8),
    "flat": lambda size: "<p class='MsoNormal'>Green 2 on ship 5</p>\n" * (size // 43),  # for scale
}
PARSERS = ["stdlib (old)", "selectolax", "lxml.html", "inscriptis", "html2text", "html_to_text"]


class _OldTextOfHtml(HTMLParser):
    """The converter pbem/inbound/message.py had before issue 22 (stdlib tokenizer, its own
    stack): each end tag scans the whole stack, so nested tags are quadratic."""

    _BLOCKS = {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "table", "hr"}
    _SKIP = {"script", "style", "head", "title", "blockquote"}
    _QUOTE_CLASSES = ("gmail_quote", "yahoo_quoted", "moz-cite-prefix", "protonmail_quote")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip_depth = 0
        self.stack: list[tuple[str, bool]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(v or "" for k, v in attrs if k in ("class", "id"))
        skip = tag in self._SKIP or any(c in classes for c in self._QUOTE_CLASSES) or "divRplyFwdMsg" in classes
        if tag not in ("br", "hr", "img", "meta", "link", "input"):
            self.stack.append((tag, skip))
            if skip:
                self.skip_depth += 1
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if all(open_tag != tag for open_tag, _ in self.stack):
            return
        while self.stack:
            open_tag, skip = self.stack.pop()
            if skip:
                self.skip_depth -= 1
            if open_tag == tag:
                break
        if tag in self._BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth == 0:
            self.parts.append(data)


def _old(html: str) -> str:
    parser = _OldTextOfHtml()
    parser.feed(html)
    parser.close()
    return re.sub(r"\n{3,}", "\n\n", "\n".join(" ".join(x.split()) for x in "".join(parser.parts).split("\n")))


def converter(name: str) -> Callable[[str], str]:
    """The parser's HTML-to-text function (ImportError when it is not installed)."""
    if name == "stdlib (old)":
        return _old
    if name == "selectolax":
        from selectolax.lexbor import LexborHTMLParser
        return lambda html: LexborHTMLParser(html).text(separator="\n")
    if name == "lxml.html":
        import lxml.html
        return lambda html: lxml.html.document_fromstring(html).text_content()
    if name == "inscriptis":
        import inscriptis
        return inscriptis.get_text
    if name == "html2text":
        import html2text
        return html2text.html2text
    from pbem.inbound.html_text import html_to_text
    return html_to_text


def measure_one(name: str, shape: str, size: int) -> dict[str, object]:
    """In this process: one conversion of the `shape` document of `size` bytes."""
    html = f"<html><body><p>draw</p>{SHAPES[shape](size)}<p>Green 2</p></body></html>"
    convert = converter(name)
    started = time.perf_counter()
    text = convert(html)
    return {"seconds": time.perf_counter() - started, "kept": "draw" in text}


def run_cell(name: str, shape: str, size: int, timeout: float) -> str:
    command = [sys.executable, "-m", "benchmarks.html_parsers_bench", "--one", name, shape, str(size)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f">{timeout:g}"
    if done.returncode != 0:
        return "n/a" if "ModuleNotFoundError" in done.stderr or "ImportError" in done.stderr else "error"
    result = json.loads(done.stdout)
    seconds = float(result["seconds"])
    return f"{seconds:.3f}" if seconds < 10 else f"{seconds:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[36, 72, 144, 288], help="kB")
    parser.add_argument("--shapes", nargs="+", default=["nested"], choices=list(SHAPES))
    parser.add_argument("--parsers", nargs="+", default=PARSERS, choices=PARSERS)
    parser.add_argument("--timeout", type=float, default=90.0, help="seconds per parser and size")
    parser.add_argument("--one", nargs=3, metavar=("PARSER", "SHAPE", "BYTES"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        name, shape, size = args.one
        print(json.dumps(measure_one(name, shape, int(size))))
        return 0
    for shape in args.shapes:
        print(f"\n{shape}: seconds to convert (fresh process per cell)")
        print(f"{'size':>8}  " + "  ".join(f"{name:>13}" for name in args.parsers))
        for size in args.sizes:
            cells = [run_cell(name, shape, size * 1000, args.timeout) for name in args.parsers]
            print(f"{size:>5} kB  " + "  ".join(f"{cell:>13}" for cell in cells), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
