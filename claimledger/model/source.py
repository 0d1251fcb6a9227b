"""A loaded source document: extracted text, page map and hash of the raw bytes."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Source:
    """Extracted text of one source.

    ``text`` is what a reader sees (PDF text layer, HTML visible text, the
    Markdown prose); spans in findings index into it. ``page_starts[i]`` is the
    offset where page ``i + 1`` begins (PDFs only).
    """

    id: str
    origin: str
    media_type: str
    text: str
    sha256: str
    page_starts: tuple[int, ...] = field(default=())
    warnings: tuple[str, ...] = field(default=())
    hidden_text: str = ""

    def page_of(self, offset: int) -> int | None:
        """1-based page number that holds ``offset``, or None when the source has no pages."""
        if not self.page_starts:
            return None
        return bisect.bisect_right(self.page_starts, offset)
