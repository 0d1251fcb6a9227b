"""The compiled near-miss search (claimledger/_cnear.c, issue 19) runs without the GIL and must give
the passage the Python search gives with rapidfuzz, to the last tie and the last bit of the score.

Two oracles: rapidfuzz's own ``fuzz.partial_ratio_alignment`` for the rough passage the C code
re-implements (score and destination, on generated pairs shaped to hit its every branch), and the
pure-Python ``nearest_spans`` for the whole search (seeded on long sources, whole-text on short
ones, English and Japanese, several string kinds).
"""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest
from rapidfuzz import fuzz

from claimledger._compiled import pure_python
from claimledger._config import GateConfig
from claimledger.checks import quote_scan
from claimledger.checks.quote_scan import FULL_SEARCH_LIMIT, nearest_spans
from claimledger.load.index import index_source
from tests.extensions import required
from tests.test_near_miss_index import generated_quotes, generated_text, long_source


@pytest.fixture(scope="module")
def near() -> ModuleType:
    return required("_cnear", "the near-miss search")


ALPHABETS = ["ab", "abc", "abcd ", "the cat sat on a mat ", "あいうえおかきく", "ab日本\U0001f600", "é\u2014x"]


def _pairs(seed: int, count: int) -> list[tuple[str, str]]:
    """(needle, haystack): needles of 1 to 200 code points (one to four 64-bit words, the 64 edge),
    haystacks shorter, as long and longer, random or holding the needle with a few edits."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        alphabet = rng.choice(ALPHABETS)
        n = rng.choice([1, 2, 3, 5, 8, 20, 63, 64, 65, 100, 128, 129, 200])
        m = max(1, rng.choice([1, 2, 5, n - 1, n, n + 1, 2 * n, 3 * n + 7, 150]))
        q = "".join(rng.choice(alphabet) for _ in range(n))
        s = "".join(rng.choice(alphabet) for _ in range(m))
        if m > n and rng.random() < 0.5:  # the needle in the haystack, edited
            chars = list(q)
            for _ in range(rng.randrange(0, 4)):
                chars[rng.randrange(n)] = rng.choice(alphabet)
            at = rng.randrange(0, m - n + 1)
            s = s[:at] + "".join(chars) + s[at + n :]
        out.append((q, s))
    return out


def test_partial_alignment_is_rapidfuzzs(near: ModuleType) -> None:
    for q, s in _pairs(31, 12_000):
        want = fuzz.partial_ratio_alignment(q, s)
        assert want is not None
        assert near.partial_alignment(q, s) == (want.score, want.dest_start, want.dest_end), (q, s)


def test_partial_alignment_of_real_text(near: ModuleType) -> None:
    """Sentences of the docs against windows of the docs (the shape nearest_spans asks for)."""
    rng = random.Random(32)
    root = Path(__file__).parent.parent
    texts = [p.read_text("utf-8") for p in sorted((root / "docs").glob("*.md"))[:8]]
    texts.append((root / "tests" / "corpus" / "overclaim_ja.yaml").read_text("utf-8"))
    checked = 0
    for text in texts:
        for _ in range(80):
            at = rng.randrange(0, max(1, len(text) - 400))
            q = text[at : at + rng.randrange(10, 180)]
            lo = max(0, at - rng.randrange(0, len(q) + 1))
            s = text[lo : lo + rng.randrange(1, 3 * len(q) + 2)]
            if not q or not s:
                continue
            want = fuzz.partial_ratio_alignment(q, s)
            assert want is not None
            assert near.partial_alignment(q, s) == (want.score, want.dest_start, want.dest_end), (q, s)
            checked += 1
    assert checked > 500


def _both(quotes: list[str], ix: object, monkeypatch: pytest.MonkeyPatch, near: ModuleType) -> tuple[dict, dict]:  # type: ignore[type-arg]
    """nearest_spans compiled, then on the rapidfuzz path."""
    with monkeypatch.context() as m:
        m.setattr(quote_scan, "_NEAREST", near.nearest)
        got = nearest_spans(quotes, ix)  # type: ignore[arg-type]
    with monkeypatch.context() as m:
        m.setattr(quote_scan, "_NEAREST", None)
        want = nearest_spans(quotes, ix)  # type: ignore[arg-type]
    return got, want


def test_the_scan_uses_the_compiled_search(near: ModuleType) -> None:
    assert quote_scan._NEAREST is (None if pure_python() else near.nearest)


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_seeded_search_gives_the_python_passages(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, near: ModuleType
) -> None:
    ix, text = long_source(tmp_path, lang)  # longer than FULL_SEARCH_LIMIT: the seeded search
    rng = random.Random(f"near-compiled/seeded/{lang}")
    quotes = [q for q in generated_quotes(rng, text, lang, 300) if q not in text] + [""]
    got, want = _both(quotes, ix, monkeypatch, near)
    assert got == want
    assert all(type(span[0]) is float for span in got.values())
    assert len(want) > 60  # most near misses have a passage; absent ones may not


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_whole_text_search_gives_the_python_passages(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, near: ModuleType
) -> None:
    rng = random.Random(f"near-compiled/whole/{lang}")
    for size in (3, 40, 400):
        text = generated_text(rng, lang, size)
        path = tmp_path / f"short-{lang}-{size}.txt"
        path.write_text(text, "utf-8")
        ix = index_source(path.stem, str(path), GateConfig(cache_dir=tmp_path / "cache"))
        assert len(ix.primary.text) <= FULL_SEARCH_LIMIT
        quotes = [*generated_quotes(rng, ix.primary.text, lang, 60), "x" * 300, "", "a"]
        got, want = _both(quotes, ix, monkeypatch, near)
        assert got == want and len(want) > 30


def test_nearest_checks_its_arguments(near: ModuleType) -> None:
    assert near.nearest([], "text", []) == []
    assert near.nearest(["", "ab"], "", [None, None]) == [None, None]  # an empty text: no passage
    assert near.nearest(["abc"], "xxabcxx", [None]) == [(100.0, 2, 5)]
    assert near.nearest(["abc"], "xxabcxx", [[0, 400, -50]]) == [(100.0, 2, 5)]
    assert near.nearest(["abc"], "xxabcxx", [[]]) == [None]  # no candidate: no alignment
    with pytest.raises(ValueError, match="one entry"):
        near.nearest(["abc"], "text", [])
    with pytest.raises(TypeError):
        near.nearest(["abc"], "text", [[1.5]])
    with pytest.raises(TypeError):
        near.nearest([b"abc"], "text", [None])
    with pytest.raises(TypeError):
        near.nearest(["abc"], "text", [(1, 2)])
    with pytest.raises(ValueError, match="non-empty"):
        near.partial_alignment("", "abc")
