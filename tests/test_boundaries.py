"""Where a literal match may start and end (checks/boundaries.py), and the bounded search of an
elided quote's next segment.

An elided quote's later segments are looked for only a bounded gap after the segment before; the
search used to read on to the end of the source whenever the segment was not there (39 % of a run
with 5,000 absent quotes over 5 MB sources). ``find_whole(..., last=)`` stops at the gap's end and
must give exactly the unbounded answer wherever that answer lies within it.
"""

from __future__ import annotations

import random

import pytest

from claimledger.checks.boundaries import find_whole, on_boundaries


@pytest.mark.parametrize(
    ("text", "quote", "found"),
    [
        ("the 137 percent rise", "37 percent", -1),
        ("a 37 percent rise", "37 percent", 2),
        ("nowhere now", "now", 8),
        ("it grew 1.5 times", "1", -1),
        ("日本語では37パーセント増えた", "37パーセント", 5),  # CJK letters do not bind; digits do
        ("日本語では137パーセント増えた", "37パーセント", -1),
    ],
)
def test_a_match_never_cuts_a_word_or_a_number(text: str, quote: str, found: int) -> None:
    assert find_whole(text, quote) == found
    if found >= 0:
        assert on_boundaries(text, found, found + len(quote))


def test_the_bounded_search_agrees_with_the_unbounded_one() -> None:
    rng = random.Random(5)
    for alphabet in ("ab 1.,x", "語の 1２,"):
        for _ in range(20_000):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
            quote = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4)))
            start, last = rng.randint(0, 45), rng.randint(-3, 50)
            unbounded = find_whole(text, quote, start)
            assert find_whole(text, quote, start, last) == (unbounded if unbounded <= last else -1)
            assert find_whole(text, quote, start, None) == unbounded


def _rule(text: str, start: int, end: int) -> bool:
    """The rule as first written (a letter or digit of a script with word spaces on both sides, or
    a number cut): the oracle of the reordered tests of :func:`on_boundaries`."""
    from claimledger.normalize import is_cjk

    def word(ch: str) -> bool:
        return ch.isalnum() and not is_cjk(ch)

    for a, b, before, after in (
        (start - 1, start, start - 2, None),
        (end - 1, end, None, end + 1),
    ):
        if a < 0 or b >= len(text):
            continue
        x, y = text[a], text[b]
        if (word(x) and word(y)) or (x.isdigit() and y.isdigit()):
            return False
        if before is not None and y.isdigit() and x in ".," and before >= 0 and text[before].isdigit():
            return False
        if after is not None and x.isdigit() and y in ".," and after < len(text) and text[after].isdigit():
            return False
    return True


def test_the_boundary_tests_in_any_order_give_the_rule() -> None:
    """Every span of every three-character text over letters, digits (ASCII, full-width, kanji,
    superscript, Arabic-Indic), CJK, punctuation and spaces: the same answer as the rule."""
    chars = "aZ09 .,-é" + "あ漢１Ａ٣²½〇二😀\u3000가"
    n = 0
    for x in chars:
        for y in chars:
            for z in chars:
                text = x + y + z
                for start in range(3):
                    for end in range(start + 1, 4):
                        assert on_boundaries(text, start, end) == _rule(text, start, end), (text, start, end)
                        n += 1
    assert n == len(chars) ** 3 * 6
