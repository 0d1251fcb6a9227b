"""Canonical normalization for literal matching, with an offset map back to the original.

Policy: fold typography, never content.

* NFKC (ligatures, full-width forms, compatibility spaces) and case folding.
  Superscripts, subscripts, vulgar fractions and circled numbers are *not*
  folded: ``10²`` must not become ``102``.
* Every whitespace run becomes one space; it vanishes when a CJK character
  stands on either side (Japanese has no word spaces, PDFs break lines
  anywhere). Whitespace between Latin words is never deleted.
* Quote marks are unified (``“ ” „ « »`` -> ``"``, ``‘ ’ ′`` -> ``'``) and all
  hyphens, dashes and minus signs become ``-``; none is ever dropped.
* Invisible characters (zero-width space/joiners, BOM, bidi controls, soft
  hyphen, U+FFFE) are removed: a reader does not see them.
* A line-break hyphen between two letters (``verifi-\\ncation``, or the U+FFFE
  mark that PDF text layers emit there) is joined. Because ``well-\\nknown``
  is ambiguous, :func:`normalize` can produce a second variant that keeps the
  hyphen; the quote check tries both and both are faithful readings.
* Homoglyphs (Cyrillic ``а`` for Latin ``a``) are never folded.

The offset map is kept at segment granularity (one entry per run of text, not
per character), so mapping back costs a binary search.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from array import array
from dataclasses import dataclass

INVISIBLE = (
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
    "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff\ufffe"
)
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\ufe58\ufe63\uff0d"
_DQUOTES = "\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb\uff02"
_SQUOTES = "\u2018\u2019\u201a\u201b\u2032\uff07"
_TRANSLATE = {ord(c): "-" for c in _DASHES}
_TRANSLATE.update({ord(c): '"' for c in _DQUOTES})
_TRANSLATE.update({ord(c): "'" for c in _SQUOTES})

_KEEP_TAGS = ("<super>", "<sub>", "<fraction>", "<circle>")
_CJK_RANGES = (
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF00, 0xFFEF),  # full-width and half-width forms
    (0x20000, 0x2FFFF),
)

_HY = "\\-\u2010"
_SPECIAL = INVISIBLE
_TOKEN = re.compile(
    # letter, hyphen, line break, letter: a hyphenated line break
    rf"(?P<hy>(?<=[^\W\d_])[{_HY}][ \t]*(?:\r\n|\r|\n)[ \t]*(?=[^\W\d_]))"
    # the PDF text layer's hyphenation mark, with any line break after it
    r"|(?P<fffe>\ufffe[ \t]*(?:\r\n|\r|\n)?[ \t]*)"
    rf"|(?P<inv>[{_SPECIAL}]+)"
    r"|(?P<ws>\s+)"
    # a run of ordinary text; single spaces may sit inside it
    rf"|(?P<run>(?:[^\s{_SPECIAL}{_HY}]|[{_HY}](?![ \t]*(?:\r\n|\r|\n)))"
    rf"(?:[^\s{_SPECIAL}{_HY}]|[{_HY}](?![ \t]*(?:\r\n|\r|\n))| (?=[^\s{_SPECIAL}]))*)"
    r"|(?P<other>.)",
    re.DOTALL,
)


def is_cjk(ch: str) -> bool:
    """True for Han, kana, CJK punctuation and full-width forms."""
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _fold_cluster(cluster: str) -> str:
    first = cluster[0]
    if unicodedata.decomposition(first).startswith(_KEEP_TAGS):
        folded = first.casefold() + unicodedata.normalize("NFKC", cluster[1:]).casefold()
    else:
        folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", cluster).casefold())
    return folded.translate(_TRANSLATE)


def fold(text: str) -> str:
    """Typography folding without the offset map (used for short strings)."""
    return normalize(text).text


@dataclass(frozen=True)
class Normalized:
    """Normalized text plus a segment map back to the original string.

    Segment ``i`` covers normalized ``[norm_start[i], norm_start[i+1])``. A
    linear segment maps character for character onto the original starting at
    ``orig_start[i]``; a fixed segment maps as a whole to
    ``[orig_start[i], orig_end[i])``.
    """

    text: str
    original: str
    norm_start: array[int]
    orig_start: array[int]
    orig_end: array[int]
    linear: bytearray

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """Map a normalized span ``[start, end)`` to a span of the original text."""
        if end <= start:
            i = max(bisect.bisect_right(self.norm_start, start) - 1, 0)
            pos = self._pos(i, start) if self.norm_start else 0
            return pos, pos
        i = bisect.bisect_right(self.norm_start, start) - 1
        j = bisect.bisect_right(self.norm_start, end - 1) - 1
        ostart = self._pos(i, start)
        oend = self.orig_start[j] + (end - self.norm_start[j]) if self.linear[j] else self.orig_end[j]
        return ostart, oend

    def _pos(self, i: int, n: int) -> int:
        if self.linear[i]:
            return int(self.orig_start[i] + (n - self.norm_start[i]))
        return int(self.orig_start[i])


class _Builder:
    def __init__(self, original: str) -> None:
        self.original = original
        self.parts: list[str] = []
        self.length = 0
        self.last = ""
        self.ns: array[int] = array("q")
        self.os: array[int] = array("q")
        self.oe: array[int] = array("q")
        self.lin = bytearray()

    def add(self, out: str, ostart: int, oend: int, linear: bool) -> None:
        if not out:
            return
        if self.parts and unicodedata.combining(out[0]) and self.last not in ("", " "):
            # a combining mark whose base was split off by a removed invisible character:
            # compose it with the base so the result is what a reader sees
            j = 1
            while j < len(out) and unicodedata.combining(out[j]):
                j += 1
            merged = unicodedata.normalize("NFKC", self.last + out[:j])
            if len(merged) == 1:
                self.parts[-1] = self.parts[-1][:-1] + merged
                self.last = merged
                out = out[j:]
                linear = False
                if not out:
                    return
        if out == " " and (self.last == " " or self.length == 0):
            return
        if (
            linear
            and self.lin
            and self.lin[-1]
            and self.oe[-1] == ostart
            and self.ns[-1] + (self.oe[-1] - self.os[-1]) == self.length
        ):
            self.oe[-1] = oend
        else:
            self.ns.append(self.length)
            self.os.append(ostart)
            self.oe.append(oend)
            self.lin.append(1 if linear else 0)
        self.parts.append(out)
        self.length += len(out)
        self.last = out[-1]

    def build(self) -> Normalized:
        if self.last == " ":  # drop one trailing space
            self.parts[-1] = self.parts[-1][:-1]
            self.length -= 1
            if self.ns and self.ns[-1] >= self.length:
                self.ns.pop()
                self.os.pop()
                self.oe.pop()
                self.lin.pop()
        return Normalized("".join(self.parts), self.original, self.ns, self.os, self.oe, self.lin)


_INVISIBLE_SET = frozenset(INVISIBLE)


def _space_dropped(text: str, start: int, end: int) -> bool:
    """A whitespace run vanishes when the visible character on either side is CJK."""
    i = start - 1
    while i >= 0 and text[i] in _INVISIBLE_SET:
        i -= 1
    j = end
    while j < len(text) and text[j] in _INVISIBLE_SET:
        j += 1
    before = text[i] if i >= 0 else ""
    after = text[j] if j < len(text) else ""
    return bool((before and is_cjk(before)) or (after and is_cjk(after)))


def _emit_run(b: _Builder, text: str, start: int, run: str) -> None:
    if run.isascii():
        b.add(run.lower(), start, start + len(run), True)
        return
    if unicodedata.is_normalized("NFKC", run) and " " not in run:
        folded = run.casefold()
        if len(folded) == len(run) and unicodedata.is_normalized("NFKC", folded):
            b.add(folded.translate(_TRANSLATE), start, start + len(run), True)
            return
    # slow path: cluster by cluster (a base character and its combining marks)
    i = 0
    n = len(run)
    while i < n:
        j = i + 1
        while j < n and unicodedata.combining(run[j]):
            j += 1
        cluster = run[i:j]
        pos = start + i
        if cluster == " ":
            if not _space_dropped(text, pos, pos + 1):
                b.add(" ", pos, pos + 1, True)
        else:
            out = _fold_cluster(cluster)
            linear = len(out) == len(cluster) and len(cluster) == 1
            b.add(out, pos, pos + len(cluster), linear)
        i = j


def normalize(text: str, *, keep_break_hyphens: bool = False) -> Normalized:
    """Normalize ``text`` for literal matching and keep the map to the original.

    With ``keep_break_hyphens`` a hyphen at a line break is kept (``well-known``)
    instead of joined (``verification``).
    """
    b = _Builder(text)
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        start, end = m.span()
        if kind == "run":
            _emit_run(b, text, start, m.group())
        elif kind == "ws":
            if not _space_dropped(text, start, end):
                b.add(" ", start, end, False)
        elif kind == "hy":
            if keep_break_hyphens:
                b.add("-", start, start + 1, True)
        elif kind == "fffe":
            if keep_break_hyphens:
                b.add("-", start, start + 1, False)
        elif kind == "other":
            out = _fold_cluster(m.group())
            b.add(out, start, end, len(out) == 1)
        # "inv": invisible characters are dropped
    return b.build()


def has_break_hyphens(text: str) -> bool:
    """True when ``text`` holds a line-break hyphen whose reading is ambiguous."""
    return "\ufffe" in text or bool(re.search(rf"[{_HY}][ \t]*(?:\r\n|\r|\n)", text))


def normalize_quote(quote: str) -> str:
    """Normalize a quote (no offset map needed). Surrounding quote marks are kept."""
    return normalize(quote).text.strip()
