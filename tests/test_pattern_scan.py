"""The first occurrence of every quote in a source: the compiled pass and the Aho-Corasick one agree.

`PatternSet.first_positions` is the verbatim scan of every quote over every source (pass 1 and the
misattribution pass of checks/quote_scan.py). With the compiled seed search it runs in one C pass;
the Aho-Corasick automaton stays the path for patterns shorter than 8 characters and the oracle.
"""

from __future__ import annotations

import random

import pytest

from claimledger.checks import seed_hits
from claimledger.checks.quote_scan import PatternSet


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
        size = rng.randint(8, 60)
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


def test_a_short_pattern_keeps_the_automaton() -> None:
    patterns = ["37 percent", "短い引用"]  # 4 characters: below the compiled search's 8
    ps = PatternSet(patterns, compiled=True)
    assert not ps.compiled
    assert ps.first_positions("誤りは短い引用で37 percent減った") == {"短い引用": 3, "37 percent": 8}
