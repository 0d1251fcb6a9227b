"""Text derived from a file, with the way back to lines and columns of the file.

A loader that rewrites text (Markdown markup removed, Aozora Bunko ruby and
editor notes set aside) keeps, for every run it keeps, where the run came from.
:func:`anchors` turns that into ``(offset, line, column)`` anchors: between two
anchors the line stays and the column advances one for one, so
:meth:`claimledger.model.source.Source.location` is one binary search.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable


class Segments:
    """Kept runs: output ``[out, out + n)`` is input ``[src, src + n)``; anything else was inserted."""

    def __init__(self) -> None:
        self.out: list[int] = []
        self.src: list[int] = []
        self.length: list[int] = []

    def keep(self, out: int, src: int, n: int) -> None:
        if n <= 0:
            return
        if self.out and self.out[-1] + self.length[-1] == out and self.src[-1] + self.length[-1] == src:
            self.length[-1] += n
            return
        self.out.append(out)
        self.src.append(src)
        self.length.append(n)

    def then(self, later: Segments) -> Segments:
        """The composition: ``later`` maps its output onto this one's output."""
        out = Segments()
        for o, s, n in zip(later.out, later.src, later.length, strict=True):
            # s..s+n in this mapping's output: split it over this mapping's runs
            i = max(bisect.bisect_right(self.out, s) - 1, 0)
            while n > 0 and i < len(self.out):
                a, b = self.out[i], self.out[i] + self.length[i]
                if s >= b:
                    i += 1
                    continue
                if s < a:  # inserted text of the earlier pass
                    skip = min(n, a - s)
                    o, s, n = o + skip, s + skip, n - skip
                    continue
                take = min(n, b - s)
                out.keep(o, self.src[i] + (s - a), take)
                o, s, n = o + take, s + take, n - take
                i += 1
        return out


def sub_mapped(
    pattern: re.Pattern[str], repl: Callable[[re.Match[str]], tuple[int, ...]], text: str
) -> tuple[str, Segments]:
    """``pattern.sub`` where each match is replaced by some of its groups (``repl`` names them)."""
    parts: list[str] = []
    seg = Segments()
    n = 0
    pos = 0
    for m in pattern.finditer(text):
        seg.keep(n, pos, m.start() - pos)
        parts.append(text[pos : m.start()])
        n += m.start() - pos
        for g in repl(m):
            piece = m.group(g) or ""
            seg.keep(n, m.start(g), len(piece))
            parts.append(piece)
            n += len(piece)
        pos = m.end()
    seg.keep(n, pos, len(text) - pos)
    parts.append(text[pos:])
    return "".join(parts), seg


def identity(n: int) -> Segments:
    seg = Segments()
    seg.keep(0, 0, n)
    return seg


def anchors(original: str, text: str, seg: Segments) -> tuple[tuple[int, int, int], ...]:
    """``(offset in text, line, column)`` at every kept run and every line start (1-based)."""
    line_starts = [0] + [m.end() for m in re.finditer("\n", original)]
    out: list[tuple[int, int, int]] = []
    for o, s, n in zip(seg.out, seg.src, seg.length, strict=True):
        pos = s
        while pos < s + n:
            line = bisect.bisect_right(line_starts, pos)
            out.append((o + (pos - s), line, pos - line_starts[line - 1] + 1))
            nl = original.find("\n", pos, s + n)
            if nl < 0:
                break
            pos = nl + 1
    return tuple(out)


def location(text_len: int, anchor_list: tuple[tuple[int, int, int], ...], offset: int) -> tuple[int, int] | None:
    """Line and column of ``offset`` from anchors (None before the first)."""
    if not anchor_list or offset < 0 or offset > text_len:
        return None
    i = bisect.bisect_right(anchor_list, (offset, 1 << 62, 1 << 62)) - 1
    if i < 0:
        return None
    o, line, col = anchor_list[i]
    return line, col + (offset - o)
