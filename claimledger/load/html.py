"""HTML to the text a reader sees.

Script, style, template, head, comments and anything marked ``hidden``,
``aria-hidden="true"``, ``display:none`` or ``visibility:hidden`` are not
visible and are kept apart (``hidden`` text), so a quote found only there is
not verified.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

_INVISIBLE_TAGS = {"script", "style", "template", "head", "noscript", "svg", "math", "iframe", "object"}
_BLOCK_TAGS = {
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "fieldset",
    "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header",
    "hr", "li", "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "tr", "ul",
    "caption", "title", "summary", "details",
}  # fmt: skip
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HIDDEN_STYLE = re.compile(r"(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]))", re.I)


def _is_hidden(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
    if tag in _INVISIBLE_TAGS:
        return True
    for name, value in attrs:
        if name == "hidden":
            return True
        if name == "aria-hidden" and (value or "").strip().lower() == "true":
            return True
        if name == "style" and value and _HIDDEN_STYLE.search(value):
            return True
        if tag == "input" and name == "type" and (value or "").lower() == "hidden":
            return True
    return False


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.visible: list[str] = []
        self.hidden: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, hidden)
        self.open: dict[str, int] = {}  # tag -> how many are on the stack (stray end tags cost O(1))

    @property
    def _hidden_now(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        hidden = self._hidden_now or _is_hidden(tag, attrs)
        if tag in _BLOCK_TAGS and not hidden:
            self.visible.append("\n")
        if tag not in _VOID:
            self.stack.append((tag, hidden))
            self.open[tag] = self.open.get(tag, 0) + 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS and not self._hidden_now:
            self.visible.append("\n")

    def handle_endtag(self, tag: str) -> None:
        # pop to the matching tag; tolerate unclosed elements and ignore stray end tags
        if self.open.get(tag):
            while self.stack:
                top, _ = self.stack.pop()
                self.open[top] -= 1
                if top == tag:
                    break
        if tag in _BLOCK_TAGS and not self._hidden_now:
            self.visible.append("\n")

    def handle_data(self, data: str) -> None:
        (self.hidden if self._hidden_now else self.visible).append(data)

    def handle_comment(self, data: str) -> None:
        self.hidden.append(data)


class HTMLUnreadable(Exception):
    """Python's HTML parser gave up on this markup (it raises AssertionError on some malformed sections)."""


def html_extract(markup: str, timeout: float | None = None) -> tuple[str, str]:
    """:func:`html_to_text`, in a child process killed after ``timeout`` seconds when one is given.

    Python's ``html.parser`` is quadratic on some malformed input (unclosed
    comments, tags and attribute quotes), so a hostile page of a few hundred
    kilobytes could otherwise hold the gate for hours.
    """
    from claimledger._exceptions import SourceError

    if timeout is None:
        try:
            return html_to_text(markup)
        except HTMLUnreadable as exc:
            raise SourceError("source_unreadable", str(exc)) from None
    from claimledger.load.isolate import run_extractor

    result = run_extractor("html", markup.encode("utf-8", "surrogatepass"), (), timeout)
    return str(result.get("visible", "")), str(result.get("hidden", ""))


def html_to_text(markup: str) -> tuple[str, str]:
    """Return ``(visible_text, hidden_text)`` of an HTML document; :class:`HTMLUnreadable` when it cannot."""
    parser = _Extractor()
    try:
        parser.feed(markup)
        parser.close()
    except (AssertionError, ValueError, IndexError) as exc:  # e.g. "<![cp" in Python 3.11's _markupbase
        raise HTMLUnreadable(f"HTML that the parser cannot read ({type(exc).__name__}: {exc})") from None
    visible = "".join(parser.visible)
    visible = re.sub(r"[ \t\r\f\v]*\n[ \t\r\f\v\n]*", "\n", visible).strip()
    return visible, "\n".join(parser.hidden)
