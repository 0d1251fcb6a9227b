"""HTML to the text a reader sees.

Script, style, template, head, comments and anything marked ``hidden``,
``aria-hidden="true"``, ``display:none`` or ``visibility:hidden`` are not
visible and are kept apart (``hidden`` text), so a quote found only there is
not verified.
"""

from __future__ import annotations

import bisect
import re
from html.parser import HTMLParser
from typing import Any

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
        self.length = 0  # characters in ``visible`` so far
        self.chunks: list[tuple[int, int, int, str]] = []  # (visible offset, line, column, text)
        self.readings: list[tuple[int, str]] = []  # (visible offset, furigana reading)

    @property
    def _hidden_now(self) -> bool:
        return bool(self.stack) and self.stack[-1][1]

    def _add(self, text: str) -> None:
        self.visible.append(text)
        self.length += len(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        hidden = self._hidden_now or _is_hidden(tag, attrs)
        if tag in _BLOCK_TAGS and not hidden:
            self._add("\n")
        if tag not in _VOID:
            self.stack.append((tag, hidden))
            self.open[tag] = self.open.get(tag, 0) + 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS and not self._hidden_now:
            self._add("\n")

    def handle_endtag(self, tag: str) -> None:
        # pop to the matching tag; tolerate unclosed elements and ignore stray end tags
        if self.open.get(tag):
            while self.stack:
                top, _ = self.stack.pop()
                self.open[top] -= 1
                if top == tag:
                    break
        if tag in _BLOCK_TAGS and not self._hidden_now:
            self._add("\n")

    def _in_ruby_text(self) -> str | None:
        """The innermost open ``rt``/``rp``/``rtc``, when there is one."""
        if not (self.open.get("rt") or self.open.get("rp") or self.open.get("rtc")):
            return None
        for tag, _ in reversed(self.stack):
            if tag in ("rt", "rp", "rtc"):
                return tag
        return None

    def handle_data(self, data: str) -> None:
        if self._hidden_now:
            self.hidden.append(data)
            return
        ruby = self._in_ruby_text()
        if ruby is not None:
            if ruby != "rp":  # the reading; <rp> brackets only show where ruby is not rendered
                if self.readings and self.readings[-1][0] == self.length:
                    self.readings[-1] = (self.length, self.readings[-1][1] + data)
                else:
                    self.readings.append((self.length, data))
            return
        line, col = self.getpos()
        self.chunks.append((self.length, line, col + 1, data))
        self._add(data)

    def handle_comment(self, data: str) -> None:
        self.hidden.append(data)


class HTMLUnreadable(Exception):
    """Python's HTML parser gave up on this markup (it raises AssertionError on some malformed sections).

    Internal: this module imports nothing from claimledger (the extractor child
    process loads it alone), so this is not a :class:`ClaimledgerError`; every
    caller turns it into a ``source_unreadable`` :class:`SourceError`.
    """


def html_extract(
    markup: str, timeout: float | None = None, *, memory: int = 1 << 30, max_chars: int = 20_000_000
) -> tuple[str, str, dict[str, Any]]:
    """:func:`html_to_text`, in a child process killed after ``timeout`` seconds when one is given.

    Python's ``html.parser`` is quadratic on some malformed input (unclosed
    comments, tags and attribute quotes), so a hostile page of a few hundred
    kilobytes could otherwise hold the gate for hours.
    """
    from claimledger._exceptions import SourceError

    if timeout is None:
        try:
            return html_result(html_to_dict(markup))
        except HTMLUnreadable as exc:
            raise SourceError("source_unreadable", str(exc)) from None
    from claimledger.load.isolate import run_extractor

    result = run_extractor(
        "html", markup.encode("utf-8", "surrogatepass"), (), timeout, memory=memory, max_chars=max_chars
    )
    return html_result(result)


def html_result(result: dict[str, Any]) -> tuple[str, str, dict[str, Any]]:
    """``(visible, hidden, extras)`` from the worker's JSON object (extras: readings, anchors)."""
    extras = {"readings": result.get("readings", []), "anchors": result.get("anchors", [])}
    return str(result.get("visible", "")), str(result.get("hidden", "")), extras


_COLLAPSE = re.compile(r"[ \t\r\f\v]*\n[ \t\r\f\v\n]*")


def html_to_text(markup: str) -> tuple[str, str]:
    """Return ``(visible_text, hidden_text)`` of an HTML document; :class:`HTMLUnreadable` when it cannot."""
    result = html_to_dict(markup)
    return str(result["visible"]), str(result["hidden"])


def html_to_dict(markup: str) -> dict[str, Any]:
    """Visible and hidden text, furigana readings ``[offset, text]`` and location anchors
    ``[offset, line, column]`` (1-based, in the markup) of an HTML document."""
    parser = _Extractor()
    try:
        parser.feed(markup)
        parser.close()
    except (AssertionError, ValueError, IndexError) as exc:  # e.g. "<![cp" in Python 3.11's _markupbase
        raise HTMLUnreadable(f"HTML that the parser cannot read ({type(exc).__name__}: {exc})") from None
    raw = "".join(parser.visible)
    # collapse whitespace around line breaks, remembering where each kept run came from
    out: list[str] = []
    seg_out: list[int] = []  # output offset of each kept run
    seg_raw: list[int] = []  # raw offset of the same run
    n = 0
    pos = 0
    for m in _COLLAPSE.finditer(raw):
        if m.start() > pos:
            seg_out.append(n)
            seg_raw.append(pos)
            out.append(raw[pos : m.start()])
            n += m.start() - pos
        out.append("\n")
        n += 1
        pos = m.end()
    if pos < len(raw):
        seg_out.append(n)
        seg_raw.append(pos)
        out.append(raw[pos:])
    text = "".join(out)
    lead = len(text) - len(text.lstrip())
    visible = text.strip()

    def to_out(r: int) -> int:
        i = bisect.bisect_right(seg_raw, r) - 1
        if i < 0:
            return 0
        return min(seg_out[i] + (r - seg_raw[i]), seg_out[i + 1] if i + 1 < len(seg_out) else len(text))

    anchors: list[tuple[int, int, int]] = []
    for start, line, col, data in parser.chunks:
        offset = 0
        for piece in data.split("\n"):
            if piece.strip():
                skip = len(piece) - len(piece.lstrip())
                o = to_out(start + offset + skip) - lead
                if 0 <= o <= len(visible):
                    anchors.append((o, line, col + skip))
            offset += len(piece) + 1
            line, col = line + 1, 1
    anchors.sort()
    readings = [[max(0, min(len(visible), to_out(r) - lead)), t] for r, t in parser.readings if t.strip()]
    return {
        "visible": visible,
        "hidden": "\n".join(parser.hidden),
        "readings": readings,
        "anchors": [list(a) for a in anchors],
    }
