"""A loaded source document: extracted text, page map and hash of the raw bytes."""

from __future__ import annotations

import bisect
import re
from array import array
from dataclasses import dataclass, field

from claimledger._compiled import compiled

_MARKS_BEFORE_INDEX = 64  # lookups counted from checkpoints before every newline is listed
_NEWLINE = re.compile("\n")
_LOCATED_MAX = 1 << 16  # offsets whose lines Source.locations keeps for its later calls
# the newlines of many spans counted in one call, without the GIL (claimledger/_cseeds.c); else str.count
_COUNT_NEWLINES = getattr(compiled("_cseeds"), "count_newlines", None)
# the lines and columns of many offsets in one call (claimledger/_cseeds.c); else counted here
_LINE_COLUMNS = getattr(compiled("_cseeds"), "line_columns", None)


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
    # readings (furigana), editor notes, comments, footnotes: kept apart, (offset, kind, text)
    annotations: tuple[tuple[int, str, str], ...] = field(default=())
    # (offset, line, column) back into the file when ``text`` is not the file itself (HTML, Markdown)
    anchors: tuple[tuple[int, int, int], ...] = field(default=())

    def page_of(self, offset: int) -> int | None:
        """1-based page number that holds ``offset``, or None when the source has no pages."""
        if not self.page_starts:
            return None
        return bisect.bisect_right(self.page_starts, offset)

    def location(self, offset: int) -> tuple[int, int] | None:
        """1-based line and column in the original file of the text at ``offset`` (not for PDFs)."""
        if self.page_starts or not 0 <= offset <= len(self.text):
            return None
        if self.anchors:
            from claimledger.textmap import location

            return location(len(self.text), self.anchors, offset)
        if self.media_type not in ("text/plain", "text/markdown"):
            return None
        line_start = self.text.rfind("\n", 0, offset) + 1
        return self._line_of(offset), offset - line_start + 1

    def locations(self, offsets: list[int]) -> list[tuple[int, int] | None]:
        """:meth:`location` of many offsets at once: in a plain-text or Markdown file without anchors,
        the newlines are counted once over the text, from one sorted offset to the next (the
        evidence of every quote found in a source costs one pass, not a search per quote).

        Compiled (``_cseeds.line_columns``), each call reads the text once, up to its largest offset
        (a run calls it at most three times a source). Without it, the offsets counted are kept
        (``_located``, a pair of sorted tuples replaced whole, like ``_line_marks``): a later call
        counts from the nearest of them, not from the start (a run asks for a source's matches,
        then for its nearest passages). Both answer what :meth:`location` answers
        (tests/test_normalize_differential.py)."""
        if self.page_starts or self.anchors or self.media_type not in ("text/plain", "text/markdown"):
            return [self.location(o) for o in offsets]
        if _LINE_COLUMNS is not None:
            # compiled: the offsets sorted and the text read once up to the last, with no Python per
            # offset (a run's evidence cost 4.6 us an offset here, 17,000 on 100 MB x 10k)
            return _LINE_COLUMNS(self.text, offsets)  # type: ignore[no-any-return]
        text, n = self.text, len(self.text)
        known: tuple[tuple[int, ...], tuple[int, ...]] = self.__dict__.get("_located", ((0,), (1,)))
        marks, marked = known
        lines: dict[int, int] = {}
        # each offset's line is counted from the offset before it, or from a nearer one counted
        # by an earlier call: the spans first, their newlines counted in one pass
        wanted = sorted({o for o in offsets if 0 <= o <= n})
        bases: list[int | None] = []  # the line at the span's start when it restarts from a mark
        bounds: list[int] = []
        at = 0
        for o in wanted:
            i = bisect.bisect_right(marks, o) - 1  # the nearest offset counted before, at or before o
            if marks[i] > at:  # nearer than the offset before: count from there, from its line
                at = marks[i]
                bases.append(marked[i])
            else:
                bases.append(None)
            bounds += (at, o)
            at = o
        counts = _COUNT_NEWLINES(text, bounds) if _COUNT_NEWLINES is not None else [
            text.count("\n", bounds[k], bounds[k + 1]) for k in range(0, len(bounds), 2)
        ]  # fmt: skip
        line = 1
        for o, base, counted in zip(wanted, bases, counts, strict=True):
            line = (base if base is not None else line) + counted
            lines[o] = line
        if lines:
            kept = {**dict(zip(marks, marked, strict=True)), **lines}
            if len(kept) > _LOCATED_MAX:  # bounded: a source kept across many runs forgets older ones
                kept = {0: 1, **lines} if len(lines) < _LOCATED_MAX else {0: 1}
            merged = sorted(kept.items())
            object.__setattr__(self, "_located", (tuple(o for o, _ in merged), tuple(v for _, v in merged)))
        return [
            (lines[o], o - text.rfind("\n", 0, o)) if 0 <= o <= n else None  # rfind + 1 is the line's start
            for o in offsets
        ]

    def _line_of(self, offset: int) -> int:
        """1-based line of ``offset``. The first lookups count newlines from the nearest offset
        already counted, not from the start (evidence in a long text file costs O(distance), not
        O(offset)); from the ``_MARKS_BEFORE_INDEX``-th on, every newline's offset is listed once
        and a lookup is a bisection (a run with thousands of quotes in one source copied the
        growing tuples of counted offsets at every lookup).

        The offsets counted so far live in the instance's ``__dict__`` as a pair of sorted tuples,
        replaced whole (never changed in place), and the list of newlines is set once and never
        changed, so threads sharing a source see a consistent state."""
        newlines: array[int] | None = self.__dict__.get("_newlines")
        if newlines is not None:
            return bisect.bisect_left(newlines, offset) + 1
        marks: tuple[tuple[int, ...], tuple[int, ...]] = self.__dict__.get("_line_marks", ((0,), (1,)))
        offsets, lines = marks
        i = bisect.bisect_right(offsets, offset) - 1
        line = lines[i] + self.text.count("\n", offsets[i], offset)
        if len(offsets) >= _MARKS_BEFORE_INDEX:
            object.__setattr__(self, "_newlines", array("q", [m.start() for m in _NEWLINE.finditer(self.text)]))
        elif offsets[i] != offset:
            marks = ((*offsets[: i + 1], offset, *offsets[i + 1 :]), (*lines[: i + 1], line, *lines[i + 1 :]))
            object.__setattr__(self, "_line_marks", marks)  # frozen dataclass: a cache, not a field
        return line
