"""Evidence for a span of a source: the text as a reader sees it, with its page or line and column.

Kept apart from :mod:`claimledger.checks.quote_scan` so the checks that place a quote by other means
(the elided quotes of :mod:`claimledger.checks.elisions`) build the same evidence without importing
the scan (which calls them while a source is loaded).
"""

from __future__ import annotations

from claimledger.load.index import IndexedSource
from claimledger.model.finding import Evidence
from claimledger.normalize import Normalized

__all__ = ["evidence_at", "source_evidence"]


def evidence_at(ix: IndexedSource, norm: Normalized, start: int, end: int) -> Evidence:
    a, b = norm.to_original(start, end)
    return source_evidence(ix, a, b)


def source_evidence(ix: IndexedSource, a: int, b: int) -> Evidence:
    """Evidence for source text ``[a, b)``: the text as a reader sees it, page or line and column."""
    from claimledger.checks.readings import reader_text

    src = ix.source
    page = src.page_of(a)
    end_page = src.page_of(max(a, b - 1))
    loc = src.location(a)
    return Evidence(
        source=src.id, start=a, end=b, text=reader_text(src.text[a:b]), page=page,
        end_page=end_page if end_page != page else None,
        line=loc[0] if loc else None, column=loc[1] if loc else None,
    )  # fmt: skip
