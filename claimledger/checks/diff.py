"""Word-level diff between a quote and the nearest source passage."""

from __future__ import annotations

import difflib
import re
import struct

from claimledger.checks import seed_hits
from claimledger.normalize import _CJK_RANGES, is_cjk

# One token: a run of characters that are neither whitespace (str.isspace) nor CJK (is_cjk), or
# one character that is. The regex's \s is str.isspace on str patterns (both Py_UNICODE_ISSPACE);
# tests/test_diff_tokens.py checks the class against both predicates on every code point.
_CJK_CLASS = "".join(f"{chr(max(lo, 0x3000))}-{chr(hi)}" for lo, hi in _CJK_RANGES if hi >= 0x3000)
_TOKEN = re.compile(f"[^\\s{_CJK_CLASS}]+|[\\s{_CJK_CLASS}]")
# the same CJK ranges for the compiled word diff: inclusive (first, last) code point pairs, uint32
_CJK_RANGES_FROM_3000 = [(max(lo, 0x3000), hi) for lo, hi in _CJK_RANGES if hi >= 0x3000]
_CJK_TABLE = struct.pack(
    f"={2 * len(_CJK_RANGES_FROM_3000)}I", *(x for r in _CJK_RANGES_FROM_3000 for x in r)
)


def tokens(text: str) -> list[str]:
    """Words for Latin text, single characters for CJK; whitespace kept as tokens."""
    return _TOKEN.findall(text)


def tokens_py(text: str) -> list[str]:
    """:func:`tokens` one character at a time (the definition the regex is tested against)."""
    out: list[str] = []
    word = ""
    for ch in text:
        if ch.isspace() or is_cjk(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        else:
            word += ch
    if word:
        out.append(word)
    return out


def word_diff(quote: str, passage: str) -> str:
    """Inline diff: ``[-what the quote says-]{+what the source says+}``.

    In one call to the compiled ``_cseeds.word_diff`` when built (the same tokens, blocks and reading
    as :func:`word_diff_py`, tests/test_diff_matcher.py), else :func:`word_diff_py`.
    """
    compiled = getattr(seed_hits.compiled(), "word_diff", None)  # (None: an extension built before it)
    if compiled is not None:
        diff: str = compiled(quote, passage, _CJK_TABLE)
        return diff
    return word_diff_py(quote, passage)


def word_diff_py(quote: str, passage: str) -> str:
    """:func:`word_diff` in Python: the matching blocks read as difflib's ``get_opcodes`` reads them:
    before each block, the tokens of the quote it skips are deleted and those of the passage it skips
    inserted (both: a replacement, shown deleted then inserted); the block is equal.
    """
    a, b = tokens(quote), tokens(passage)
    out: list[str] = []
    i = j = 0
    for ai, bj, size in TokenMatcher(a, b).get_matching_blocks():
        if ai > i:
            out.append("[-" + "".join(a[i:ai]) + "-]")
        if bj > j:
            out.append("{+" + "".join(b[j:bj]) + "+}")
        if size:
            out.append("".join(a[ai : ai + size]))
        i, j = ai + size, bj + size
    return "".join(out)


def word_diff_opcodes(quote: str, passage: str) -> str:
    """:func:`word_diff` from difflib's ``get_opcodes`` (the definition it is tested against)."""
    a, b = tokens(quote), tokens(passage)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append("".join(a[i1:i2]))
            continue
        if i2 > i1:
            out.append("[-" + "".join(a[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + "".join(b[j1:j2]) + "+}")
    return "".join(out)


class TokenMatcher(difflib.SequenceMatcher[str]):
    """``difflib.SequenceMatcher(None, a, b, autojunk=False)`` with the same answers, faster.

    difflib finds the longest matching block of two ranges with a Python loop over every pair of
    equal tokens (each space token of the quote against every space of the passage), the cost of
    a word diff. Here each distinct token is one character, so a block of ``k`` tokens is a
    substring, and the block difflib returns (the longest; of those the one that starts first in
    ``a``; of those the one that starts first in ``b``) is found by string search: the largest
    ``k`` for which some ``k``-token slice of ``a``'s range occurs in ``b``'s range (a common
    block of ``k`` tokens holds one of every shorter length, so ``k`` is found by bisection), then
    the first such slice of ``a`` and its first occurrence in ``b``. Without junk (no ``isjunk``,
    no ``autojunk``) that block is what difflib's ``find_longest_match`` returns, so
    ``get_matching_blocks`` and ``get_opcodes`` (difflib's own code, unchanged) give the same
    answer; tests/test_diff_matcher.py compares both on generated and real texts.
    """

    def __init__(self, a: list[str], b: list[str]) -> None:
        # what SequenceMatcher(None, a, b, autojunk=False) sets, but not its index of b (b2j: each
        # token's positions, and the junk and popular tokens, none here), which only difflib's own
        # find_longest_match reads; get_matching_blocks and get_opcodes read a, b and their caches
        self.isjunk, self.autojunk = None, False
        self.a, self.b = a, b
        self.matching_blocks: list[difflib.Match] | None = None
        self.opcodes = self.fullbcount = None
        self.b2j: dict[str, list[int]] = {}
        self.bjunk: set[str] = set()
        self.bpopular: set[str] = set()
        self._ca: str | None = None
        self._cb = ""

    def get_matching_blocks(self) -> list[difflib.Match]:
        """difflib's blocks: in one call to the compiled ``_cseeds.matching_blocks`` (difflib's own
        algorithm over token numbers, the longest block of two ranges found as difflib's loop finds it),
        else difflib's ``get_matching_blocks`` with :meth:`find_longest_match`."""
        compiled = getattr(
            seed_hits.compiled(), "matching_blocks", None
        )  # (None: an extension built before it)
        if self.matching_blocks is None and compiled is not None:
            self.matching_blocks = [difflib.Match._make(m) for m in compiled(self.a, self.b)]
        return super().get_matching_blocks()

    def find_longest_match(
        self, alo: int = 0, ahi: int | None = None, blo: int = 0, bhi: int | None = None
    ) -> difflib.Match:
        if self._ca is None:
            # one character per distinct token, numbered in order of first appearance (chr(n) is defined
            # for every n < 0x110000; a text with more distinct tokens than that cannot reach a word
            # diff, the passage is a few hundred characters)
            ids = {t: chr(i) for i, t in enumerate(dict.fromkeys(self.a + self.b))}
            self._ca = "".join(map(ids.__getitem__, self.a))
            self._cb = "".join(map(ids.__getitem__, self.b))
        ahi = len(self._ca) if ahi is None else ahi
        bhi = len(self._cb) if bhi is None else bhi
        ca, cb = self._ca, self._cb[blo:bhi]

        def first(k: int) -> int:  # the first i whose k tokens occur in b's range, or -1
            for i in range(alo, ahi - k + 1):
                if ca[i : i + k] in cb:
                    return i
            return -1

        lo, hi = 0, min(ahi - alo, bhi - blo)  # a block of lo tokens exists; none longer than hi
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if first(mid) >= 0:
                lo = mid
            else:
                hi = mid - 1
        if lo == 0:
            return difflib.Match(alo, blo, 0)
        i = first(lo)
        return difflib.Match(i, blo + cb.index(ca[i : i + lo]), lo)
