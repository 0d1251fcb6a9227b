"""Elided quotes: ``"the system [...] reduced errors"``, with bracketed insertions.

A quote that marks an omission with ``[…]``, ``[...]``, ``...``, ``…``, ``(中略)``
or ``〔略〕`` is split there; every segment is matched literally (normalized, on
word boundaries, like any quote), in order, in the same passage: each gap is at
most :data:`MAX_GAP` normalized characters and crosses no blank line. Each
segment must itself be long enough to mean something (``min_quote_chars``). A
bracketed editorial insertion (``[the system]``, ``[sic]``) is a gap too (at most
:data:`MAX_INSERTION_GAP` characters of the source stand where it is), and is
listed in the finding. A bracket holding a digit (``[3]``, ``[2019]``) is never an
insertion: it is a footnote or citation mark or a figure, and must match literally
(a changed footnote number once verified through the gap). Tried only when the quote as a whole is not in the
source. A layer over the literal match: nothing here is fuzzy.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence

MAX_GAP = 400  # normalized characters one omission may stand for
MAX_INSERTION_GAP = 80  # source characters a bracketed insertion may replace ([the system] for "it")
MAX_OCCURRENCES = 200  # places tried for each segment
_MARK = re.compile(
    r"\s*(?P<elide>\[\s*\.{3}\s*\]|\.{3}|\(\s*中?略\s*\)|〔\s*中?略\s*〕)\s*|\s*\[(?P<insert>[^\[\]0-9]{1,60})\]\s*"
)
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


@dataclass(frozen=True)
class ElidedQuote:
    segments: tuple[str, ...]
    gaps: tuple[str, ...]  # "elide" or "insert", one between each two segments
    insertions: tuple[str, ...]


def split_elided(nq: str) -> ElidedQuote | None:
    """The segments of a normalized quote with omission marks or insertions; None when it has none."""
    if not _MARK.search(nq):
        return None
    pieces: list[str] = []
    kinds: list[str] = []
    insertions: list[str] = []
    pos = 0
    for m in _MARK.finditer(nq):
        pieces.append(nq[pos : m.start()].strip())
        if m.group("insert") is not None:
            kinds.append("insert")
            insertions.append(m.group("insert").strip())
        else:
            kinds.append("elide")
        pos = m.end()
    pieces.append(nq[pos:].strip())
    segments: list[str] = []
    gaps: list[str] = []
    pending: str | None = None
    for i, piece in enumerate(pieces):
        if i > 0:
            pending = "elide" if "elide" in (pending, kinds[i - 1]) else kinds[i - 1]
        if piece:
            if segments:
                gaps.append(pending or "elide")
            segments.append(piece)
            pending = None
    if not segments:
        return None
    return ElidedQuote(tuple(segments), tuple(gaps), tuple(insertions))


def _occurrences(text: str, seg: str, lo: int, hi: int) -> list[int]:
    from claimledger.checks.boundaries import find_whole

    out: list[int] = []
    pos = find_whole(text, seg, lo)
    while 0 <= pos <= hi and len(out) < MAX_OCCURRENCES:
        out.append(pos)
        pos = find_whole(text, seg, pos + 1)
    return out


def find_elided(ix: IndexedSource, quote: ElidedQuote) -> Evidence | None:
    """Every segment in order, each gap bounded and within one passage; evidence with all spans."""
    from claimledger.checks.quote_scan import source_evidence
    from claimledger.checks.readings import reader_text

    text = ix.primary.text
    original = ix.source.text
    segs = quote.segments

    def extend(i: int, prev_end: int, acc: list[tuple[int, int]]) -> list[tuple[int, int]] | None:
        if i == len(segs):
            return acc
        gap = MAX_INSERTION_GAP if quote.gaps[i - 1] == "insert" else MAX_GAP
        for pos in _occurrences(text, segs[i], prev_end, prev_end + gap + 1):
            a, b = ix.primary.to_original(pos, pos + len(segs[i]))
            pa = acc[-1][1]
            if _BLANK_LINE.search(original, pa, a) or a < pa:
                continue
            found = extend(i + 1, pos + len(segs[i]), [*acc, (a, b)])
            if found is not None:
                return found
        return None

    for pos in _occurrences(text, segs[0], 0, len(text)):
        spans = extend(1, pos + len(segs[0]), [ix.primary.to_original(pos, pos + len(segs[0]))])
        if spans is not None:
            base = source_evidence(ix, spans[0][0], spans[-1][1])
            shown = " […] ".join(reader_text(original[a:b]) for a, b in spans)
            return Evidence(
                source=base.source, start=base.start, end=base.end, text=shown, page=base.page,
                end_page=base.end_page, line=base.line, column=base.column,
                spans=tuple(spans), reading="elided",
            )  # fmt: skip
    return None
