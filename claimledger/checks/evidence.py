"""Evidence for a span of a source: the text as a reader sees it, with its page or line and column.

Kept apart from :mod:`claimledger.checks.quote_scan` so the checks that place a quote by other means
(the elided quotes of :mod:`claimledger.checks.elisions`) build the same evidence without importing
the scan (which calls them while a source is loaded).
"""

from __future__ import annotations

from claimledger.checks.readings import reader_text
from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence
from claimledger.normalize import Normalized

__all__ = ["evidence_at", "source_evidence", "source_evidences"]


def evidence_at(ix: IndexedSource, norm: Normalized, start: int, end: int) -> Evidence:
    a, b = norm.to_original(start, end)
    return source_evidence(ix, a, b)


def source_evidence(ix: IndexedSource, a: int, b: int) -> Evidence:
    """Evidence for source text ``[a, b)``: the text as a reader sees it, page or line and column."""
    return _evidence(ix, a, b, ix.source.location(a))


def source_evidences(ix: IndexedSource, spans: list[tuple[int, int]]) -> list[Evidence]:
    """:func:`source_evidence` of many spans of one source, their lines counted in one pass."""
    src = ix.source
    locs = src.locations([a for a, _ in spans])
    if src.page_starts:
        return [_evidence(ix, a, b, loc) for (a, b), loc in zip(spans, locs, strict=True)]
    # no pages: what _evidence builds, without a call per span (17,000 spans on 100 MB x 10k)
    sid, text = src.id, src.text
    return [
        Evidence(sid, a, b, reader_text(text[a:b]), None, None, loc[0], loc[1]) if loc is not None
        else Evidence(sid, a, b, reader_text(text[a:b]))
        for (a, b), loc in zip(spans, locs, strict=True)
    ]  # fmt: skip


def _evidence(ix: IndexedSource, a: int, b: int, loc: tuple[int, int] | None) -> Evidence:
    src = ix.source
    if src.page_starts:  # (page_of answers None for a source without pages)
        page, end_page = src.page_of(a), src.page_of(max(a, b - 1))
    else:
        page = end_page = None
    return Evidence(
        source=src.id, start=a, end=b, text=reader_text(src.text[a:b]), page=page,
        end_page=end_page if end_page != page else None,
        line=loc[0] if loc else None, column=loc[1] if loc else None,
    )  # fmt: skip
