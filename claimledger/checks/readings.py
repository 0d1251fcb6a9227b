"""Second readings of a source, tried only for a quote the primary reading does not hold.

A layer over the literal match (:func:`claimledger.checks.quote_scan.find_whole`): each
reading is text made of pieces of the source's own text (plus, for furigana, the
readings the source prints), normalized like the source, searched exactly, and
mapped back to offsets of the source. Nothing here is fuzzy.

* ``furigana``: the base text with each reading in brackets after its base,
  ``漢字(かんじ)``, the way a page shows ruby where ruby is not rendered (and how
  Aozora Bunko text writes it: ``漢字《かんじ》``). A quote that copies the
  reading is matched there.
* ``pdf_body``: a PDF's body run on across page breaks. Running headers and
  footers (one of the first or last two lines of a page, repeated there on most
  pages, digits ignored; at most three lines at each edge),
  bare page numbers, and a figure caption or a footnote block at the page
  boundary are set aside. Two pages are joined only where the last body line
  of the first does not end a sentence, so the reading never runs two separate
  sentences together; a match must cross such a join. Line-end hyphenation
  across the break is read as at any line end.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence
from claimledger.normalize import Normalized, normalize
from claimledger.textmap import Segments

SENTENCE_END = ".。!?！？:："
_BLOCKED = "\n\x00\n"  # between pages that a reader sees as separate sentences: no quote holds NUL
_ROMAN = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
_PAGE_NUMBER = re.compile(
    rf"^[\s\-–—(（]*(?:page|p\.|pp\.|ページ|頁)?\s*(?:[0-9０-９]{{1,5}}|{_ROMAN})\s*"
    r"(?:(?:/|of|／)\s*[0-9０-９]{1,5})?\s*(?:ページ|頁)?[\s\-–—)）]*$",
    re.I,
)
# a caption starts with its label and number, then punctuation, a full-width space, a non-ASCII
# title or the line end ("Table 3 shows that ..." is a sentence, not a caption)
_CAPTION = re.compile(
    r"^\s*(?:figure|fig\.|table|chart|exhibit|図|表)\s*[0-9０-９]+(?:[.:：．)）　]|\s*$|\s+(?=[^\x00-\x7f]))"
    r"|^\s*(?:source:|出典[：:]|資料[：:])",
    re.I,
)
_FOOTNOTE = re.compile(r"^\s*(?:[¹²³⁴⁵⁶⁷⁸⁹⁰]+|\*{1,3}|[†‡§]|※|注\s*[0-9０-９]+|注[：:])\s*\S")
_DIGIT_NOTE = re.compile(r"^\s*([0-9]{1,2})[\s.)）]\s*\S")
_CLOSERS = "」』）)]】〕\"'”’"
_EDGE_LINES = 2  # running header or footer lines looked for at each edge of a page
_EDGE_MAX = 3  # lines set aside at most at each edge (two running lines and a page number)
_BOTTOM_REGION = 6


@dataclass
class Reading:
    name: str
    text: str
    seg: Segments
    junctions: list[tuple[int, int]] = field(default_factory=list)
    _norm: Normalized | None = None

    @property
    def norm(self) -> Normalized:
        if self._norm is None:
            self._norm = normalize(self.text)
        return self._norm

    def to_source(self, a: int, b: int) -> list[tuple[int, int]]:
        """The source spans that reading text ``[a, b)`` is made of (inserted text has none)."""
        spans: list[tuple[int, int]] = []
        for o, s, n in zip(self.seg.out, self.seg.src, self.seg.length, strict=True):
            lo, hi = max(a, o), min(b, o + n)
            if lo < hi:
                spans.append((s + lo - o, s + hi - o))
        return spans


def reader_text(text: str) -> str:
    """Text as a reader sees it: line ends as ``\\n``, PDFium's hyphen mark as a hyphen."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\ufffe", "-")


def furigana_reading(ix: IndexedSource) -> Reading | None:
    ruby = [(o, t) for o, kind, t in ix.source.annotations if kind == "ruby"]
    if not ruby:
        return None
    text = ix.source.text
    parts: list[str] = []
    seg = Segments()
    n = 0
    pos = 0
    for offset, reading in sorted(ruby):
        if offset < pos or offset > len(text):
            continue
        seg.keep(n, pos, offset - pos)
        parts.append(text[pos:offset])
        n += offset - pos
        inserted = f"({reading})"
        parts.append(inserted)
        n += len(inserted)
        pos = offset
    seg.keep(n, pos, len(text) - pos)
    parts.append(text[pos:])
    return Reading("furigana", "".join(parts), seg)


def _lines(page: str) -> list[tuple[int, int]]:
    """(start, end) of each line of a page, without its line break."""
    out = []
    pos = 0
    for m in re.finditer(r"\r\n|\r|\n", page):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, len(page)))
    return out


def _signature(line: str) -> str:
    return re.sub(r"[0-9０-９]+", "#", " ".join(line.split())).casefold()


def _body_range(page: str, lines: list[tuple[int, int]], running: set[str]) -> tuple[int, int]:
    """Indices [first, last) of the body lines of one page."""
    first, last = 0, len(lines)

    def text(i: int) -> str:
        return page[lines[i][0] : lines[i][1]]

    def edge(i: int) -> bool:
        t = text(i)
        return not t.strip() or _signature(t) in running or bool(_PAGE_NUMBER.match(t))

    k = 0
    while first < last and k < _EDGE_MAX and edge(first):
        first += 1
        k += 1 if text(first - 1).strip() else 0
    k = 0
    while last > first and k < _EDGE_MAX and edge(last - 1):
        last -= 1
        k += 1 if text(last).strip() else 0
    # a caption at the top of the page: up to the line that ends it (at most three lines)
    if first < last and _CAPTION.match(text(first)):
        for j in range(first, min(first + 3, last)):
            if text(j).rstrip().rstrip(_CLOSERS).endswith(tuple(SENTENCE_END)) or j == min(first + 3, last) - 1:
                first = j + 1
                break
    # a caption or footnote block at the bottom: from its first line to the page end
    body_before = page[lines[first][0] : lines[max(first, last - _BOTTOM_REGION)][0]] if first < last else ""
    for j in range(max(first + 1, last - _BOTTOM_REGION), last):
        t = text(j)
        note = _DIGIT_NOTE.match(t)
        if (
            _CAPTION.match(t)
            or _FOOTNOTE.match(t)
            or (note and re.search(rf"[^\s\d]{note.group(1)}(?!\d)", body_before + page[lines[first][0] : lines[j][0]]))
        ):
            last = j
            break
    return first, last


def pdf_body_reading(ix: IndexedSource) -> Reading | None:
    src = ix.source
    starts = src.page_starts
    if len(starts) < 2:
        return None
    text = src.text
    pages = []
    for i, s in enumerate(starts):
        end = starts[i + 1] - 2 if i + 1 < len(starts) else len(text)  # minus the page separator
        pages.append((s, max(s, end)))
    page_lines = [_lines(text[a:b]) for a, b in pages]
    counts: dict[str, int] = {}
    for (a, _b), lines in zip(pages, page_lines, strict=True):
        nonempty = [ln for ln in lines if text[a + ln[0] : a + ln[1]].strip()]
        seen = {_signature(text[a + s : a + e]) for s, e in nonempty[:_EDGE_LINES] + nonempty[-_EDGE_LINES:]}
        for sig in seen:
            counts[sig] = counts.get(sig, 0) + 1
    need = max(2, (len(pages) + 1) // 2)
    running = {sig for sig, c in counts.items() if c >= need and sig.strip("# ")}
    parts: list[str] = []
    seg = Segments()
    junctions: list[tuple[int, int]] = []
    n = 0
    for i, ((a, b), lines) in enumerate(zip(pages, page_lines, strict=True)):
        page = text[a:b]
        first, last = _body_range(page, lines, running)
        if first >= last:
            continue
        s, e = a + lines[first][0], a + lines[last - 1][1]
        if parts:
            prev = parts[-1].rstrip().rstrip(_CLOSERS)
            sep = "\n" if prev and prev[-1] not in SENTENCE_END else _BLOCKED
            if sep == "\n":
                junctions.append((n - 1, n + 2))
            parts.append(sep)
            n += len(sep)
        seg.keep(n, s, e - s)
        parts.append(text[s:e])
        n += e - s
        del i
    if not junctions:
        return None
    return Reading("pdf_body", "".join(parts), seg, junctions)


def readings(ix: IndexedSource) -> list[Reading]:
    cached = getattr(ix, "_readings", None)
    if cached is None:
        cached = [r for r in (furigana_reading(ix), pdf_body_reading(ix)) if r is not None]
        ix._readings = cached  # type: ignore[attr-defined]
    return cached


def find_in_readings(ix: IndexedSource, nq: str) -> Evidence | None:
    """An exact match of normalized quote ``nq`` in a second reading, as evidence in the source."""
    from claimledger.checks.boundaries import find_whole

    for r in readings(ix):
        q = nq.replace("《", "(").replace("》", ")") if r.name == "furigana" else nq
        if r.name == "furigana" and "(" not in q:
            continue
        norm = r.norm
        pos = find_whole(norm.text, q)
        while pos >= 0:
            a, b = norm.to_original(pos, pos + len(q))
            if r.name != "pdf_body" or any(a < je and js < b for js, je in r.junctions):
                return evidence_from(ix, r, a, b)
            pos = find_whole(norm.text, q, pos + 1)
    return None


def evidence_from(ix: IndexedSource, r: Reading, a: int, b: int) -> Evidence:
    src = ix.source
    spans = r.to_source(a, b)
    start, end = (spans[0][0], spans[-1][1]) if spans else (0, 0)
    page = src.page_of(start)
    end_page = src.page_of(max(start, end - 1))
    loc = src.location(start)
    return Evidence(
        source=src.id, start=start, end=end, text=reader_text(r.text[a:b]), page=page,
        end_page=end_page if end_page != page else None,
        line=loc[0] if loc else None, column=loc[1] if loc else None,
        spans=tuple(spans) if len(spans) > 1 else (), reading=r.name,
    )  # fmt: skip
