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
import functools
import re
import unicodedata
from array import array
from dataclasses import dataclass
from types import ModuleType

from claimledger import _normalize_core as _core
from claimledger._compiled import compiled

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
_HYPHENS = frozenset("-\u2010")
# Everything that is not a plain run of text: whitespace other than one ASCII space,
# two spaces, and invisible characters. Runs between triggers map one to one. Two spaces are
# found with str.find, apart from the class: as an alternative of the pattern they made every
# space a candidate the regex engine had to try.
_TRIGGER = re.compile(
    "[\t\n\r\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000" + INVISIBLE + "]"
)
_WS_RUN = re.compile(r"\s+")
_SIMPLE_BREAK = re.compile(r"\n(?<=[!-,.-~]\n)(?=[!-~])")
# Whitespace next to these vanishes. Full-width digits and Latin letters are left out: they fold
# to ASCII, so "ｔｈｅ　ｃａｔ" must read as "the cat", exactly like its NFKC form.
_SPACE_DROP_RANGES = (
    *(r for r in _CJK_RANGES if r != (0xFF00, 0xFFEF)),
    (0xFF00, 0xFF0F),
    (0xFF1A, 0xFF20),
    (0xFF3B, 0xFF40),
    (0xFF5B, 0xFFEF),
)
_CJK_CLASS = "".join(f"{chr(lo)}-{chr(hi)}" for lo, hi in _SPACE_DROP_RANGES)
_CJK_SPACE = re.compile(f" (?<=[{_CJK_CLASS}] )| (?=[{_CJK_CLASS}])")
_BREAK_TAIL = re.compile(r"[ \t]*(?:\r\n|\r|\n)?[ \t]*")


def is_cjk(ch: str) -> bool:
    """True for Han, kana, CJK punctuation and full-width forms."""
    cp = ord(ch)
    if cp < 0x3000:
        return False
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


def _drops_space(ch: str) -> bool:
    """CJK for the whitespace rule: full-width digits and Latin letters space like ASCII."""
    cp = ord(ch)
    return cp >= 0x3000 and any(lo <= cp <= hi for lo, hi in _SPACE_DROP_RANGES)


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

    def spans_to_original(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """:meth:`to_original` of each ``(start, end)`` of ``spans``, in one call of the compiled seed
        search's module when it is built (claimledger/_cseeds.c; the same answers,
        tests/test_normalize_differential.py)."""
        if _SPANS_TO_ORIGINAL is None:
            return [self.to_original(a, b) for a, b in spans]
        out: list[tuple[int, int] | None] = _SPANS_TO_ORIGINAL(
            self.norm_start, self.orig_start, self.orig_end, self.linear, spans
        )
        if None in out:  # a span it does not map (empty, or before the first segment): mapped here
            return [self.to_original(a, b) if o is None else o for o, (a, b) in zip(out, spans, strict=True)]
        return out  # type: ignore[return-value]

    def _pos(self, i: int, n: int) -> int:
        if self.linear[i]:
            return int(self.orig_start[i] + (n - self.norm_start[i]))
        return int(self.orig_start[i])


# the compiled Normalized.spans_to_original (None: not built, or CLAIMLEDGER_PURE_PYTHON), looked up as
# claimledger.model.source looks up line_columns
_SPANS_TO_ORIGINAL = getattr(compiled("_cseeds"), "spans_to_original", None)


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
            self._remap_last(ostart + j if linear else oend)
            self.parts[-1] = self.parts[-1][:-1] + merged
            self.length += len(merged) - 1
            self.last = merged[-1]
            out = out[j:]
            if linear:
                ostart += j
            if not out:
                return
        if out[0] == " " and (self.last == " " or self.length == 0):
            out = out[1:]  # never two spaces in a row, never a leading space
            if not out:
                return
            if linear:
                ostart += 1
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

    def _remap_last(self, oend: int) -> None:
        """The last normalized character now also covers original text up to ``oend``."""
        last = self.length - 1
        if self.lin[-1]:
            base = self.os[-1] + (last - self.ns[-1])
            if last > self.ns[-1]:
                self.oe[-1] = base
                self.ns.append(last)
                self.os.append(base)
                self.oe.append(oend)
                self.lin.append(0)
            else:
                self.lin[-1] = 0
                self.oe[-1] = oend
        else:
            self.oe[-1] = max(self.oe[-1], oend)

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
    """Whitespace vanishes when the nearest visible character on either side is CJK.

    The rule reads those two characters only, never further: a quote must normalize exactly as
    the same words do inside any source, whatever surrounds them (an earlier rule that looked for
    Japanese within 8 characters made ``000 ％`` read ``000 %`` alone but ``000%`` after ``「``,
    so the quote missed; issue 11). Full-width ASCII punctuation (``（ ， ％``) is the one
    ambiguous class, used in Japanese and in full-width English alike:

    * a space inside a full-width bracket vanishes (``調査（\n２０２４年）``): no language
      puts a word space there;
    * otherwise the space stays when the other side is ASCII or full-width ASCII
      (``Ｍａｙ， 2019``, ``ＥＰＳ， $3.50``, ``ｅｌｅｃｔｉｏｎ，　ｔｈｅ`` read like their NFKC
      forms) and vanishes when it is CJK (``結果 ，調査``). The price of reading only two
      characters: a space a PDF puts between full-width digits and ``％`` (``３０ ％``) stays.
    """
    i = start - 1
    while i >= 0 and (text[i] in _INVISIBLE_SET or text[i].isspace()):
        i -= 1
    j = end
    while j < len(text) and (text[j] in _INVISIBLE_SET or text[j].isspace()):
        j += 1
    left = text[i] if i >= 0 else ""
    right = text[j] if j < len(text) else ""
    if (left and left in _FW_OPEN) or (right and right in _FW_CLOSE):
        return True
    for near, far in ((left, right), (right, left)):
        if near and _drops_space(near) and not (_is_fullwidth_ascii(near) and _is_latin_side(far)):
            return True
    return False


_FW_OPEN = frozenset("\uff08\uff3b\uff5b")  # （ ［ ｛
_FW_CLOSE = frozenset("\uff09\uff3d\uff5d")  # ） ］ ｝


def _is_fullwidth_ascii(ch: str) -> bool:
    return 0xFF01 <= ord(ch) <= 0xFF5E


def _is_latin_side(ch: str) -> bool:
    """ASCII or full-width ASCII: a space between it and ``，`` is a word space."""
    return bool(ch) and (_is_fullwidth_ascii(ch) or "!" <= ch <= "~")


class _FoldTable(dict[int, str]):
    """Per-character fold for ``str.translate``, computed on first sight of a character."""

    def __missing__(self, cp: int) -> str:
        out = _fold_cluster(chr(cp))
        self[cp] = out
        return out


_FOLD = _FoldTable()


_SPECIAL_RE: re.Pattern[str] | None = None
_CASEFOLD_FIX_RE: re.Pattern[str] | None = None


def _char_class(ranges: list[list[int]]) -> str:
    return "".join(re.escape(chr(lo)) + ("-" + re.escape(chr(hi)) if hi > lo else "") for lo, hi in ranges)


def _add_to_ranges(ranges: list[list[int]], cp: int) -> None:
    if ranges and ranges[-1][1] == cp - 1:
        ranges[-1][1] = cp
    else:
        ranges.append([cp, cp])


def _special_chars() -> re.Pattern[str]:
    """Characters that do not fold one to one (expansions, combining marks, astral planes).

    Built once, on the first non-ASCII text (about 0.2 s), from the running ``unicodedata``,
    together with :data:`_CASEFOLD_FIX_RE`: the other characters whose fold is not what
    ``str.casefold`` gives them (NFKC forms, dashes, quote marks, about a hundred ranges).
    """
    global _SPECIAL_RE, _CASEFOLD_FIX_RE
    if _SPECIAL_RE is None:
        ranges: list[list[int]] = []
        fixes: list[list[int]] = []
        for cp in range(0x80, 0x10000):
            if 0xD800 <= cp <= 0xDFFF:
                continue
            ch = chr(cp)
            # a character that folds to a combining mark (half-width ﾞ ﾟ -> U+3099/U+309A) composes
            if unicodedata.combining(ch) or len(_FOLD[cp]) != 1 or unicodedata.combining(_FOLD[cp]):
                _add_to_ranges(ranges, cp)
            elif ch.casefold() != _FOLD[cp]:
                _add_to_ranges(fixes, cp)
        _CASEFOLD_FIX_RE = re.compile(f"[{_char_class(fixes)}]+")
        _SPECIAL_RE = re.compile(f"[{_char_class(ranges)}\U00010000-\U0010ffff]")
    return _SPECIAL_RE


def _fold_plain(seg: str) -> str:
    """The fold of characters that fold one to one: ``str.casefold`` (several times faster than
    ``str.translate`` with the fold table on text that holds any non-ASCII character), with the
    fold table's answer for the characters where the two differ. Case folding is context-free
    (unlike ``str.lower`` and its final sigma), so folding a run equals folding each character."""
    fixes = _CASEFOLD_FIX_RE
    assert fixes is not None  # built by _special_chars() before any non-ASCII piece is folded
    m = fixes.search(seg)
    if m is None:
        return seg.casefold()
    out: list[str] = []
    last = 0
    while m is not None:
        i, j = m.span()
        out.append(seg[last:i].casefold())
        out.append(m.group().translate(_FOLD))
        last = j
        m = fixes.search(seg, j)
    out.append(seg[last:].casefold())
    return "".join(out)


def _emit_piece(b: _Builder, start: int, piece: str) -> None:
    if not piece:
        return
    last = 0
    for m in _special_chars().finditer(piece):
        i = m.start()
        if i > last:  # ordinary characters fold one to one
            b.add(_fold_plain(piece[last:i]), start + last, start + i, True)
        out = _FOLD[ord(piece[i])]
        b.add(out, start + i, start + i + 1, len(out) == 1)  # combining marks compose in add()
        last = i + 1
    if last < len(piece):
        b.add(_fold_plain(piece[last:]), start + last, start + len(piece), True)


def _emit_run(b: _Builder, text: str, start: int, run: str) -> None:
    """A run holds no whitespace but single ASCII spaces, and no invisible characters."""
    if not run:
        return
    if run.isascii():
        # inner spaces sit between ASCII characters; only edge spaces can touch CJK
        lo, hi = 0, len(run)
        if run[0] == " " and _space_dropped(text, start, start + 1):
            lo = 1
        if hi > lo and run[-1] == " " and _space_dropped(text, start + hi - 1, start + hi):
            hi -= 1
        b.add(run[lo:hi].lower(), start + lo, start + hi, True)
        return
    # inner spaces next to CJK (the regex finds candidates; the rule decides)
    drop = [
        i
        for i in (m.start() for m in _CJK_SPACE.finditer(run))
        if _space_dropped(text, start + i, start + i + 1)
    ]
    if run[0] == " " and _space_dropped(text, start, start + 1):
        drop.insert(0, 0)
    if run[-1] == " " and _space_dropped(text, start + len(run) - 1, start + len(run)):
        drop.append(len(run) - 1)
    last = 0
    for i in sorted(set(drop)):
        _emit_piece(b, start + last, run[last:i])
        last = i + 1
    _emit_piece(b, start + last, run[last:])


def _line_breaks(ws: str) -> int:
    return ws.count("\n") + ws.count("\r") - ws.count("\r\n")


def normalize(text: str, *, keep_break_hyphens: bool = False) -> Normalized:
    """Normalize ``text`` for literal matching and keep the map to the original.

    With ``keep_break_hyphens`` a hyphen at a line break is kept (``well-known``)
    instead of joined (``verification``). Runs the compiled core when it is built
    (claimledger/_cnormalize.c, identical output), else :func:`normalize_py`.
    """
    if _core.active(_CORE_DEFINITIONS):
        return normalize_c(text, keep_break_hyphens)
    return normalize_py(text, keep_break_hyphens=keep_break_hyphens)


# What the compiled core reads from this module (each code point's entry is computed from it the first time a text holds it).
_CORE_DEFINITIONS = _core.Definitions(_FOLD.__getitem__, INVISIBLE, _SPACE_DROP_RANGES, _FW_OPEN, _FW_CLOSE)


def compiled_core() -> bool:
    """Whether :func:`normalize` runs the compiled core (about ten times the pure-Python speed)."""
    return _core.active(_CORE_DEFINITIONS)


def normalize_c(text: str, keep_break_hyphens: bool = False, *, ext: ModuleType | None = None) -> Normalized:
    """The compiled core's result: identical to :func:`normalize_py` (tests/test_normalize_core.py)."""
    out, ns, os_, oe, lin = _core.run(text, keep_break_hyphens, _CORE_DEFINITIONS, ext)
    return Normalized(out, text, ns, os_, oe, lin)


def normalize_py(text: str, *, keep_break_hyphens: bool = False) -> Normalized:
    """The pure-Python normalizer: the fallback and the oracle the compiled core is tested against."""
    b = _Builder(text)
    # A line break between two ASCII characters (not a hyphen, not whitespace) reads as
    # one space and maps one to one: fold it in bulk so the loop below skips it.
    text = _SIMPLE_BREAK.sub(" ", text)
    pos = 0
    n = len(text)
    search = _TRIGGER.search
    find = text.find
    # the next trigger character and the next two spaces at or after pos (-1: none), each
    # searched again only when pos has passed it
    cls = dbl = -2
    while pos < n:
        if -1 < cls < pos or cls == -2:
            m = search(text, pos)
            cls = m.start() if m is not None else -1
        if -1 < dbl < pos or dbl == -2:
            dbl = find("  ", pos)
        if cls < 0 and dbl < 0:
            _emit_run(b, text, pos, text[pos:])
            break
        s = dbl if cls < 0 or (-1 < dbl < cls) else cls
        c = text[s]
        if c == "\ufffe":  # PDFium's hyphenation mark, maybe with the line break after it
            _emit_run(b, text, pos, text[pos:s])
            if keep_break_hyphens:
                b.add("-", s, s + 1, False)
            pos = _BREAK_TAIL.match(text, s + 1).end()  # type: ignore[union-attr]
            continue
        if c in _INVISIBLE_SET:
            e = s + 1
            while e < n and text[e] in _INVISIBLE_SET and text[e] != "\ufffe":
                e += 1
            _emit_run(b, text, pos, text[pos:s])
            if "\u00ad" in text[s:e]:  # a soft hyphen at a line break joins the word
                tail = _BREAK_TAIL.match(text, e).end()  # type: ignore[union-attr]
                if _line_breaks(text[e:tail]) == 1:
                    e = tail
            pos = e
            continue
        e = _WS_RUN.match(text, s).end()  # type: ignore[union-attr]
        run = text[pos:s]
        body = run.rstrip(" ")
        if (
            body
            and body[-1] in _HYPHENS
            and len(body) >= 2
            and body[-2].isalpha()
            and e < n
            and text[e].isalpha()
            and _line_breaks(text[s:e]) == 1
            and not text[s:e].strip(" \t\r\n")
        ):  # a hyphenated line break: join the word (or keep the hyphen in the other reading)
            h = pos + len(body) - 1
            _emit_run(b, text, pos, body[:-1])
            if keep_break_hyphens:
                b.add("-", h, h + 1, True)
            pos = e
            continue
        _emit_run(b, text, pos, run)
        before = text[s - 1] if s else " "
        after = text[e] if e < n else " "
        if ("!" <= before < "\x80" and "!" <= after < "\x80") or not _space_dropped(text, s, e):
            # one whitespace character maps one to one; a longer run maps as a whole
            b.add(" ", s, e, e - s == 1)
        pos = e
    del text, find  # the working copy (find is bound to it); only the original and the result stay
    return b.build()


def has_break_hyphens(text: str) -> bool:
    """True when ``text`` holds a line-break hyphen whose reading is ambiguous."""
    return "\ufffe" in text or bool(re.search(rf"[{_HY}][ \t]*(?:\r\n|\r|\n)", text))


@functools.lru_cache(maxsize=1 << 17)
def normalize_quote(quote: str) -> str:
    """Normalize a quote (no offset map needed). Surrounding quote marks are kept.

    Remembered (a pure function of the string): a run looks every quote up once to batch the
    scan and once more to write its finding. With the compiled core, only its text is built
    (the same text as :func:`normalize_c`, without the offset arrays nobody reads)."""
    if _core.active(_CORE_DEFINITIONS):
        return _core.run_text(quote, _CORE_DEFINITIONS).strip()
    return normalize(quote).text.strip()
