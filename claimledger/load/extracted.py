"""What a source loader returns (kept apart so the loaders and :mod:`claimledger.load.sources`
import it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Extracted"]


@dataclass(frozen=True)
class Extracted:
    """What a loader read: the text a reader sees and what is kept apart from it."""

    text: str
    page_starts: tuple[int, ...] = ()
    hidden: str = ""
    annotations: tuple[tuple[int, str, str], ...] = ()
    anchors: tuple[tuple[int, int, int], ...] = ()
    # the text is ``data.decode("utf-8-sig")`` of the bytes read, unchanged (a plain-text source
    # without Aozora notation): the index cache stores no copy of it (load/index.py)
    utf8: bool = False
