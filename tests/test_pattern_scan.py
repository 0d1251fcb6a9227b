"""The first occurrence of every quote in a source: the compiled pass and the Aho-Corasick one agree.

`PatternSet.first_positions` is the verbatim scan of every quote over every source (pass 1 and the
misattribution pass of checks/quote_scan.py). With the compiled seed search it runs in compiled
passes over tables built once (windows of 16 characters for patterns of at least 16, of 8 for those
of 8 to 15; the patterns long enough for it in a strided pass, which reads one window of the text in
`stride`); the Aho-Corasick automaton stays the path for patterns shorter than 8 characters and
the oracle.
"""

from __future__ import annotations

import random

import pytest

from claimledger.checks import seed_hits
from claimledger.checks.quote_scan import PatternSet, _stride


@pytest.fixture(autouse=True)
def _compiled() -> None:
    if seed_hits.compiled() is None:  # pragma: no cover - the message is the point
        pytest.fail("the seed search claimledger._cseeds is not built (or CLAIMLEDGER_PURE_PYTHON is set): "
                    "reinstall with a C compiler (`rm .venv/.installed-dev && make test`)")  # fmt: skip


EN = "the model reduced errors by 37 percent in the 2019 trial and the data show it "
JA = "日本語の文章では、モデルは誤りを三七パーセント減らした。データがそれを示す。"


def _case(rng: random.Random, alphabet: str) -> tuple[str, list[str]]:
    text = "".join(rng.choice((alphabet, alphabet[::-1], alphabet[5:40])) for _ in range(rng.randint(0, 30)))
    patterns: list[str] = []
    for _ in range(rng.randint(1, 40)):
        size = rng.choice((rng.randint(1, 7), rng.randint(8, 15), rng.randint(16, 60), rng.randint(16, 60)))
        if len(text) >= size and rng.random() < 0.6:
            at = rng.randint(0, len(text) - size)
            patterns.append(text[at : at + size])
        else:
            patterns.append("".join(rng.choice(alphabet) for _ in range(size)))
    return text, patterns


@pytest.mark.parametrize("alphabet", [EN, JA, EN + "😀é" + JA], ids=["en", "ja", "mixed-widths"])
def test_the_compiled_pass_finds_the_same_first_starts(alphabet: str) -> None:
    rng = random.Random(19)
    for _ in range(300):
        text, patterns = _case(rng, alphabet)
        fast, oracle = PatternSet(patterns, compiled=True), PatternSet(patterns, compiled=False)
        assert fast.compiled and not oracle.compiled
        assert fast.first_positions(text) == oracle.first_positions(text)


def test_overlapping_and_repeated_quotes() -> None:
    text = "aaaaaaaaaaaaaaaa the same phrase, the same phrase again, the same phrase."
    patterns = ["aaaaaaaaa", "aaaaaaaaaaaaaaaa", "the same phrase", "same phrase again", "phrase, the same"]
    fast = PatternSet(patterns, compiled=True).first_positions(text)
    assert fast == PatternSet(patterns, compiled=False).first_positions(text)
    assert fast["aaaaaaaaa"] == 0 and fast["the same phrase"] == 17 and fast["same phrase again"] == 38


def test_a_short_pattern_goes_to_the_automaton_and_the_others_stay_compiled() -> None:
    # 4 characters: below the compiled search's 8; 10: windows of 8; 22: windows of 16
    patterns = ["37 percent", "短い引用", "reduced errors by 37 p"]
    ps = PatternSet(patterns, compiled=True)
    assert [(g.compiled, g.seeds) for g in ps._groups] == [
        (True, ["reduced errors by 37 p"]), (True, ["37 percent"]), (False, ["短い引用"])
    ]  # fmt: skip
    text = "誤りは短い引用で37 percent減った; it reduced errors by 37 percent"
    assert ps.first_positions(text) == {"短い引用": 3, "37 percent": 8, "reduced errors by 37 p": 26}
    assert ps.first_positions(text) == PatternSet(patterns, compiled=False).first_positions(text)


def test_many_quotes_that_share_their_first_words() -> None:
    """Quotes start at words, so thousands share their first 8 or 16 characters: every one is still
    found at its own first start (the table chains the seeds of one hash)."""
    rng = random.Random(7)
    words = EN.split()
    text = " ".join(rng.choice(words) for _ in range(4000))
    toks = text.split()
    patterns = [" ".join(toks[i : i + rng.randint(2, 9)]) for i in rng.sample(range(len(toks) - 10), 600)]
    patterns += [" ".join(rng.choice(words) for _ in range(6)) for _ in range(300)]  # many absent
    fast = PatternSet(patterns, compiled=True)
    assert fast.first_positions(text) == PatternSet(patterns, compiled=False).first_positions(text)


def test_one_table_serves_many_texts_and_repeated_seeds() -> None:
    seeds = ["the same phrase", "same phrase again", "the same phrase", "aaaaaaaa"]
    for compiled in (True, False):
        find = seed_hits.FirstStarts(seeds, 8, compiled=compiled)
        assert find.compiled is compiled
        assert find("the same phrase again") == {0: 0, 1: 4, 2: 0}
        assert find("xx aaaaaaaaa") == {3: 3}
        assert find("") == {} and find("nothing here") == {}


def test_few_and_many_seeds_without_the_compiled_table_agree() -> None:
    """Up to 32 seeds, the pure-Python path runs str.find for each; above, the automaton."""
    rng = random.Random(3)
    for _ in range(200):
        text, patterns = _case(rng, EN + JA)
        patterns = patterns[:32]
        few = seed_hits.FirstStarts(patterns, compiled=False)
        many = seed_hits.FirstStarts(patterns + [f"absent {i} {JA}" for i in range(40)], compiled=False)
        assert few._automaton is None and many._automaton is not None
        assert few(text) == {i: at for i, at in many(text).items() if i < len(patterns)}


def test_the_compiled_table_refuses_what_it_cannot_take() -> None:
    ext = seed_hits.compiled()
    assert ext is not None
    with pytest.raises(ValueError, match="at least 16 characters"):
        ext.prepare(["long enough seed", "short seed"], 16)
    with pytest.raises(ValueError, match="between 8 and 64"):
        ext.prepare(["long enough seed"], 4)
    with pytest.raises(ValueError):
        ext.first_starts(object(), "some text")  # not a table: an error, never a crash
    # a seed shorter than k falls back to the automaton, with the same answer
    find = seed_hits.FirstStarts(["a seed of 12", "a much longer seed here"], 16)
    assert not find.compiled
    assert find("x a seed of 12 and a much longer seed here") == {0: 2, 1: 19}


@pytest.mark.parametrize("alphabet", [EN, JA, EN + "😀é" + JA, "ab"], ids=["en", "ja", "mixed-widths", "two-letters"])
def test_the_strided_pass_finds_every_first_start(alphabet: str) -> None:
    """A strided table (windows at each seed's first `stride` offsets) read at every `stride`-th
    position of the text finds the first start of every seed, whatever the text's offset modulo the
    stride, the seeds' string kinds and repeats (str.find is the oracle)."""
    ext = seed_hits.compiled()
    assert ext is not None
    rng = random.Random(31)
    for _ in range(400):
        k, stride = rng.randint(8, 20), rng.choice((2, 3, 5, 8, 16, 17))
        text = "".join(rng.choice((alphabet, alphabet[::-1], alphabet[3:30], "abc")) for _ in range(rng.randint(0, 20)))
        seeds = []
        for _ in range(rng.randint(1, 30)):
            size = rng.randint(k + stride - 1, k + stride + 40)
            if len(text) >= size and rng.random() < 0.7:
                at = rng.randint(0, len(text) - size)
                seeds.append(text[at : at + size])
            else:
                seeds.append("".join(rng.choice(alphabet + "abc") for _ in range(size)))
        seeds += seeds[: rng.randint(0, 2)]  # repeated seeds: each index answers
        want = {i: text.find(s) for i, s in enumerate(seeds) if s in text}
        assert ext.first_starts(ext.prepare(seeds, k, stride), text) == want


def test_an_ascii_quote_is_found_in_a_wider_text_by_the_strided_pass() -> None:
    ext = seed_hits.compiled()
    assert ext is not None
    seed = "reduced errors by 37 percent in the 2019 trial"  # 1 byte per character
    for text in (JA + seed + JA, "😀" + seed, "é" * 5 + seed + seed):  # 2, 4 and 1 bytes per character
        table = ext.prepare([seed], 16, 16)
        assert ext.first_starts(table, text) == {0: text.find(seed)}


@pytest.mark.parametrize("stride", [2, 16])
def test_the_strided_pass_across_its_blocks_of_windows(stride: int) -> None:
    """The strided pass hashes a block of windows, then probes those its filter let through: a seed
    that starts just before, at or after a block's edge (64 windows of `stride` characters) is found,
    in a text of every length around one and two blocks."""
    ext = seed_hits.compiled()
    assert ext is not None
    rng = random.Random(f"pattern-scan/blocks/{stride}")
    span = 64 * stride
    for n in sorted({span - 1, span, span + 1, span + 17, 2 * span - 3, 2 * span, 2 * span + 40}):
        text = "".join(rng.choice("abcdefgh ") for _ in range(n))
        size = 16 + stride - 1 + 3
        starts = [a for a in (0, span - size, span - 1, span, span + 1, 2 * span - size, n - size) if 0 <= a <= n - size]
        seeds = [text[a : a + size] for a in starts] + ["z" * size]
        want = {i: text.find(s) for i, s in enumerate(seeds) if s in text}
        assert ext.first_starts(ext.prepare(seeds, 16, stride), text) == want, n


def test_patterns_go_to_the_strided_pass_by_length() -> None:
    patterns = ["37 percent", "短い引用", "reduced errors by 37 p", "it reduced errors by 37 percent in 2019"]
    ps = PatternSet(patterns, compiled=True)
    assert [(g.compiled, g.seeds) for g in ps._groups] == [
        (True, ["it reduced errors by 37 percent in 2019"]),  # 39 >= 16 + 16 - 1: strided
        (True, ["reduced errors by 37 p"]),  # 22: every 16-character window
        (True, ["37 percent"]),
        (False, ["短い引用"]),
    ]  # fmt: skip
    text = "誤りは短い引用で37 percent減った; it reduced errors by 37 percent in 2019"
    assert ps.first_positions(text) == PatternSet(patterns, compiled=False).first_positions(text)
    # chosen by the code (compiled=None), a group of a few patterns is looked for with str.find
    auto = PatternSet(patterns)
    assert [g.compiled for g in auto._groups] == [False] * 4
    assert auto.first_positions(text) == ps.first_positions(text)
    many = [f"pattern number {i:05d} of the run" for i in range(10)]
    assert PatternSet(many)._groups[0].compiled


def test_the_stride_shrinks_as_the_table_grows() -> None:
    assert [_stride(n) for n in (0, 1, 10_000, 10_001, 20_000, 40_000, 80_000, 80_001, 1_000_000)] == [
        16, 16, 16, 8, 8, 4, 2, 1, 1
    ]  # fmt: skip


def test_the_strided_table_refuses_what_it_cannot_take() -> None:
    ext = seed_hits.compiled()
    assert ext is not None
    with pytest.raises(ValueError, match="at least 19 characters"):
        ext.prepare(["long enough seed here", "eighteen chars ok!"], 16, 4)
    for stride in (0, 65):
        with pytest.raises(ValueError, match="stride must be between 1 and 64"):
            ext.prepare(["long enough seed"], 8, stride)
    # a seed too short for the stride: FirstStarts falls back, with the same answer
    find = seed_hits.FirstStarts(["a seed of twenty chr", "a much longer seed here, long enough"], 16, stride=16)
    assert not find.compiled
    text = "x a seed of twenty chr and a much longer seed here, long enough"
    assert find(text) == {0: 2, 1: text.index("a much")} == {0: 2, 1: 27}


@pytest.mark.parametrize("compiled", [True, False, None], ids=["compiled", "automaton", "chosen-by-the-code"])
def test_muted_patterns_are_not_looked_for_and_the_others_are_unchanged(compiled: bool | None) -> None:
    """The scan mutes a quote that no later source can tell anything of (found where each claim
    cites it, or found elsewhere): the passes leave it out (a skip mask read by the compiled pass,
    a filter on the other paths), every other first start is the same."""
    rng = random.Random(23)
    for _ in range(150):
        text, patterns = _case(rng, EN + "😀é" + JA)
        patterns += [text[i : i + 40] for i in range(0, max(0, len(text) - 40), 97)]  # strided ones
        ps = PatternSet(patterns, compiled=compiled)
        want = PatternSet(patterns, compiled=False).first_positions(text)
        muted = set(rng.sample(sorted(set(patterns)), k=len(set(patterns)) // 2))
        for p in muted:
            ps.mute(p)
        assert ps.first_positions(text) == {p: at for p, at in want.items() if p not in muted}
        for p in muted:
            ps.mute(p, False)
        assert ps.first_positions(text) == want


def test_a_prescan_taken_earlier_gives_the_scan_of_now() -> None:
    """The compiled passes run ahead on the reading thread (:meth:`PatternSet.prescan`) with the
    mutes of that moment, the source's own quotes unmuted; by the time the scan takes their answer
    more quotes are muted (placed), and some of its own are unmuted again: the answer is the one
    a pass at that moment gives."""
    rng = random.Random(29)
    compiled_groups = 0
    for _ in range(150):
        text, patterns = _case(rng, EN + "😀é" + JA)
        patterns += [text[i : i + 40] for i in range(0, max(0, len(text) - 40), 97)]
        patterns += [text[i : i + 12] for i in range(3, max(0, len(text) - 12), 89)]
        distinct = sorted(set(patterns))
        ps = PatternSet(patterns)
        before = set(rng.sample(distinct, k=len(distinct) // 3))  # muted when the prescan runs
        own = rng.sample(distinct, k=len(distinct) // 4)  # the source's quotes: unmuted when it is scanned
        for p in before:
            ps.mute(p)
        early = ps.prescan(text, own)
        compiled_groups += sum(g is not None for g in early)
        later = set(rng.sample(distinct, k=len(distinct) // 3))  # placed since (muted for good)
        for p in later:
            ps.mute(p)
        for p in own:  # the scan unmutes the source's own quotes that are not settled
            if rng.random() < 0.7:
                ps.mute(p, False)
        assert ps.first_positions(text, early) == ps.first_positions(text)
    assert compiled_groups > 100  # the compiled passes were the ones run ahead


def test_the_skip_mask_must_name_every_seed() -> None:
    ext = seed_hits.compiled()
    assert ext is not None
    for stride in (1, 4):
        table = ext.prepare(["long enough seed here", "another long seed here"], 8, stride)
        text = "x another long seed here, long enough seed here"
        assert ext.first_starts(table, text, bytearray(b"\x00\x01")) == {0: text.index("long enough")}
        assert ext.first_starts(table, text, b"\x01\x01") == {}
        assert ext.first_starts(table, text, None) == ext.first_starts(table, text) == {0: 26, 1: 2}
        with pytest.raises(ValueError, match="one byte per seed"):
            ext.first_starts(table, text, bytearray(3))
        with pytest.raises(TypeError):
            ext.first_starts(table, text, "not a mask")
