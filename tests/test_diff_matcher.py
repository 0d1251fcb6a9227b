"""The word diff's matcher gives difflib's answer (issue 19, per-claim cost).

:class:`claimledger.checks.diff.TokenMatcher` finds the longest matching block by string search
instead of difflib's loop over pairs of equal tokens; every block, and so every opcode and every
word diff, must be the one ``difflib.SequenceMatcher(None, a, b, autojunk=False)`` gives. Checked
on generated token lists from small alphabets (many ties between equally long blocks, the case
where the tie-break decides the diff), on difflib's own examples, and on near misses cut from the
repository's English and Japanese texts.
"""

from __future__ import annotations

import difflib
import random
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from claimledger.checks import seed_hits
from claimledger.checks.diff import (
    _CJK_TABLE,
    TokenMatcher,
    tokens,
    word_diff,
    word_diff_opcodes,
    word_diff_py,
)
from claimledger.normalize import is_cjk

ROOT = Path(__file__).parent.parent


def _difflib(a: list[str], b: list[str]) -> difflib.SequenceMatcher[str]:
    return difflib.SequenceMatcher(None, a, b, autojunk=False)


def _same(a: list[str], b: list[str]) -> None:
    ours, theirs = TokenMatcher(a, b), _difflib(a, b)
    # the pure-Python blocks (difflib's get_matching_blocks over our find_longest_match), then ours
    # (compiled when built)
    assert difflib.SequenceMatcher.get_matching_blocks(TokenMatcher(a, b)) == theirs.get_matching_blocks()
    assert ours.get_matching_blocks() == theirs.get_matching_blocks()
    assert ours.get_opcodes() == theirs.get_opcodes()
    for alo, ahi, blo, bhi in [(0, len(a), 0, len(b)), (len(a) // 3, len(a), 0, min(len(b), len(b) // 2 + 1))]:
        assert ours.find_longest_match(alo, ahi, blo, bhi) == theirs.find_longest_match(alo, ahi, blo, bhi)


@given(st.lists(st.sampled_from("ab "), max_size=30), st.lists(st.sampled_from("ab "), max_size=30))
def test_two_letters_and_a_space(a: list[str], b: list[str]) -> None:
    _same(a, b)


@given(st.lists(st.sampled_from(["the", " ", "cat", "sat", "on", "mat", "猫", "、"]), max_size=40), st.data())
def test_a_list_and_an_edit_of_it(a: list[str], data: st.DataObject) -> None:
    """A near miss: the same tokens with a few replaced, inserted or deleted."""
    b = list(a)
    for _ in range(data.draw(st.integers(0, 4))):
        op = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        at = data.draw(st.integers(0, len(b)))
        if op == "insert" or not b:
            b.insert(at, data.draw(st.sampled_from(["the", " ", "dog", "ran"])))
        elif op == "replace":
            b[min(at, len(b) - 1)] = data.draw(st.sampled_from(["the", " ", "dog", "ran"]))
        else:
            del b[min(at, len(b) - 1)]
    _same(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [(" abcd", "abcd abcd"), ("ab", "acab"), ("abxcd", "abcd"), ("ab", "c"), ("", ""), ("", "abc"), ("aaaa", "aa")],
)
def test_difflibs_own_examples(a: str, b: str) -> None:
    _same(list(a), list(b))


def _sentences() -> list[str]:
    texts: list[str] = []
    for lang in ("en", "ja"):
        data = yaml.safe_load((ROOT / "tests" / "corpus" / f"overclaim_{lang}.yaml").read_text(encoding="utf-8"))
        for case in data["overclaim"] + data["faithful"]:
            texts += [case[k] for k in ("quote", "statement", "context") if case.get(k)]
    for path in sorted((ROOT / "docs").glob("*.md")):
        texts += [s.strip() for s in re.split(r"(?<=[.。])\s*", path.read_text(encoding="utf-8")) if len(s.strip()) > 20]
    return texts


def test_near_misses_of_real_sentences() -> None:
    """A sentence against a mutated copy (a word changed, dropped, repeated; a space doubled):
    the word diff is the one difflib gives, English and Japanese."""
    rng = random.Random(19)
    sentences = _sentences()
    assert sum(any("\u3040" <= ch <= "\u9fff" for ch in s) for s in sentences) > 100
    for s in sentences:
        toks = tokens(s)
        for _ in range(3):
            t = list(toks)
            j = rng.randrange(len(t))
            t[j : j + 1] = rng.choice([[], ["zebra"], [t[j], t[j]], ["猫"], [" ", " "]])
            passage = "".join(t)
            a, b = tokens(s), tokens(passage)
            _same(a, b)
            expected = []
            for op, i1, i2, j1, j2 in _difflib(a, b).get_opcodes():
                if op == "equal":
                    expected.append("".join(a[i1:i2]))
                    continue
                expected += ["[-" + "".join(a[i1:i2]) + "-]"] if i2 > i1 else []
                expected += ["{+" + "".join(b[j1:j2]) + "+}"] if j2 > j1 else []
            assert word_diff(s, passage) == "".join(expected)


_ALPHABET = "ab 猫、\t\u3000\u00a0\U0001f600\U00020000"


@given(st.text(alphabet=_ALPHABET, max_size=40), st.text(alphabet=_ALPHABET, max_size=40))
def test_word_diff_reads_the_blocks_as_the_opcodes_do(quote: str, passage: str) -> None:
    """The Python reading of the blocks and the compiled word diff (when built) against difflib's opcodes."""
    want = word_diff_opcodes(quote, passage)
    assert word_diff_py(quote, passage) == want
    assert word_diff(quote, passage) == want


def test_the_compiled_word_diff_on_real_near_misses() -> None:
    rng = random.Random(29)
    for s in _sentences():
        for _ in range(3):
            t = tokens(s)
            j = rng.randrange(len(t))
            t[j : j + 1] = rng.choice([[], ["zebra"], [t[j], t[j]], ["猫"], [" ", " "], ["\u3000"]])
            passage = "".join(t)
            assert word_diff(s, passage) == word_diff_py(s, passage) == word_diff_opcodes(s, passage)


def test_the_compiled_word_diff_cuts_tokens_as_tokens_does_on_every_code_point() -> None:
    """``x?y`` against ``x y``: ``?`` is a token of its own (whitespace or CJK) or part of a word."""
    ext = seed_hits.compiled()
    if ext is None or not hasattr(ext, "word_diff"):
        pytest.skip("the compiled extension is not built (or CLAIMLEDGER_PURE_PYTHON is set)")
    wrong = []
    for cp in range(0x110000):
        ch = chr(cp)
        alone = ch.isspace() or is_cjk(ch)
        want = "x y" if ch == " " else f"x[-{ch}-]{{+ +}}y" if alone else f"[-x{ch}y-]{{+x y+}}"
        if ext.word_diff(f"x{ch}y", "x y", _CJK_TABLE) != want:
            wrong.append(cp)
    assert wrong == []


def test_the_compiled_blocks_are_difflibs() -> None:
    """``_cseeds.matching_blocks`` on long token lists (a few hundred tokens, many repeats and ties)."""
    ext = seed_hits.compiled()
    if ext is None:
        pytest.skip("the compiled extension is not built (or CLAIMLEDGER_PURE_PYTHON is set)")
    rng = random.Random(23)
    for _ in range(300):
        vocab = rng.choice([["a", " "], ["the", " ", "cat", "猫", "、"], [str(i) for i in range(40)]])
        a = [rng.choice(vocab) for _ in range(rng.randrange(0, 300))]
        b = list(a) if rng.random() < 0.5 else [rng.choice(vocab) for _ in range(rng.randrange(0, 300))]
        for _ in range(rng.randrange(0, 8)):
            at = rng.randrange(len(b) + 1)
            b[at : at + rng.randrange(0, 3)] = [rng.choice(vocab) for _ in range(rng.randrange(0, 3))]
        want = [tuple(m) for m in _difflib(a, b).get_matching_blocks()]
        assert ext.matching_blocks(a, b) == want
    with pytest.raises(TypeError):
        ext.matching_blocks(["a", 1], ["a"])
