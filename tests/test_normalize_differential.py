"""The normalizer against its frozen oracle (issue 19): the speed work must not change a single
character or offset. ``claimledger._normalize_reference`` is the normalizer as it stood before;
``scripts/fuzz_normalize.py`` runs the same comparison on a million generated cases."""

from __future__ import annotations

import os
import random
import sys
from types import ModuleType

import pytest

from claimledger import _normalize_reference as reference
from claimledger import normalize as current
from claimledger.model.source import Source
from tests.scripts_loader import load_script


def _fuzz_module() -> ModuleType:
    return load_script("fuzz_normalize")


def _arrays(n: object) -> tuple[object, ...]:
    return (
        n.text,  # type: ignore[attr-defined]
        list(n.norm_start),  # type: ignore[attr-defined]
        list(n.orig_start),  # type: ignore[attr-defined]
        list(n.orig_end),  # type: ignore[attr-defined]
        bytes(n.linear),  # type: ignore[attr-defined]
    )


def _same(text: str) -> None:
    for keep in (False, True):
        want = _arrays(reference.normalize(text, keep_break_hyphens=keep))
        got = _arrays(current.normalize_py(text, keep_break_hyphens=keep))
        assert got == want, (text, keep)
        # the public entry point: the compiled core when it is built (tests/test_normalize_core.py)
        assert _arrays(current.normalize(text, keep_break_hyphens=keep)) == want, (text, keep)
        if not keep:  # a quote's text alone (the compiled core builds no offsets for it)
            assert current.normalize_quote.__wrapped__(text) == want[0].strip(), text  # type: ignore[attr-defined]


# Cases aimed at the two changes of the fast path: two spaces found by str.find apart from the
# trigger class, and str.casefold with the fold table's answer where the two differ.
EXPLICIT = [
    "a  b", "a   b", "  a", "a  ", "a  \tb", "a\t  b", "a \u3000 b", "日本  語", "日本 \n 語", "a  \ufffe\nb",
    "verifi-  \ncation", "well-\n  known", "x \u00ad\ny", "a  \u200bb", "（  ２０２４年  ）", "ＡＢＣ  ｄｅｆ",
    "Straße", "ﬁnal  ﬂow", "ΣΑΣ ΟΔΟΣ", "ς σ Σ", "K Å ǅ ǈ", "ᏸᏹ Ᏸ", "ΐ ΰ ŉ", "ﬓ և", "İstanbul ıi",
    "ｶﾞｷﾞ ｸﾟ", "１０２４ ％", "“Quoted” ‘single’ — dash − minus", "㍿ ㌔ ™ ℃", "x² H₂O ½ ①",
    "\u0301start", "e\u0301\u0301", "가 ㄱㅏ \u1100\u1161", "𝐀𝐁 😀 \U00020000", "\uf900\ufa0b 豈",
    "abc\u00a0def  ghi\u2003jkl", "end  ", "  ", " ", "", "\n", "a\r\n\r\nb", "Ａ－Ｂ ‐ ‑",
]  # fmt: skip


@pytest.mark.parametrize("text", EXPLICIT)
def test_explicit_cases_match_the_oracle(text: str) -> None:
    _same(text)


def test_generated_cases_match_the_oracle() -> None:
    fuzz = _fuzz_module()
    for i in range(3000):
        _same(fuzz.case(random.Random(f"ci/{i}")))


def test_fuzz_script_reports_a_difference() -> None:
    """The harness itself must be able to fail: an implementation that drops offsets is caught."""
    fuzz = _fuzz_module()

    def broken(text: str, *, keep_break_hyphens: bool = False) -> object:
        n = reference.normalize(text, keep_break_hyphens=keep_break_hyphens)
        return reference.Normalized(n.text.upper(), n.original, n.norm_start, n.orig_start, n.orig_end, n.linear)

    sys.modules["_broken_normalizer"] = ModuleType("_broken_normalizer")
    sys.modules["_broken_normalizer"].normalize = broken  # type: ignore[attr-defined]
    count, bad = fuzz._chunk(("_broken_normalizer:normalize", 19, 0, 200))
    assert count == 200 and bad and all(field == "text" for _, _, field in bad)


def test_real_text_matches_the_oracle() -> None:
    """Longer texts, English and Japanese prose with PDF artefacts, through the whole loop."""
    rng = random.Random(7)
    words = ["the", "council", "verification", "market", "seventy-six", "調査", "結果は", "３０％", "（注）",
             "ﬁnancial", "“policy”", "100 MB", "Straße", "ΣΟΦΙΑ"]  # fmt: skip
    for _ in range(40):
        parts = []
        for _ in range(rng.randrange(50, 400)):
            parts.append(rng.choice(words))
            parts.append(rng.choice([" ", " ", " ", "  ", "\n", "-\n", "\ufffe", "\u3000", "", "\u00ad\n"]))
        _same("".join(parts))


def test_line_numbers_counted_from_checkpoints_match_a_full_count() -> None:
    rng = random.Random(3)
    text = "".join(rng.choice("ab c\n日") for _ in range(20_000))
    src = Source("s", "s.txt", "text/plain", text, "0" * 64)
    for k in range(5000):
        offset = rng.randrange(0, len(text) + 1)
        line_start = text.rfind("\n", 0, offset) + 1
        assert src.location(offset) == (text.count("\n", 0, offset) + 1, offset - line_start + 1)
        if k < 32:  # the first lookups count from checkpoints; later, a list of every newline answers
            assert "_newlines" not in src.__dict__
    assert "_newlines" in src.__dict__
    for offset in (0, 1, len(text) - 1, len(text)):
        assert src.location(offset)[0] == text.count("\n", 0, offset) + 1  # type: ignore[index]


def test_line_numbers_of_many_offsets_at_once_match_one_by_one() -> None:
    """Source.locations (the evidence of every quote found in a source, counted in one pass) answers
    what Source.location answers for each offset: plain text and Markdown, offsets out of range,
    repeated and unsorted; a PDF (pages, no lines) and a source with anchors (HTML) too."""
    rng = random.Random(5)
    text = "".join(rng.choice("ab c\n日\r") for _ in range(5_000))
    for media, extra in (("text/plain", {}), ("text/markdown", {}), ("application/pdf", {"page_starts": (0, 2_000)}),
                         ("text/html", {"anchors": ((0, 1, 1), (1_000, 40, 3), (3_000, 90, 1))})):  # fmt: skip
        src = Source("s", "s", media, text, "0" * 64, **extra)  # type: ignore[arg-type]
        offsets = [rng.randrange(-5, len(text) + 6) for _ in range(400)] + [0, len(text), len(text), 17, 3]
        expected = [Source("s", "s", media, text, "0" * 64, **extra).location(o) for o in offsets]  # type: ignore[arg-type]
        assert src.locations(offsets) == expected
        assert src.locations([]) == []
    ja = "一行目\n二行目の引用\n三行目"
    assert Source("j", "j.txt", "text/plain", ja, "0" * 64).locations([ja.index("引用"), 0, len(ja)]) == [
        (2, 5), (1, 1), (3, 4)
    ]  # fmt: skip


@pytest.mark.parametrize("compiled_lines", [True, False])
def test_line_numbers_of_later_calls_counted_from_earlier_offsets_match_one_by_one(
    compiled_lines: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source asked for the lines of many offsets several times (a run asks for its matches, then
    for its nearest passages): each call answers what Source.location answers, whatever the order
    of the calls' offsets (before, between, after the ones counted already, repeated, out of range).
    Without the compiled count, a call counts from the offsets counted before (kept in ``_located``)."""
    import claimledger.model.source as source_module

    if not compiled_lines:
        monkeypatch.setattr(source_module, "_LINE_COLUMNS", None)
    elif source_module._LINE_COLUMNS is None:  # CLAIMLEDGER_PURE_PYTHON runs: nothing compiled to compare
        assert os.environ.get("CLAIMLEDGER_PURE_PYTHON")
    rng = random.Random(11)
    text = "".join(rng.choice("ab c\n日\r") for _ in range(8_000))
    src = Source("s", "s.txt", "text/plain", text, "0" * 64)
    one_by_one = Source("t", "t.txt", "text/plain", text, "0" * 64)
    for call in range(12):
        lo, hi = sorted(rng.randrange(-3, len(text) + 4) for _ in range(2))
        offsets = [rng.randrange(lo, hi + 1) for _ in range(rng.randrange(0, 60))]
        assert src.locations(offsets) == [one_by_one.location(o) for o in offsets], call
    if source_module._LINE_COLUMNS is not None:
        return
    marks, lines = src.__dict__["_located"]
    assert list(marks) == sorted(set(marks)) and len(marks) > 100
    assert all(line == text.count("\n", 0, o) + 1 for o, line in zip(marks, lines, strict=True))


def test_line_numbers_kept_for_later_calls_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The offsets kept for later calls stay under a bound (a source kept across many runs), and the
    answers stay right when older ones are forgotten."""
    import claimledger.model.source as source_module

    monkeypatch.setattr(source_module, "_LOCATED_MAX", 50)
    monkeypatch.setattr(source_module, "_LINE_COLUMNS", None)  # (the compiled count keeps nothing)
    rng = random.Random(12)
    text = "".join(rng.choice("ab\n") for _ in range(3_000))
    src = Source("s", "s.txt", "text/plain", text, "0" * 64)
    for size in (30, 30, 80, 10):
        offsets = [rng.randrange(0, len(text) + 1) for _ in range(size)]
        assert src.locations(offsets) == [src.location(o) for o in offsets]
        assert len(src.__dict__["_located"][0]) <= 50


@pytest.mark.parametrize("alphabet", ["ab c\n", "ab c\né\n", "ab c\n日\n", "ab c\n\U0001f600\n"])
def test_line_numbers_of_long_texts_counted_without_the_gil_match_a_full_count(
    alphabet: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Texts of each width (Latin-1, UCS-2, UCS-4), long enough (over 2**24 characters) that the
    compiled count (_cseeds.count_newlines) runs without the GIL; the same lines with str.count."""
    import claimledger.model.source as source_module

    rng = random.Random(len(alphabet))
    block = "".join(rng.choice(alphabet) for _ in range(300_000))
    text = block * 56 + block[: rng.randrange(300_000)]  # 16.8-17.1 million characters
    assert len(text) > 1 << 24
    offsets = [rng.randrange(0, len(text) + 1) for _ in range(300)] + [0, len(text)]
    want = [(text.count("\n", 0, o) + 1, o - text.rfind("\n", 0, o)) for o in offsets]
    assert source_module._COUNT_NEWLINES is not None or os.environ.get("CLAIMLEDGER_PURE_PYTHON")
    assert Source("s", "s.txt", "text/plain", text, "0" * 64).locations(offsets) == want
    monkeypatch.setattr(source_module, "_LINE_COLUMNS", None)
    assert Source("s", "s.txt", "text/plain", text, "0" * 64).locations(offsets) == want
    monkeypatch.setattr(source_module, "_COUNT_NEWLINES", None)
    assert Source("s", "s.txt", "text/plain", text, "0" * 64).locations(offsets) == want


def test_count_newlines_checks_its_spans() -> None:
    from claimledger._compiled import compiled

    ext = compiled("_cseeds")
    if ext is None:  # CLAIMLEDGER_PURE_PYTHON runs: nothing compiled to check
        assert os.environ.get("CLAIMLEDGER_PURE_PYTHON")
        return
    text = "a\nb\n\nc" * 20_000
    assert ext.count_newlines(text, [0, len(text), 0, 0, 1, 5]) == [
        text.count("\n"), 0, text.count("\n", 1, 5)
    ]  # fmt: skip
    for bad in ([0], [0, len(text) + 1], [5, 4], [-1, 2]):
        with pytest.raises(ValueError):
            ext.count_newlines(text, bad)


@pytest.mark.parametrize("alphabet", ["ab c\n", "ab\n\u00e9\n", "ab c\n\u65e5\n", "ab\n\U0001f600", "\n", "abc"])
def test_compiled_line_columns_match_count_and_rfind(alphabet: str) -> None:
    """_cseeds.line_columns (Source.locations of a plain text) against str.count and str.rfind: each
    width of text, offsets unsorted, repeated, at both ends and out of range (negative, past the end,
    too large for a C integer, a bool); an offset that is not an int raises TypeError."""
    from claimledger._compiled import compiled

    ext = compiled("_cseeds")
    if ext is None:  # CLAIMLEDGER_PURE_PYTHON runs: nothing compiled to check
        assert os.environ.get("CLAIMLEDGER_PURE_PYTHON")
        return
    rng = random.Random(alphabet)
    for _ in range(400):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 400)))
        offsets: list[int] = [rng.randrange(-3, len(text) + 4) for _ in range(rng.randrange(0, 50))]
        offsets += [0, len(text), 2**70, -(2**70), True]
        rng.shuffle(offsets)
        want = [(text.count("\n", 0, o) + 1, o - text.rfind("\n", 0, o)) if 0 <= o <= len(text) else None
                for o in offsets]  # fmt: skip
        assert ext.line_columns(text, offsets) == want
    assert ext.line_columns("a\nb", []) == []
    with pytest.raises(TypeError):
        ext.line_columns("a\nb", [1, 2.0])
    with pytest.raises(TypeError):
        ext.line_columns("a\nb", (1, 2))


@pytest.mark.parametrize("pure", [False, True], ids=["compiled", "pure-python"])
def test_spans_mapped_at_once_match_to_original(pure: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Normalized.spans_to_original (a source's matches mapped back together, _cseeds.spans_to_original)
    against Normalized.to_original one span at a time: texts whose normalization folds, drops and
    joins (ligatures, line-break hyphens, full-width forms, invisible characters, NFKC expansions),
    spans inside, across and at the ends of segments, and those it leaves to Python (empty,
    reversed, negative, too large for a C integer), compiled and pure Python."""
    if pure:
        monkeypatch.setattr(current, "_SPANS_TO_ORIGINAL", None)
    elif current._SPANS_TO_ORIGINAL is None:  # CLAIMLEDGER_PURE_PYTHON runs: nothing compiled to check
        assert os.environ.get("CLAIMLEDGER_PURE_PYTHON")
        return
    rng = random.Random("spans-to-original")
    pieces = ["ab ", "\ufb01n", "well-\nknown ", "\uff21\uff22", "x\u200by", "\u00bd ", "\u3300", "\u2014\n", "e\u0301",
              "\U0001f600", "  \t", "\u201cq\u201d", "\ufffe", "ｶﾞ"]
    for _ in range(300):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(0, 60)))
        norm = current.normalize(text, keep_break_hyphens=rng.random() < 0.3)
        n = len(norm.text)
        spans = [(a, a + rng.randrange(1, 12)) for a in (rng.randrange(0, max(1, n)) for _ in range(20))]
        spans = [(a, min(b, n)) for a, b in spans]
        spans += [(0, n), (0, 0), (3, 1), (n, n), (-2, 4), (2**70, 2**70 + 1), (0, 2**70)]
        rng.shuffle(spans)
        want = []
        for a, b in spans:
            try:
                want.append(norm.to_original(a, b))
            except (IndexError, OverflowError) as exc:
                want.append(type(exc))
        got = []
        for a, b in spans:  # one by one: the same exceptions as to_original where it raises
            try:
                got.append(norm.spans_to_original([(a, b)])[0])
            except (IndexError, OverflowError) as exc:
                got.append(type(exc))
        assert got == want, text
        mappable = [sp for sp, w in zip(spans, want, strict=True) if not isinstance(w, type)]
        assert norm.spans_to_original(mappable) == [w for w in want if not isinstance(w, type)]


def test_evidence_of_many_spans_at_once_matches_one_by_one() -> None:
    """checks.evidence.source_evidences (a source's matches mapped together, no call per span where
    the source has no pages) builds what source_evidence builds for each span: plain text, Markdown,
    a PDF's pages, an HTML source's anchors; line ends, PDFium's hyphen mark, the text's ends."""
    from claimledger.checks.evidence import source_evidence, source_evidences
    from claimledger.load.index import IndexedSource
    from claimledger.normalize import normalize

    rng = random.Random(21)
    text = "".join(rng.choice(["ab", " ", "c\n", "日", "\r\n", "\ufffe", "x\r"]) for _ in range(3_000))
    for media, extra in (("text/plain", {}), ("text/markdown", {}), ("application/pdf", {"page_starts": (0, 900, 2_000)}),
                         ("text/html", {"anchors": ((0, 1, 1), (1_000, 40, 3))})):  # fmt: skip
        src = Source("s", "s", media, text, "0" * 64, **extra)  # type: ignore[arg-type]
        ix = IndexedSource(src, normalize(text), None)
        ends = [sorted(rng.randrange(0, len(text) + 1) for _ in range(2)) for _ in range(300)]
        spans = [(a, b) for a, b in ends] + [(0, 0), (0, len(text)), (len(text), len(text))]
        assert source_evidences(ix, spans) == [source_evidence(ix, a, b) for a, b in spans]
