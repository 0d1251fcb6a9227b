"""The near-miss edge search scores its grid in one rapidfuzz call (issue 19); it must pick the
same passage as walking the grid cell by cell, ties included (the first best cell, and the
given edges unless a cell beats them strictly). The compiled grid (``_cnear.best_cell``: one
bit-parallel LCS pass per start) must pick the same cell as the pure-Python rows."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from rapidfuzz import fuzz

from claimledger._compiled import compiled
from claimledger.checks.quote_scan import (
    _place_bound,
    _refine,
    _refine_bound,
    _refine_py,
    _rough,
    _row_bound,
    nearest_passages,
)


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


def _cases(seed: int) -> Iterator[tuple[str, str, int, int]]:
    """(quote, text, start, end): random passages of small alphabets, ties everywhere."""
    rng = random.Random(seed)
    for alphabet in ("ab ", "ab c日本", "the cat sat on a mat "):
        for _ in range(3000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 90)))
            q = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 50)))
            start = rng.randrange(0, len(text))
            yield q, text, start, rng.randrange(start, len(text) + 1)


def test_refine_matches_the_cell_by_cell_walk() -> None:
    for q, text, start, end in _cases(11):
        assert _refine(q, text, start, end) == _walk(q, text, start, end), (q, text, start, end)


def test_refine_moves_the_edges_to_the_quote() -> None:
    text = "The council approved the new budget for the river project in May."
    q = "approved the new budget"
    start = text.index(q) - 3
    score, s, e = _refine(q, text, start, start + len(q))
    assert (score, text[s:e]) == (100.0, q)


def test_no_cell_of_the_grid_scores_more_than_the_bound() -> None:
    """A candidate whose bound is below the best passage so far is not refined (it could not
    replace it): the bound must hold for every cell, the given edges included."""
    for q, text, start, end in _cases(12):
        assert _walk(q, text, start, end)[0] <= _refine_bound(q, text, start, end) + 1e-9, (q, text, start, end)


def test_skipping_candidates_changes_no_nearest_passage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Seeds of a one-word change vote for the true place and, through common words, for others;
    the others cannot beat it and are not refined: the answer is the one refining every candidate."""
    from claimledger import GateConfig
    from claimledger.checks import quote_scan
    from claimledger.load.index import read_source
    from claimledger.normalize import normalize_quote

    rng = random.Random(13)
    words = ["the", "council", "said", "that", "the", "river", "policy", "was", "never", "going", "to", "change", "in", "the", "market"]
    words += ["審議会は", "川の", "政策を", "変えない", "と", "述べた"]
    text = " ".join(rng.choice(words) for _ in range(30_000))
    (tmp_path / "s.txt").write_text(text, "utf-8")
    ix = read_source("s", str(tmp_path / "s.txt"), GateConfig(cache_dir=tmp_path / "cache"))
    quotes = []
    for _ in range(150):
        at = text.index(" ", rng.randrange(0, len(text) - 300)) + 1
        toks = text[at : text.index(" ", at + 80)].split(" ")
        toks[len(toks) // 2] = rng.choice(["zebra", "四十"])
        quotes.append(normalize_quote(" ".join(toks)))
    assert len(ix.primary.text) > quote_scan.FULL_SEARCH_LIMIT  # the seeded search, not the full one
    refined: list[int] = []

    def counted(*args: object) -> tuple[float, int, int]:
        refined.append(1)
        return _refine(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(quote_scan, "_NEAREST", None)  # the Python search (the compiled one: test_near_miss_compiled.py)
    monkeypatch.setattr(quote_scan, "_refine", counted)
    skipped = nearest_passages(quotes, ix)
    fewer = len(refined)
    monkeypatch.setattr(quote_scan, "_refine_bound", lambda *a: float("inf"))
    monkeypatch.setattr(quote_scan, "_place_bound", lambda *a: float("inf"))
    every = nearest_passages(quotes, ix)
    assert len(skipped) == len(quotes) and fewer < len(refined) - fewer  # candidates were skipped
    assert {i: (ev.start, ev.end, score, p) for i, (ev, score, p) in skipped.items()} == {
        i: (ev.start, ev.end, score, p) for i, (ev, score, p) in every.items()
    }


def test_no_cell_of_a_row_scores_more_than_its_bound() -> None:
    """_refine scores a row only when its bound reaches the best cell so far: the bound must hold
    for every cell of every row (random texts of small alphabets: ties and repeats everywhere)."""
    from rapidfuzz.distance import LCSseq

    for q, text, start, end in _cases(14):
        k = max(1, min(8, len(q) // 4))
        last = min(end + k, len(text))
        for s in range(max(0, start - k), start + k + 1):
            e0 = max(end - k, s + 1)
            if e0 > last:
                continue
            bound = _row_bound(LCSseq.similarity(q, text[s:e0]), LCSseq.similarity(q, text[s:last]), len(q), s, e0, last + 1)
            for e in range(e0, last + 1):
                assert fuzz.ratio(q, text[s:e]) <= bound + 1e-9, (q, text, s, e)


def _near_misses() -> Iterator[tuple[str, str, int, int]]:
    """Quotes with one word changed, dropped or doubled, cut from the docs (English) and the examples'
    Japanese overclaim corpus, at the place _rough finds for them (how nearest_passages calls _refine)."""
    rng = random.Random(15)
    root = Path(__file__).parent.parent
    texts = [p.read_text("utf-8") for p in sorted((root / "docs").glob("*.md"))[:12]]
    texts.append((root / "tests" / "corpus" / "overclaim_ja.yaml").read_text("utf-8"))
    for text in texts:
        for _ in range(60):
            at = rng.randrange(0, max(1, len(text) - 200))
            q = text[at : at + rng.randrange(12, 160)]
            toks = q.split(" ")
            j = rng.randrange(len(toks))
            toks[j] = rng.choice(["zebra", "", toks[j] + " " + toks[j], "四十", toks[j][::-1]])
            q = " ".join(toks).strip()
            if not q:
                continue
            rough = _rough(q, text, at - len(q) // 2, at + len(q) + len(q) // 2)
            if rough is not None:
                yield q, text, *rough


def test_refine_matches_the_walk_on_near_misses_of_real_text() -> None:
    cases = list(_near_misses())
    assert len(cases) > 500
    moved = 0
    for q, text, start, end in cases:
        got = _refine(q, text, start, end)
        assert got == _walk(q, text, start, end), (q, start, end)
        moved += got[1:] != (start, end)
    assert moved > 50  # the edges do move: the grid is searched, not only the given cell


def _long_cases(seed: int) -> Iterator[tuple[str, str, int, int]]:
    """(quote, text, start, end) with quotes of 1 to 300 characters (one to five 64-bit words of the
    compiled pass), random or edited from the text, over small alphabets, CJK and astral characters."""
    rng = random.Random(seed)
    kanji = "".join(map(chr, range(0x4E00, 0x4E40)))
    for alphabet in ("ab", "ab ", "ab c日本\U0001f600", "the cat sat on a mat ", kanji):
        for _ in range(1500):
            size = rng.choice([rng.randrange(1, 64), rng.randrange(60, 300)])
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(1, 2 * size + 20)))
            if rng.random() < 0.5:
                q = "".join(rng.choice(alphabet) for _ in range(size))
            else:
                at = rng.randrange(len(text))
                chars = list(text[at : at + size])
                for _ in range(rng.randrange(0, 5)):
                    i = rng.randrange(len(chars) + 1)
                    chars[i : i + rng.randrange(0, 4)] = rng.choice(alphabet) * rng.randrange(0, 4)
                q = "".join(chars) or "b"
            start = rng.randrange(0, len(text))
            yield q, text, start, rng.randrange(start, len(text) + 1)


def test_compiled_grid_picks_the_cell_of_the_rows() -> None:
    if compiled("_cnear") is None:
        pytest.skip("the compiled near-miss search is not built (or CLAIMLEDGER_PURE_PYTHON is set)")
    cases = list(_long_cases(16)) + list(_cases(17)) + list(_near_misses())
    for q, text, start, end in cases:
        got, want = _refine(q, text, start, end), _refine_py(q, text, start, end)
        assert got == want and type(got[0]) is type(want[0]), (q, text, start, end)


def test_compiled_grid_checks_its_bounds() -> None:
    ext = compiled("_cnear")
    if ext is None:
        pytest.skip("the compiled near-miss search is not built (or CLAIMLEDGER_PURE_PYTHON is set)")
    assert ext.best_cell("ab", "xaby", 0, 1, 2, 4) == (1, 3)
    assert ext.best_cell("ab", "xaby", 2, 1, 2, 4) is None  # no start
    assert ext.best_cell("ab", "xaby", 3, 3, 2, 3) is None  # no end past the start
    for bad in [(-1, 1, 2, 4), (0, 1, 2, 5), (0, 5, 2, 4)]:
        with pytest.raises(ValueError):
            ext.best_cell("ab", "xaby", *bad)


def test_no_passage_of_a_place_scores_more_than_its_bound() -> None:
    """A candidate place whose bound is below the best passage so far is not aligned at all: the
    bound must hold for the passage _rough then _refine find there (random texts, ties everywhere)."""
    rng = random.Random(18)
    checked = 0
    for q, text, start, _ in list(_long_cases(19))[::3] + list(_cases(20))[::3]:
        lo = start - rng.randrange(0, len(q) + 1)
        hi = lo + rng.randrange(0, 3 * len(q) + 2)
        rough = _rough(q, text, lo, hi)
        if rough is None:
            continue
        for refine in (_refine, _refine_py):
            assert refine(q, text, *rough)[0] <= _place_bound(q, text, lo, hi) + 1e-9, (q, text, lo, hi)
        checked += 1
    assert checked > 1000
