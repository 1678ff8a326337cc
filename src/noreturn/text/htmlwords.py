"""A Babel extractor for the browser pages' HTML: the words of elements marked ``data-i18n``.

The pages' fixed text (headings, labels, buttons) is written in English in the HTML; an
element with ``data-i18n`` has its text translated by ``static/i18n.js`` when the page
loads, and ``data-i18n-attrs="aria-label title"`` names attributes translated the same way.
``pybabel extract`` calls ``extract_html`` for the ``*.html`` files (babel.cfg), so the
catalog holds exactly the words the script will look up. Only the standard library is used:
this runs at extraction time, never in a game.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from html.parser import HTMLParser
from typing import IO, Any

VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})
"""Elements that have no end tag (their text cannot be marked)."""


def normalized(text: str) -> str:
    """The text as the script reads it: runs of white space made one space, trimmed (the
    script normalizes ``textContent`` the same way before it looks the words up)."""
    return " ".join(text.split())


class _Marked(HTMLParser):
    """Collects (line, words) for marked elements' text and marked attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self._open: list[tuple[str, bool, int, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        line = self.getpos()[0]
        for name in values.get("data-i18n-attrs", "").split():
            if values.get(name):
                self.found.append((line, normalized(values[name])))
        if tag not in VOID:
            self._open.append((tag, "data-i18n" in values, line, []))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            name, marked, line, parts = self._open.pop()
            text = normalized("".join(parts))
            if marked and text:
                self.found.append((line, text))
            if self._open:
                self._open[-1][3].append("".join(parts))
            if name == tag:
                return

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][3].append(data)


def extract_html(fileobj: IO[bytes], keywords: Mapping[str, Any],
                 comment_tags: Collection[str], options: Mapping[str, Any]
                 ) -> Iterator[tuple[int, str | None, str, list[str]]]:
    """Babel's extractor interface: (line, function name, message, comments) for each
    marked text of an HTML page."""
    parser = _Marked()
    parser.feed(fileobj.read().decode(options.get("encoding", "utf-8")))
    parser.close()
    for line, text in parser.found:
        yield line, None, text, []
