"""split_elided answers None at once for a quote without '[', '...' or '略' (issue 19, per-claim cost:
the mark pattern starts with optional spaces, so its search tried every position of every quote not
found verbatim). Every mark the pattern knows holds one of the three: the quick test hides none."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from claimledger.checks.elisions import _MARK, split_elided

_MARKISH = ["[", "]", ".", "..", "...", "\u2026", "(", ")", "（", "）", "略", "中略", "〔", "〕", " ", "\u3000", "\n", "a",
            "7", "the", "[the]", "[...]", "[ ... ]", "(中略)", "( 略 )", "〔略〕", "〔 中略 〕"]  # fmt: skip


@given(st.lists(st.sampled_from(_MARKISH), max_size=16))
def test_the_quick_test_never_hides_a_mark(parts: list[str]) -> None:
    quote = "".join(parts)
    if "[" not in quote and "..." not in quote and "略" not in quote:
        assert _MARK.search(quote) is None and split_elided(quote) is None, quote


def test_each_kind_of_mark_is_still_split() -> None:
    for quote in ("the model [...] reduced errors", "the model ... reduced errors", "[The river trek] will be strict",
                  "モデルは(中略)誤りを減らした", "モデルは〔略〕誤りを減らした"):  # fmt: skip
        found = split_elided(quote)
        assert found is not None and len(found.segments) >= 1, quote
