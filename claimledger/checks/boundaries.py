"""Where a literal match may start and end: never inside a word or a number.

Kept apart from :mod:`claimledger.checks.quote_scan` so the second readings
(:mod:`claimledger.checks.readings`) and the elision check use it without importing the scan.
"""

from __future__ import annotations

from claimledger.normalize import is_cjk

__all__ = ["find_whole", "on_boundaries"]


def _word_char(ch: str) -> bool:
    """A letter or digit of a script that separates words with spaces (not CJK)."""
    return ch.isalnum() and not is_cjk(ch)


def on_boundaries(text: str, start: int, end: int) -> bool:
    """A match must not cut a word or a number: ``37 percent`` is not in ``137 percent``,
    ``now`` is not in ``nowhere``, ``1`` is not in ``1.5``. CJK text has no word spaces,
    so only its digits are held to this."""
    # the tests of :func:`_word_char` on both sides, cheapest first (``isalnum`` before is_cjk):
    # the same answer, without a Python call for a boundary that is a space or punctuation
    if start > 0:
        a, b = text[start - 1], text[start]
        if a.isalnum() and b.isalnum():
            if not is_cjk(a) and not is_cjk(b):
                return False
            if a.isdigit() and b.isdigit():
                return False
        if b.isdigit() and a in ".," and start > 1 and text[start - 2].isdigit():
            return False
    if end < len(text):
        a, b = text[end - 1], text[end]
        if a.isalnum() and b.isalnum():
            if not is_cjk(a) and not is_cjk(b):
                return False
            if a.isdigit() and b.isdigit():
                return False
        if a.isdigit() and b in ".," and end + 1 < len(text) and text[end + 1].isdigit():
            return False
    return True


def find_whole(text: str, nq: str, start: int = 0, last: int | None = None) -> int:
    """First occurrence of ``nq`` at or after ``start`` (and at or before ``last``) that cuts no word
    or number, or -1. The boundaries are judged on the whole text either way."""
    end = len(text) if last is None else min(len(text), max(last, start - 1) + len(nq))
    pos = text.find(nq, start, end)
    while pos >= 0 and not on_boundaries(text, pos, pos + len(nq)):
        pos = text.find(nq, pos + 1, end)
    return pos
