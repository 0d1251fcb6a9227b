"""Where a literal match may start and end: never inside a word or a number.

Kept apart from :mod:`claimledger.checks.quote_scan` so the second readings
(:mod:`claimledger.checks.readings`) and the elision check use it without importing the scan.
"""

from __future__ import annotations

from claimledger.normalize import is_cjk

__all__ = ["find_whole", "on_boundaries"]


def on_boundaries(text: str, start: int, end: int) -> bool:
    """A match must not cut a word or a number: ``37 percent`` is not in ``137 percent``,
    ``now`` is not in ``nowhere``, ``1`` is not in ``1.5``. CJK text has no word spaces,
    so only its digits are held to this."""
    # a boundary is cut by two word characters (letters or digits of a script with word spaces,
    # not CJK) or two digits: both sides alphanumeric first, the cheap test, so a boundary at a
    # space or punctuation costs no call of is_cjk (tests/test_boundaries.py: the same answer)
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
