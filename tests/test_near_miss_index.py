"""The near-miss seed search gives exactly the votes it gave before (issue 19 item 3).

The seeds of a quote that was not found (pieces of 8-24 characters) vote for the places the
near-miss alignment looks at. They used to be found by an Aho-Corasick automaton built for each
source and run in Python, match by match; now the compiled extension claimledger/_cseeds.c finds
the first occurrences of every seed in one pass (claimledger/checks/seed_hits.py, pure Python
as the fallback). Differential: the candidate starts of every quote, against a frozen copy of the
former function, on generated English and Japanese texts (repeated phrases past the per-seed cap,
overlapping seeds, every string kind) and on real-shaped PDFs; the seed search itself, compiled
against pure Python, on edge cases; and the whole near-miss search on a long source.
"""

from __future__ import annotations

import os
import random
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import ahocorasick
import pytest

from claimledger._config import GateConfig
from claimledger.checks import quote_scan, seed_hits
from claimledger.checks.quote_scan import (
    FULL_SEARCH_LIMIT,
    SEED_MAX_HITS,
    _seed_candidates,
    _seeds,
    nearest_passages,
)
from claimledger.load.index import index_source
from claimledger.normalize import normalize_quote
from tests import realdocs
from tests.extensions import required

FIXTURES = Path(__file__).parent / "fixtures"


def former_seed_candidates(quotes: list[str], text: str, known: object = None) -> dict[int, list[int]]:
    """quote_scan._seed_candidates as it was on main bf26c9b (frozen: the oracle)."""
    automaton = ahocorasick.Automaton()
    owners: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for qi, q in enumerate(quotes):
        for offset, seed in _seeds(q):
            owners[seed].append((qi, offset))
    if not owners:
        return {}
    for seed in owners:
        automaton.add_word(seed, seed)
    automaton.make_automaton()
    hits: dict[str, int] = defaultdict(int)
    votes: dict[int, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for end, seed in automaton.iter(text):
        hits[seed] += 1
        if hits[seed] > SEED_MAX_HITS:
            continue
        start = end - len(seed) + 1
        for qi, offset in owners[seed]:
            votes[qi][(start - offset) // 4] += 1
    out: dict[int, list[int]] = {}
    for qi, buckets in votes.items():
        best = sorted(buckets.items(), key=lambda kv: -kv[1])[:3]
        out[qi] = [b * 4 for b, _ in best]
    return out


@pytest.fixture(scope="module")
def ext() -> ModuleType:
    return required("_cseeds", "the seed search")


EN_WORDS = ["the", "council", "approved", "new", "budget", "for", "river", "project", "in", "may", "seven",
            "policy", "market", "never", "always", "forty", "percent", "of", "households", "reported", "higher",
            "costs", "than", "last", "year", "according", "survey"]  # fmt: skip
JA_CHARS = "調査結果によると世帯の割合は昨年より高い市場政策議会予算河川計画です。、がをにはのでした"
PHRASES_EN = ["the council approved the new budget", "forty percent of households", "according to the survey"]
PHRASES_JA = ["調査結果によると", "世帯の割合は昨年より高い", "議会は予算を承認した。"]


def generated_text(rng: random.Random, lang: str, n_units: int) -> str:
    parts: list[str] = []
    for _ in range(n_units):
        r = rng.random()
        if r < 0.3:  # a phrase repeated often: its seeds pass the per-seed cap
            parts.append(rng.choice(PHRASES_EN if lang == "en" else PHRASES_JA))
        elif lang == "en":
            parts.append(" ".join(rng.choice(EN_WORDS) for _ in range(rng.randrange(1, 8))))
        else:
            parts.append("".join(rng.choice(JA_CHARS) for _ in range(rng.randrange(2, 12))))
        if r > 0.97:  # other string kinds: Latin-1, the BMP, astral characters
            parts.append(rng.choice(["café", "naïve", "\u2014", "\U0001f600", "\U00020000", "aaaaaaaaaaaa"]))
    return (" " if lang == "en" else "").join(parts)


def generated_quotes(rng: random.Random, text: str, lang: str, n: int) -> list[str]:
    out: list[str] = []
    for _ in range(n):
        length = rng.randrange(4, 220)
        start = rng.randrange(0, max(1, len(text) - length))
        span = text[start : start + length]
        r = rng.random()
        if r < 0.3:  # a near miss: a few characters changed
            chars = list(span)
            for _ in range(rng.randrange(1, 4)):
                if chars:
                    chars[rng.randrange(len(chars))] = rng.choice("xyz" if lang == "en" else "猫犬")
            span = "".join(chars)
        elif r < 0.5:  # absent: the text's own vocabulary, shuffled
            toks = span.split() if lang == "en" else list(span)
            rng.shuffle(toks)
            span = (" " if lang == "en" else "").join(toks)
        elif r < 0.6:  # a repeated piece: one seed at several offsets of the quote
            piece = span[: rng.randrange(8, 30)]
            span = piece * rng.randrange(2, 5)
        elif r < 0.65:
            span = "".join(rng.choice("qwzk") for _ in range(length))
        out.append(span)
    return out


def both_ways(quotes: list[str], text: str, monkeypatch: pytest.MonkeyPatch, ext: ModuleType) -> None:
    want = former_seed_candidates(quotes, text)
    with monkeypatch.context() as m:
        m.setattr(seed_hits, "_EXT", ext)
        assert _seed_candidates(quotes, text) == want
    with monkeypatch.context() as m:
        m.setattr(seed_hits, "_EXT", None)
        assert _seed_candidates(quotes, text) == want


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_candidates_are_the_former_ones_on_generated_texts(
    lang: str, monkeypatch: pytest.MonkeyPatch, ext: ModuleType
) -> None:
    rng = random.Random(f"near-miss-index/{lang}")
    voted = 0
    for size in (3, 40, 400, 4000):
        text = generated_text(rng, lang, size)
        quotes = generated_quotes(rng, text, lang, 120)
        both_ways(quotes, text, monkeypatch, ext)
        voted += len(former_seed_candidates(quotes, text))
    assert voted > 200  # the texts do exercise the votes (not only quotes with no seed)


def test_a_seed_past_the_cap_stops_voting(monkeypatch: pytest.MonkeyPatch, ext: ModuleType) -> None:
    unit = "the council approved the new budget. "
    text = unit * (SEED_MAX_HITS + 50) + "the council approved a different plan."
    quotes = ["the council approved a different plan", unit * 3, "council approved the new budget! yes"]
    both_ways(quotes, text, monkeypatch, ext)
    ja = "議会は予算を承認した。" * (SEED_MAX_HITS + 20) + "議会は別の計画を承認した。"
    both_ways(["議会は別の計画を承認した。", "議会は予算を承認しなかった。議会は予算を"], ja, monkeypatch, ext)


def test_the_cap_counts_exactly_the_first_occurrences(monkeypatch: pytest.MonkeyPatch, ext: ModuleType) -> None:
    """The SEED_MAX_HITS-th occurrence of a seed still votes, the next one does not."""
    a, b = "ABCDEFGH", "IJKLMNOP"  # a quote of 16 characters: two seeds of 8
    unit = a + "-" * 8
    text = unit * (SEED_MAX_HITS - 1) + a + b + "-" * 8 + a + b
    capped = (SEED_MAX_HITS - 1) * 16  # where the last counted occurrence of `a` starts, `b` after it
    for which in (ext, None):
        with monkeypatch.context() as m:
            m.setattr(seed_hits, "_EXT", which)
            assert _seed_candidates([a + b], text) == {0: [capped, 0, 16]}
    assert former_seed_candidates([a + b], text) == {0: [capped, 0, 16]}


def _normalized(path: Path, tmp_path: Path) -> str:
    ix = index_source(path.stem, str(path), GateConfig(cache_dir=tmp_path / "cache"))
    return ix.primary.text


def test_candidates_are_the_former_ones_on_real_shaped_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ext: ModuleType
) -> None:
    en = realdocs.paper_pdf(
        tmp_path / "en.pdf", "Working Paper 12 - Household Costs",
        ["Forty percent of households reported higher energy costs than last year, according to the "
         "survey of 2,400 homes carried out in May. " * 6, "The council approved the new budget for the "
         "river project on 12 May; costs rose by 7.5% over the plan. " * 8],
        caption="Figure 1: energy costs by region", footnote="1 Survey weights follow the 2020 census.",
    )  # fmt: skip
    ja = realdocs.paper_pdf(
        tmp_path / "ja.pdf", "調査報告 第3号",
        ["調査結果によると、世帯の四割が昨年よりも高い光熱費を報告した。" * 6,
         "議会は五月十二日に河川計画の新しい予算を承認した。費用は計画より7.5%増えた。" * 8],
        lang="ja", caption="図1：地域別の光熱費", footnote="1 重みは2020年国勢調査に従う。",
    )  # fmt: skip
    texts = [_normalized(p, tmp_path) for p in (en, ja, FIXTURES / "japanese.pdf", FIXTURES / "hyphenated.pdf")]
    rng = random.Random("near-miss-index/real")
    for text in texts:
        assert len(text) > 100
        lang = "ja" if any("\u3040" <= c <= "\u9fff" for c in text) else "en"
        quotes = [normalize_quote(q) for q in generated_quotes(rng, text, lang, 150)]
        both_ways(quotes, text, monkeypatch, ext)


@pytest.mark.parametrize(
    ("text", "seeds", "cap"),
    [
        ("a" * 30, ["aaaaaaaa", "aaaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"], 200),  # overlapping, too long
        ("a" * 30, ["aaaaaaaa"], 5),
        ("a" * 30, ["aaaaaaaa"], 0),
        ("short", ["shortish"], 3),
        ("", ["anything"], 3),
        ("abcdefgh" * 3, ["abcdefgh", "abcdefgh", "abcdefghX", "abcdefghabcdefgh"], 200),  # same first 8
        ("café crème brûlée café crème", ["café crè", "crème brûlée", "brûlée café"], 200),  # Latin-1
        ("議会は予算を承認した。議会は予算を承認した。", ["議会は予算を承認し", "予算を承認した。議会"], 200),
        ("x\U0001f600 emoji \U0001f600 emoji \U00020000", ["\U0001f600 emoji ", "emoji \U00020000"], 200),
        ("plain ascii text, plain ascii", ["plain as", "\U0001f600 plain as"], 200),  # a seed of another kind
    ],
)
def test_compiled_seed_search_equals_pure_python(text: str, seeds: list[str], cap: int, ext: ModuleType) -> None:
    want = seed_hits.first_hits_py(text, seeds, cap)
    assert seed_hits.first_hits(text, seeds, cap, compiled=ext) == want


def test_compiled_seed_search_on_many_seeds_sharing_windows(ext: ModuleType) -> None:
    rng = random.Random(7)
    text = "".join(rng.choice("ab") for _ in range(20_000))  # every 8-character window repeats
    seeds = sorted({text[s : s + rng.randrange(8, 25)] for s in (rng.randrange(19_000) for _ in range(3_000))})
    seeds += ["".join(rng.choice("ab") for _ in range(rng.randrange(8, 25))) for _ in range(500)]
    for cap in (1, 7, 200):
        assert seed_hits.first_hits(text, seeds, cap, compiled=ext) == seed_hits.first_hits_py(text, seeds, cap)


@pytest.mark.parametrize("skipping", [2, 1, 0], ids=["skipping", "chosen", "rolled"])
@pytest.mark.parametrize("filler", ["ab", "aあ", "a😀"], ids=["latin-1", "two-byte", "four-byte"])
def test_every_text_length_and_both_halves_of_a_pass(filler: str, skipping: int, ext: ModuleType) -> None:
    """The rolled pass rolls two hashes, one from the start and one from the middle, and probes the
    second half's windows after the first half's; the skipping pass starts at the end of the first
    window and stops at the text's end: at every text length (an odd or even number of windows, one
    window, none), a seed at the start, across the middle, at the end and in both halves is found, its
    first `cap` starts in text order, by either pass."""
    rng = random.Random(f"near-miss-index/halves/{filler}")
    for n in range(0, 160):
        text = "".join(rng.choice(filler) for _ in range(n))
        mid = n // 2
        seeds = [text[a : a + size] for a, size in ((0, 8), (max(0, mid - 5), 11), (max(0, n - 9), 9)) if a + size <= n]
        seeds += [text[:8] + "!" if n >= 8 else "nowhere!", (filler * 8)[:8]]
        for cap in (1, 2, 200):
            assert ext.first_hits(text, seeds, cap, skipping) == seed_hits.first_hits_py(text, seeds, cap), (n, cap)


@pytest.mark.parametrize("skipping", [2, 1, 0], ids=["skipping", "chosen", "rolled"])
def test_a_pass_longer_than_its_chunks(skipping: int, ext: ModuleType) -> None:
    """The rolled pass takes the windows 65,536 at a time (two hashes in each chunk): in a text of over
    two chunks where every window repeats, every seed's first `cap` starts come in text order, a seed
    that starts across a chunk's edge included (and so with the skipping pass)."""
    rng = random.Random("near-miss-index/chunks")
    chunk = 1 << 16
    text = "".join(rng.choice("ab") for _ in range(2 * chunk + 3_000))
    seeds = [text[at : at + size] for at, size in ((chunk - 4, 9), (chunk - 8, 8), (chunk - 1, 10), (chunk, 8), (2 * chunk - 3, 12), (2 * chunk - 1, 8))]
    seeds += ["abababab", "aaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"]
    for cap in (1, 7, 5_000):
        assert ext.first_hits(text, seeds, cap, skipping) == seed_hits.first_hits_py(text, seeds, cap), cap


@pytest.mark.parametrize("case", range(40))
def test_the_skipping_pass_finds_every_start(case: int, ext: ModuleType) -> None:
    """The skipping pass (Wu-Manber over the seeds' first m characters, m the shortest seed's length)
    moves on by the least distance any seed allows: against the pure-Python search, on texts of few
    letters (every trigram in some seed: no skip) and of many (long skips), seeds of 8 to 90
    characters (m up to the 64 the table holds), of every string kind, overlapping, repeated, sharing
    their first 8 characters, some absent, with caps that cut a seed's starts short."""
    rng = random.Random(f"near-miss-index/skipping/{case}")
    alphabet = rng.choice(["ab", "abc", "abcdefghij klmnopqrstuvwxyz", "aé b", "語の文あ", "a😀b", "xyz\u2014 q"])
    text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 3_000)))
    lo = rng.choice([8, 8, 12, 30, 70])
    seeds = []
    for _ in range(rng.randrange(1, 60)):
        size = rng.randrange(lo, lo + 20)
        if text and rng.random() < 0.8 and len(text) > size:
            at = rng.randrange(len(text) - size)
            seeds.append(text[at : at + size])
        else:
            seeds.append("".join(rng.choice(alphabet + "Z") for _ in range(size)))
    if len(seeds) > 1 and rng.random() < 0.5:
        seeds.append(seeds[0][:8] + seeds[1][8:] + "b")  # the first 8 of one, the rest of another
    for cap in (1, 3, 200):
        want = seed_hits.first_hits_py(text, seeds, cap)
        for skipping in (2, 1, 0):  # always skipping, skipping where a sample shows it pays, rolled
            assert ext.first_hits(text, seeds, cap, skipping) == want, (cap, skipping)


def test_the_pass_is_chosen_by_how_far_it_skips_on_the_text(ext: ModuleType) -> None:
    """Many seeds sharing most trigrams of the text: the skipping pass would move on by one or two, so
    the rolled pass runs; a few seeds of other words: it skips (the sampled average shift decides, and
    either pass gives the same starts)."""
    rng = random.Random("near-miss-index/chosen")
    words = ["council", "budget", "river", "policy", "market", "seven", "approved", "the", "of", "a"]
    text = " ".join(rng.choice(words) for _ in range(20_000))
    many = sorted({text[a : a + 10] for a in (rng.randrange(len(text) - 10) for _ in range(2_000))})
    few = ["zebra quota", "xylophone z"]
    assert ext.skip_shift(text, many) < 2 < 8 < ext.skip_shift(text, few)
    for seeds in (many, few):
        want = seed_hits.first_hits_py(text, seeds, 200)
        assert ext.first_hits(text, seeds, 200, 1) == want == ext.first_hits(text, seeds, 200, 0)


def test_compiled_seed_search_refuses_short_seeds(ext: ModuleType) -> None:
    with pytest.raises(ValueError, match="at least 8"):
        ext.first_hits("some text here", ["short"], 5)
    # the public function never hands it one: short seeds take the pure-Python path
    assert seed_hits.first_hits("some text here", ["text", "some text"], 5, compiled=ext) == [[5], [0]]


def long_source(tmp_path: Path, lang: str) -> tuple[object, str]:
    rng = random.Random(f"near-miss-index/long/{lang}")
    text = generated_text(rng, lang, 9000)
    assert len(text) > FULL_SEARCH_LIMIT
    path = tmp_path / f"long-{lang}.txt"
    path.write_text(text, "utf-8")
    ix = index_source(path.stem, str(path), GateConfig(cache_dir=tmp_path / "cache"))
    return ix, ix.primary.text


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_nearest_passages_are_the_same_with_either_seed_search(
    lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ext: ModuleType
) -> None:
    ix, text = long_source(tmp_path, lang)
    rng = random.Random(f"near-miss-index/passages/{lang}")
    quotes = [q for q in generated_quotes(rng, text, lang, 150) if q not in text]
    results = []
    for which in (ext, None):
        with monkeypatch.context() as m:
            m.setattr(seed_hits, "_EXT", which)
            m.setattr(quote_scan, "_seed_candidates", quote_scan._seed_candidates)
            got = nearest_passages(quotes, ix)  # type: ignore[arg-type]
            results.append({qi: (ev.start, ev.end, score, passage) for qi, (ev, score, passage) in got.items()})
    with monkeypatch.context() as m:
        m.setattr(quote_scan, "_seed_candidates", former_seed_candidates)
        former = nearest_passages(quotes, ix)  # type: ignore[arg-type]
    want = {qi: (ev.start, ev.end, score, passage) for qi, (ev, score, passage) in former.items()}
    assert results[0] == results[1] == want
    assert len(want) > 30


def test_a_quote_sharing_no_seed_with_a_long_source_gets_no_alignment(tmp_path: Path) -> None:
    ix, _text = long_source(tmp_path, "en")
    absent = "zebras quickly vex jumpy wolves in quartz"  # no 8-character piece of it is in the text
    near = "the council approved the old budget for the river"
    got = nearest_passages([absent, near], ix)  # type: ignore[arg-type]
    assert 0 not in got  # reported as absent, "nor anything close to it"
    _evidence, score, passage = got[1]
    assert score < 100 and "budget" in passage  # a similarity, never a match


def test_pure_python_is_forced_by_the_environment() -> None:
    import subprocess
    import sys

    code = "from claimledger.checks import seed_hits; print(seed_hits.compiled() is None)"
    for value, pure in (("1", True), ("0", False)):
        env = {**os.environ, "CLAIMLEDGER_PURE_PYTHON": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == str(pure)


def test_no_near_miss_search_for_a_quote_already_found_in_another_source(tmp_path: Path) -> None:
    """A quote found verbatim in a source scanned earlier is reported as misattributed
    (checks/quote.py), so its cited source spends no alignment on it; a quote found nowhere
    still gets its nearest passage."""
    from claimledger.checks.quote_scan import scan_quotes

    config = GateConfig(cache_dir=tmp_path / "cache")
    files = {
        "a": "Forty percent of households reported higher energy costs than last year. " * 3,
        "b": "Forty percent of households reported higher water costs than last year. "
        + generated_text(random.Random(3), "en", 9000),
    }
    for sid, text in files.items():
        (tmp_path / f"{sid}.txt").write_text(text, "utf-8")
    misattributed = normalize_quote("forty percent of households reported higher energy costs")
    nowhere = normalize_quote("forty percent of households reported higher heating costs")
    own = normalize_quote("higher energy costs than last year")
    keys = [("a", own), ("b", misattributed), ("b", nowhere)]
    results = scan_quotes(keys, lambda sid: index_source(sid, str(tmp_path / f"{sid}.txt"), config), ["a", "b"])
    assert results[("a", own)].found is not None
    got = results[("b", misattributed)]
    assert got.found is None and got.elsewhere is not None and got.elsewhere.source == "a"
    assert got.near is None
    near = results[("b", nowhere)].near
    assert near is not None and "water costs" in near[2] and near[1] < 100


def test_hyphen_reading_finds_the_same_with_the_anchors_found_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hyphenated quotes missing from the joined reading are looked for in the hyphen-keeping one
    around the first occurrences of their longest piece; with many such quotes those occurrences
    come from one pass (_anchor_starts) instead of a search per quote, with the same result."""
    from claimledger.checks import quote_scan as qs

    rng = random.Random("near-miss-index/hyphen")
    compounds = ["well-\nknown", "long-\nterm", "cost-\nbenefit", "self-\nreported", "state-\nowned",
                 "二〇二四年-\n調査", "high-\nincome"]  # fmt: skip
    parts = []
    for _ in range(3000):
        parts.append(" ".join(rng.choice(EN_WORDS) for _ in range(rng.randrange(2, 9))))
        if rng.random() < 0.3:
            parts.append(rng.choice(compounds))
    apart = " " + "council " * 30  # wider than the window around an occurrence
    capped = apart.join(["the great survey"] * (qs._MAX_ANCHOR_TRIES - 1))  # then the last tried, and one more
    text = " ".join(parts) + " " + capped + apart + "the great survey-\nbased," + apart + "the great survey-\nled"
    path = tmp_path / "hyphens.txt"
    path.write_text(text, "utf-8")
    ix = index_source("hyphens", str(path), GateConfig(cache_dir=tmp_path / "cache"))
    quotes = [normalize_quote(q) for q in (
        "well-known", "long-term costs", "cost-benefit", "self-reported households", "state-owned market",
        "二〇二四年-調査", "high-income households", "the great survey-based", "the great survey-led",  # the cap
        "well-known and long-term", "never-ending budget", "forty-two percent", "river-side project",
        "council-approved budget", "always-on policy market", "seven-year plan", "market-wide policy",
        "households-reported", "policy-market survey", "according-to-survey",
    )]  # fmt: skip
    own = [q for q in quotes if q not in ix.primary.text]
    assert len({qs._anchor(q) for q in own}) >= qs._BATCH_ANCHORS
    assert len(qs._anchor_starts(ix.primary.text, own)) >= qs._BATCH_ANCHORS  # the batch does run
    batched = qs._locate(qs.PatternSet(quotes), own, ix)
    with monkeypatch.context() as m:
        m.setattr(qs, "_BATCH_ANCHORS", 10**9)
        assert qs._anchor_starts(ix.primary.text, own) == {}
        one_by_one = qs._locate(qs.PatternSet(quotes), own, ix)
    assert batched == one_by_one
    found = {q for q, at in batched.items() if q in own}
    assert {"well-known", "long-term costs", "self-reported households", "the great survey-based"} <= found
    assert "never-ending budget" not in found and "the great survey-led" not in found
