"""Reading a draft: the raw text, a *prose view* of it, and positions.

The prose view is what a reader reads: code blocks, front matter, math,
comments, URLs and markup are taken out, structural numbers (list markers,
heading numbers, footnote labels) are dropped, and block boundaries (headings,
list items, table cells) become ``PARA`` (U+2029) so no sentence runs across
them. Every character of the prose view maps back to an offset of the raw
text (``offsets``), so every span found in prose has a line and a column in
the file, and a mark can be rewritten in place without touching anything else.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass
from pathlib import Path

from claimledger._exceptions import InputError
from claimledger.extract import latex, markdown
from claimledger.extract.edits import PARA, Edits, Heading
from claimledger.extract.formats import FORMATS

__all__ = [
    "FORMATS",
    "MAX_DRAFT_BYTES",
    "PARA",
    "Draft",
    "Edits",
    "Heading",
    "build_view",
    "decode_draft",
    "detect_format",
    "parse_draft",
    "read_draft",
]

MAX_DRAFT_BYTES = 50 * 1024 * 1024
_EXT_FORMAT = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".qmd": "markdown",
    ".rmd": "markdown",
    ".tex": "latex",
    ".latex": "latex",
    ".ltx": "latex",
}


@dataclass(frozen=True)
class Draft:
    """A draft file: raw text, its prose view and the map between them."""

    path: str | None
    text: str
    fmt: str
    prose: str
    offsets: array[int]
    headings: tuple[Heading, ...]
    line_starts: tuple[int, ...]

    def raw_pos(self, prose_index: int) -> int:
        """Raw offset of the prose character at ``prose_index`` (or of the end)."""
        if prose_index >= len(self.offsets):
            return len(self.text)
        return int(self.offsets[prose_index])

    def raw_end(self, prose_end: int) -> int:
        """Raw offset just after the prose character at ``prose_end - 1``."""
        if prose_end <= 0:
            return 0
        return int(self.offsets[prose_end - 1]) + 1

    def prose_index(self, raw_offset: int) -> int:
        """First prose character at or after ``raw_offset``."""
        return bisect.bisect_left(self.offsets, raw_offset)

    def line_col(self, raw_offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of a raw offset."""
        i = bisect.bisect_right(self.line_starts, raw_offset) - 1
        return i + 1, raw_offset - self.line_starts[i] + 1

    def where(self, prose_index: int) -> tuple[int, int]:
        return self.line_col(self.raw_pos(prose_index))

    def section(self, name: str) -> tuple[int, int] | None:
        """Prose span of the section whose heading is ``name`` (case and spacing folded)."""
        want = " ".join(name.split()).casefold()
        for i, h in enumerate(self.headings):
            if " ".join(h.title.split()).casefold() != want:
                continue
            end_raw = len(self.text)
            for later in self.headings[i + 1 :]:
                if later.level <= h.level:
                    end_raw = later.raw_start
                    break
            return self.prose_index(h.raw_start), self.prose_index(end_raw)
        return None


def detect_format(path: str | Path | None, fmt: str | None = None) -> str:
    if fmt:
        if fmt not in FORMATS:
            raise InputError(f"unknown draft format {fmt!r} (use one of: {', '.join(FORMATS)})")
        return fmt
    if path is None:
        return "text"
    return _EXT_FORMAT.get(Path(path).suffix.lower(), "text")


def build_view(text: str, edits: Edits) -> tuple[str, array[int]]:
    """Apply non-overlapping edits (earliest, then longest, wins) and keep the offset map."""
    parts: list[str] = []
    offsets: array[int] = array("q")
    pos = 0
    for start, end, repl in sorted(edits.items, key=lambda e: (e[0], -e[1])):
        if start < pos:
            continue
        parts.append(text[pos:start])
        offsets.extend(range(pos, start))
        if repl:
            parts.append(repl)
            offsets.extend([start] * len(repl))
        pos = end
    parts.append(text[pos:])
    offsets.extend(range(pos, len(text)))
    return "".join(parts), offsets


def _line_starts(text: str) -> tuple[int, ...]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return tuple(starts)


def parse_draft(text: str, fmt: str = "markdown", path: str | None = None) -> Draft:
    """Build the prose view of ``text`` in format ``fmt`` (markdown, latex or text)."""
    if fmt == "markdown":
        edits = markdown.scan(text)
    elif fmt == "latex":
        edits = latex.scan(text)
    elif fmt == "text":
        edits = markdown.scan_plain(text)
    else:
        raise InputError(f"unknown draft format {fmt!r}")
    prose, offsets = build_view(text, edits)
    return Draft(path, text, fmt, prose, offsets, tuple(edits.headings), _line_starts(text))


def read_draft(path: str | Path, fmt: str | None = None) -> Draft:
    """Read a draft file (UTF-8). Raises :class:`InputError` with a clear message."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if p.is_dir():
            raise InputError(f"{path}: is a directory, not a draft")
        if size > MAX_DRAFT_BYTES:
            raise InputError(f"{path}: draft is {size:,} bytes, over the {MAX_DRAFT_BYTES:,} limit")
        raw = p.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: draft not found") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the draft ({exc.strerror})") from None
    if p.suffix.lower() == ".docx" or raw[:2] == b"PK":
        return parse_draft(docx_draft_text(raw, str(path)), "markdown", str(path))
    text = decode_draft(raw, str(path))
    return parse_draft(text, detect_format(path, fmt), str(path))


def docx_draft_text(raw: bytes, name: str) -> str:
    """A Word draft read as Markdown (lines and columns then refer to that text view)."""
    from claimledger._exceptions import SourceError
    from claimledger.load.docx import docx_to_markdown

    try:
        return docx_to_markdown(raw)
    except SourceError as exc:
        raise InputError(f"{name}: {exc.message}") from None


def decode_draft(raw: bytes, name: str) -> str:
    """UTF-8 (a BOM is kept as text so that rewriting stays byte-for-byte)."""
    if b"\x00" in raw[:8192]:
        raise InputError(f"{name}: looks like a binary file, not a text draft")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"{name}:{line}: the draft is not UTF-8 text") from None
