"""The near-miss edge search scores its grid in one rapidfuzz call (issue 19); it must pick the
same passage as walking the grid cell by cell, ties included (the first best cell, and the
given edges unless a cell beats them strictly)."""

from __future__ import annotations

import random

from rapidfuzz import fuzz

from claimledger.checks.quote_scan import _refine


def _walk(q: str, text: str, start: int, end: int) -> tuple[float, int, int]:
    k = max(1, min(8, len(q) // 4))
    best = (fuzz.ratio(q, text[start:end]), start, end)
    for ds in range(-k, k + 1):
        s = start + ds
        if s < 0:
            continue
        for de in range(-k, k + 1):
            e = end + de
            if e <= s or e > len(text):
                continue
            score = fuzz.ratio(q, text[s:e])
            if score > best[0]:
                best = (score, s, e)
    return best


def test_refine_matches_the_cell_by_cell_walk() -> None:
    rng = random.Random(11)
    for alphabet in ("ab ", "ab c日本", "the cat sat on a mat "):
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 90)))
            q = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 50)))
            start = rng.randrange(0, len(text))
            end = rng.randrange(start, len(text) + 1)
            assert _refine(q, text, start, end) == _walk(q, text, start, end), (q, text, start, end)


def test_refine_moves_the_edges_to_the_quote() -> None:
    text = "The council approved the new budget for the river project in May."
    q = "approved the new budget"
    start = text.index(q) - 3
    score, s, e = _refine(q, text, start, start + len(q))
    assert (score, text[s:e]) == (100.0, q)
