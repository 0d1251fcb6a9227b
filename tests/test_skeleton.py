"""The letter-and-digit skeleton (claimledger/skeleton.py): the exact prefilter of the
misattribution search (issue 19 item 5).

The invariant ``of_raw(t) == of_normalized(normalize(t).text)`` is checked on generated texts rich
in what the normalizer treats specially (tests/normalize_cases.py and scripts/fuzz_normalize.py's
generator) with both normalizer cores and both skeleton cores; scripts/fuzz_skeleton.py runs it on
a million. Then the prefilter: it may say "maybe" where a quote is absent, never "cannot" where it
occurs, and the scan gives the same results with it as when every uncited source is indexed.
"""

from __future__ import annotations

import contextlib
import random
import sqlite3
import sys
from pathlib import Path
from types import ModuleType

import pytest

from claimledger import GateConfig, skeleton
from claimledger import _normalize_core as core
from claimledger.checks.context import RunContext
from claimledger.checks.quote_scan import scan_quotes
from claimledger.load.index import INDEX_VERSION, _cache_path, index_key, index_source
from claimledger.model.claim import Ledger
from claimledger.normalize import normalize_c, normalize_py, normalize_quote
from tests.normalize_cases import cases

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from fuzz_normalize import case as pdf_like_case


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    try:
        mod = core.load_extension()
    except ImportError as exc:  # pragma: no cover - the message is the point
        pytest.fail(f"the C core claimledger._cnormalize is not built ({exc}): `pip install -e .`")
    if not hasattr(mod, "skeleton"):  # pragma: no cover
        pytest.fail("the built C core has no skeleton(): rebuild it (`pip install -e .`)")
    return mod


def _texts() -> list[str]:
    return cases(20261201, 2500) + [pdf_like_case(random.Random(f"skeleton/{i}")) for i in range(2500)]


def test_the_skeleton_of_raw_text_is_the_skeleton_of_its_normalized_text(ext: ModuleType) -> None:
    bad = []
    for text in _texts():
        py = skeleton.of_raw_py(text)
        c = skeleton.of_raw(text, ext=ext)
        want = skeleton.of_normalized(normalize_py(text).text)
        also = skeleton.of_normalized(normalize_c(text, ext=ext).text)
        if not (py == c == want == also):
            bad.append(text)
    assert bad == []


EDGE_CASES = [
    # (raw source text, a quote that must pass the prefilter)
    ("le cafe\u0301 au lait", "café au lait"),  # a combining mark composed with its base
    ("le cafe\u200b\u0301 au lait", "café au lait"),  # ... across a removed invisible character
    ("the \ufb01nal o\ufb03ce", "the final office"),  # ligatures
    ("a verifi\ufffe\ncation step", "a verification step"),  # PDFium's hyphenation mark
    ("a verifi\u00ad\ncation step", "a verification step"),  # a soft hyphen at a line break
    ("a verifi-\ncation step", "a verification step"),  # a hyphenated line break
    ("die STRASSE ist gro\u00df", "die strasse ist gross"),  # ß and upper case
    ("\uff21\uff22\uff23 \uff11\uff12\uff13", "ABC 123"),  # full-width forms
    ("one and \u00bd cups", "one and ½ cups"),  # NFKC expansions that are kept
    ("10\u00b2 units", "10² units"),  # superscripts are not folded
    ("\u0130stanbul", "i̇stanbul"),
    (
        "調査の結果、か\u3099くせい が増えた",
        "調査の結果、がくせいが増えた",
    ),  # dakuten composed, space dropped
    ("ｶﾞｸｾｲ", "ガクセイ"),  # half-width katakana with a voiced mark
    ("조사 결과", "조사 결과"),  # Hangul syllables (NFKD: jamo)
    ("\U0001d400\U0001d401 test", "ab test"),  # mathematical letters outside the BMP
    ("“quoted” text", '"quoted" text'),
    ("naı\u0308ve", "naı̈ve"),
]


@pytest.mark.parametrize(("raw", "quote"), EDGE_CASES)
def test_edge_cases_keep_the_invariant_and_pass(ext: ModuleType, raw: str, quote: str) -> None:
    norm = normalize_py(raw).text
    nq = normalize_quote(quote)
    assert nq in norm  # the case is a real match
    assert skeleton.of_raw(raw, ext=ext) == skeleton.of_raw_py(raw) == skeleton.of_normalized(norm)
    pf = skeleton.Prefilter([nq])
    assert pf.may_contain(raw, ext=ext) and pf.may_contain(raw, ext=None)


def test_every_quote_cut_from_a_normalized_text_passes(ext: ModuleType) -> None:
    rng = random.Random(5)
    for text in _texts()[::5]:
        norm = normalize_py(text).text
        if not norm:
            continue
        a = rng.randrange(len(norm))
        q = norm[a : a + rng.randrange(1, 80)]
        pf = skeleton.Prefilter([q, "a quote that is surely absent from every generated text 0123456789"])
        assert pf.may_contain(text, ext=ext), (text, q)
        assert pf.may_contain(text, ext=None), (text, q)


def test_absent_quotes_are_ruled_out_in_english_and_japanese(ext: ModuleType) -> None:
    raw = "Adding an inde-\npendent verification step reduced errors by 37 percent. 調査では約4倍に増えた。"
    for e in (ext, None):
        assert not skeleton.Prefilter(["reduced errors by 73 percent"]).may_contain(raw, ext=e)
        assert not skeleton.Prefilter(["調査では約5倍に増えた"]).may_contain(raw, ext=e)
        assert skeleton.Prefilter(["independent verification step reduced errors"]).may_contain(raw, ext=e)
        assert skeleton.Prefilter(["約4倍に増えた"]).may_contain(raw, ext=e)
        # a quote without a letter or digit may be anywhere: never ruled out
        assert skeleton.Prefilter(["%", "reduced errors by 73 percent"]).may_contain(raw, ext=e)


def test_window_hits_match_their_definition(ext: ModuleType) -> None:
    rng = random.Random(11)
    alphabet = "abcde調査"
    for _ in range(400):
        skel = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 60)))
        anchors = {
            "".join(rng.choice(alphabet) for _ in range(skeleton.WINDOW)) for _ in range(rng.randrange(1, 4))
        }
        if rng.random() < 0.5 and len(skel) >= skeleton.WINDOW:
            a = rng.randrange(len(skel) - skeleton.WINDOW + 1)
            anchors.add(skel[a : a + skeleton.WINDOW])
        ordered = sorted(anchors, key=skeleton.window_hash)
        hashes = bytes(__import__("array").array("Q", [skeleton.window_hash(a) for a in ordered]))
        assert list(ext.window_hits(skel, skeleton.WINDOW, hashes)) == [int(a in skel) for a in ordered]


def _write(tmp: Path, texts: dict[str, str]) -> dict[str, str]:
    for sid, text in texts.items():
        (tmp / f"{sid}.txt").write_text(text, "utf-8")
    return {sid: f"{sid}.txt" for sid in texts}


def test_uncited_sources_without_a_pending_quote_are_never_indexed(tmp_path: Path) -> None:
    texts = {
        "a": "Alpha says the sky is green today. 調査では約4倍に増えた。",
        "b": "Beta: adding an independent verification step reduced errors by 37 percent.",
        "c": "Gamma is about something else entirely, with no quote in it.",
        "d": "Delta holds the Japanese one: 言葉を扱う生成AIは約4倍に増えた。",
    }
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    ledger = Ledger(version=1, sources=_write(tmp_path, texts), claims=[])
    ctx = RunContext.create(ledger, tmp_path, cfg)
    keys = [
        ("a", normalize_quote("the sky is green")),
        ("a", normalize_quote("independent verification step reduced errors")),  # in b: misattributed
        ("a", normalize_quote("言葉を扱う生成AIは約4倍")),  # in d: misattributed
        ("a", normalize_quote("reduced errors by 73 percent")),  # nowhere
    ]
    got = scan_quotes(keys, ctx.source, list(texts), uncited=ctx.uncited_source)
    assert got[keys[0]].found is not None
    assert got[keys[1]].elsewhere is not None and got[keys[1]].elsewhere.source == "b"
    assert got[keys[2]].elsewhere is not None and got[keys[2]].elsewhere.source == "d"
    assert got[keys[3]].found is None and got[keys[3]].elsewhere is None
    # b and d were indexed (their readings marked as seen: a plain UTF-8 text is cached the second
    # time it is read); c could not hold any pending quote: read, never normalized
    ctx.close()  # the index entries are written by then
    entry = {sid: _cache_path(cfg, index_key(ctx.source_facts()[sid].sha256 or "", "text/plain", cfg)) for sid in texts}
    with contextlib.closing(sqlite3.connect(cfg.cache_dir / "index" / f"v{INDEX_VERSION}" / "seen.sqlite")) as db:
        seen = {name for (name,) in db.execute("SELECT key FROM seen")}
    assert {sid for sid in texts if entry[sid].stem in seen} == {"a", "b", "d"}
    assert not any(path.exists() for path in entry.values())
    # the run still records every source's SHA-256 (the reproducibility block)
    assert all(ctx.source_facts()[sid].sha256 for sid in texts)
    # and the results equal those of the scan that indexes every source
    assert scan_quotes(keys, ctx.source, list(texts)) == got


def test_a_costly_uncited_source_is_indexed_and_cached_as_before(tmp_path: Path) -> None:
    """PDF extraction is costly: an uncited PDF is indexed (and cached for warm runs) even when
    the prefilter would rule it out, and a quote it holds is still found there."""
    import shutil

    fix = Path(__file__).parent / "fixtures" / "hyphenated.pdf"
    shutil.copy(fix, tmp_path / "p.pdf")
    cfg = GateConfig(cache_dir=tmp_path / "cache")
    (tmp_path / "a.txt").write_text("Alpha text with nothing quoted.", "utf-8")
    ledger = Ledger(version=1, sources={"a": "a.txt", "p": "p.pdf"}, claims=[])
    ctx = RunContext.create(ledger, tmp_path, cfg)
    words = index_source("p", str(tmp_path / "p.pdf"), GateConfig(index_cache=False)).primary.text.split()
    quote = " ".join(words[3:9])
    keys = [("a", normalize_quote(quote)), ("a", normalize_quote("nothing of this is anywhere"))]
    got = scan_quotes(keys, ctx.source, ["a", "p"], uncited=ctx.uncited_source)
    assert got[keys[0]].elsewhere is not None and got[keys[0]].elsewhere.source == "p"
    ctx.close()
    facts = ctx.source_facts()["p"]
    assert _cache_path(cfg, index_key(facts.sha256 or "", facts.media_type or "", cfg)).exists()


def test_window_hits_of_long_skeletons_match_their_definition(ext: ModuleType) -> None:
    """Long skeletons are hashed in four stretches side by side (_cnormalize.c ``windows``): every
    window is still looked at, those across the stretches' edges and at the very end included,
    and the search stops only once every hash is found."""
    rng = random.Random(12)
    alphabet = "abcdefgh調査"
    for n in (4096 + 14, 4096 + 15, 4096 + 16, 5003, 20_000, 40_011):
        skel = "".join(rng.choice(alphabet) for _ in range(n))
        total = n - skeleton.WINDOW + 1
        per = total // 4 if total >= 4096 else total
        # windows ending at each stretch's first and last end, at the text's ends, and a few at random
        ends = {skeleton.WINDOW - 1, n - 1, *(skeleton.WINDOW - 1 + j * per + d for j in range(1, 4) for d in (-1, 0, 1))}
        ends |= {rng.randrange(skeleton.WINDOW - 1, n) for _ in range(20)}
        present = {skel[e - skeleton.WINDOW + 1 : e + 1] for e in ends if skeleton.WINDOW - 1 <= e < n}
        absent = {"".join(rng.choice("xyz") for _ in range(skeleton.WINDOW)) for _ in range(30)}
        for anchors in (present | absent, present):  # the second: every hash found (the early stop)
            ordered = sorted(anchors, key=skeleton.window_hash)
            hashes = bytes(__import__("array").array("Q", [skeleton.window_hash(a) for a in ordered]))
            assert list(ext.window_hits(skel, skeleton.WINDOW, hashes)) == [int(a in skel) for a in ordered]


def test_the_strided_test_lets_through_a_skeleton_at_every_phase(ext: ModuleType) -> None:
    """Only the windows that start at a multiple of STRIDE are hashed (_cnormalize.c ``strided``):
    a pending skeleton must still pass wherever it starts (every offset modulo STRIDE, the text's
    very start and end, all four side-by-side windows and the loop's tail), and the answer is always
    that of the substring test, with or without the strided tables."""
    rng = random.Random(13)
    alphabet = "abcdefgh調査"
    w, st = skeleton.WINDOW, skeleton.STRIDE
    for n in (w + st - 1, 4 * st + w, 200, 997, 5000):
        skel = "".join(rng.choice(alphabet) for _ in range(n))
        for length in (w + st - 1, w + st, 2 * w + 5, 90):
            for start in {0, n - length, *range(0, min(n - length, 3 * st) + 1), rng.randrange(max(1, n - length))}:
                if not 0 <= start <= n - length:
                    continue
                quote = skel[start : start + length]
                mutated = quote[:length // 2] + "z" + quote[length // 2 + 1 :]  # "z" is not in the alphabet
                for quotes in ([quote], [mutated], [mutated, quote]):
                    pf = skeleton.Prefilter(quotes)
                    assert pf._strided is not None
                    want = any(q in skel for q in quotes)
                    assert pf._holds(skel, ext) is want, (n, length, start, quotes)
                    plain = skeleton.Prefilter(quotes)
                    plain._strided = None  # the tiles of every window, as before
                    assert plain._holds(skel, ext) is want


def test_rolled_window_hashes_are_the_window_hashes() -> None:
    rng = random.Random(14)
    for n in (0, 1, skeleton.WINDOW - 1, skeleton.WINDOW, skeleton.WINDOW + 1, 100):
        s = "".join(rng.choice("ab調査😀\U0010ffff9") for _ in range(n))
        want = [skeleton.window_hash(s[o : o + skeleton.WINDOW]) for o in range(len(s) - skeleton.WINDOW + 1)]
        assert skeleton.all_window_hashes(s) == want


def test_short_skeletons_keep_the_tiles(ext: ModuleType) -> None:
    """A long skeleton shorter than WINDOW + STRIDE - 1 has a phase without a window: the strided
    test is not used for its set, and the answer stays the substring test's."""
    text = "the quick brown fox jumps over the lazy dog " * 20
    skel = skeleton.of_raw(text, ext=ext)
    mid = skel[5 : 5 + skeleton.WINDOW + 3]
    pf = skeleton.Prefilter([mid, skel[7:90]])
    assert pf._strided is None
    assert pf._holds(skel, ext) and pf.may_contain(text, ext=ext)
    assert skeleton.Prefilter([skel[7:90]])._strided is not None


def test_malformed_strided_groups_are_refused(ext: ModuleType) -> None:
    hashes = bytes(__import__("array").array("Q", [1, 2]))
    for groups in ([1], [1, 1, 3, 0], [1, 1, 1, 7], [2, 1, 1, 0], [1, 1, -1]):
        raw = bytes(__import__("array").array("i", groups))
        with pytest.raises(ValueError, match="malformed"):
            ext.strided_candidates("abcdefghijklmnopqrstuvwxyz" * 3, skeleton.WINDOW, skeleton.STRIDE, hashes, raw)
    with pytest.raises(ValueError, match="positive"):
        ext.strided_candidates("abc", 0, 1, hashes, b"")


def test_strided_search_is_the_substring_test_of_the_candidates(ext: ModuleType) -> None:
    """The strided test and the confirmation of its candidates run in one compiled pass
    (strided_search): true exactly when one of the skeletons is a substring, at every phase, near
    the ends, of every width, and for skeletons that differ from the text in one character (their
    windows mostly occur); always the substring test of strided_candidates' candidates."""
    w, st = skeleton.WINDOW, skeleton.STRIDE
    rng = random.Random(29)
    for _ in range(4000):
        alphabet = rng.choice(["ab", "abc", "aé日", "a\U0001f600b", "0123456789"])
        skel = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 300)))
        needles = set()
        for _ in range(rng.randrange(1, 5)):
            size = rng.randrange(w + st - 1, w + st + 40)
            if len(skel) >= size and rng.random() < 0.6:
                at = rng.randrange(0, len(skel) - size + 1)
                needle = skel[at : at + size]
                if rng.random() < 0.3:  # one character changed
                    k = rng.randrange(size)
                    needle = needle[:k] + rng.choice(alphabet) + needle[k + 1 :]
            else:
                needle = "".join(rng.choice(alphabet) for _ in range(size))
            needles.add(needle)
        long = sorted(needles)
        tables = skeleton._Strided.of(long)
        assert tables is not None
        want = any(n in skel for n in long)
        maybe = ext.strided_candidates(skel, w, st, tables.hashes, tables.groups)
        assert want == any(long[i] in skel for i in maybe)  # (never a false "cannot")
        assert ext.strided_search(skel, w, st, tables.hashes, tables.groups, long) is want, (skel, long)
        prepared = tables.prepared(ext)  # the filter and hash table built once for many texts
        assert ext.strided_search(skel, w, st, tables.hashes, tables.groups, long, prepared) is want, (skel, long)
    tables = skeleton._Strided.of(["x" * 40])
    assert tables is not None
    assert ext.strided_search("x" * 100, w, st, tables.hashes, tables.groups, ["x" * 40]) is True
    assert ext.strided_search("x" * 10, w, st, tables.hashes, tables.groups, ["x" * 40]) is False
    prepared = tables.prepared(ext)
    assert prepared is tables.prepared(ext)  # built once
    assert ext.strided_search("x" * 100, w, st, tables.hashes, tables.groups, ["x" * 40], prepared) is True
    with pytest.raises(ValueError, match="another hashes object"):  # equal bytes, another object: refused
        ext.strided_search("x" * 100, w, st, bytes(bytearray(tables.hashes)), tables.groups, ["x" * 40], prepared)
    with pytest.raises(ValueError):  # not a prepared table
        ext.strided_search("x" * 100, w, st, tables.hashes, tables.groups, ["x" * 40], object())
    with pytest.raises(ValueError, match="whole uint64"):
        ext.strided_prepare(b"\0" * 7)
    with pytest.raises(ValueError, match="one needle per group"):
        ext.strided_search("x" * 100, w, st, tables.hashes, tables.groups, [])
    with pytest.raises(ValueError, match="at least"):  # too short for every phase
        ext.strided_search("x" * 100, w, st, tables.hashes, tables.groups, ["x" * (w + st - 2)])
    with pytest.raises(ValueError, match="between 1 and 64"):
        ext.strided_search("x" * 100, 0, st, tables.hashes, tables.groups, ["x" * 40])
    bad = bytes(__import__("array").array("i", [1, 1, 1, 7]))
    with pytest.raises(ValueError, match="malformed"):
        ext.strided_search("x" * 100, w, st, tables.hashes, bad, ["x" * 40])
