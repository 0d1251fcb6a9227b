"""What a draft-format scanner produces: raw spans to replace, and the headings it saw.

Kept apart from :mod:`claimledger.extract.draft` so the scanners
(:mod:`~claimledger.extract.markdown`, :mod:`~claimledger.extract.latex`) and
the draft reader import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

PARA = "\u2029"  # a block boundary (heading, list item, table cell) in the prose view: no sentence crosses it


@dataclass(frozen=True)
class Heading:
    """A section heading: level (1 = top), title, and its raw offset."""

    level: int
    title: str
    raw_start: int


@dataclass
class Edits:
    """Replacements of raw spans, collected by a format scanner."""

    items: list[tuple[int, int, str]] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)

    def add(self, start: int, end: int, repl: str = "") -> None:
        if end > start or repl:
            self.items.append((start, end, repl))
